// Package recent keeps values met lately in a fixed number of places,
// found by their exact key, without locks: for the hot path's memos,
// where a call that finds what it needs should not wait on another.
//
// A key's hash picks a set of Ways places, and the key may sit in any of
// them. With one place per hash, a handful of keys asked over and over
// (a flock's sixteen animals) would often include two sharing a place,
// each pushing the other out on every call; in a set of four they stay.
// Past that, a full set gives up the place it filled longest ago.
package recent

import "sync/atomic"

// Ways is how many places a set has.
const Ways = 4

// Places holds at most Ways values per set. Make one with New; it is safe
// for concurrent use. What it holds is shared by every caller that finds
// it and must not be changed.
type Places[T any] struct {
	sets []set[T]
}

type set[T any] struct {
	places [Ways]atomic.Pointer[T]
	turn   atomic.Uint32 // how many values a full set has taken in
}

// New returns empty Places of sets sets (Ways places each).
func New[T any](sets int) *Places[T] {
	return &Places[T]{sets: make([]set[T], max(1, sets))}
}

// Find returns the value in hash's set for which is reports true, or nil.
func (p *Places[T]) Find(hash uint64, is func(*T) bool) *T {
	s := p.set(hash)
	for i := range s.places {
		if v := s.places[i].Load(); v != nil && is(v) {
			return v
		}
	}
	return nil
}

// Keep puts v in hash's set: in the place of the value for which same
// reports true (the same key kept again), else in an empty place, else
// in the place the full set filled longest ago (places fill in order, so
// its turns go round them).
func (p *Places[T]) Keep(hash uint64, v *T, same func(*T) bool) {
	s := p.set(hash)
	empty := -1
	for i := range s.places {
		switch old := s.places[i].Load(); {
		case old != nil && same(old):
			s.places[i].Store(v)
			return
		case old == nil && empty < 0:
			empty = i
		}
	}
	if empty < 0 {
		empty = int((s.turn.Add(1) - 1) % Ways)
	}
	s.places[empty].Store(v)
}

func (p *Places[T]) set(hash uint64) *set[T] {
	return &p.sets[hash%uint64(len(p.sets))]
}
