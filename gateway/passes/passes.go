// Package passes keeps breed passes (analysis.BreedPass) between calls:
// bounded in bytes, the least recently used dropped first, shared with the
// other replicas through Redis, and read in the background when a call's
// time would not hold one.
//
// A gateway makes one [Store], hands the analyses its [Store.Load] and
// [Store.Keep], starts background reads with [Store.Fill], reports
// [Store.Size] to /metrics, and calls [Store.Close] on shutdown, which ends
// the reads under way. A read under way is a [Fill]: it counts its pages
// as they come, can be cancelled, and says how it ended, which the MCP
// task a caller follows it by reports:
//
//	s := passes.New(passes.Config{MaxBytes: max / 4, TTL: ttl, Shared: rd, Now: time.Now, Logger: log})
//	defer s.Close()
//	if p := s.Load(ctx, breed, evaluation); p == nil {
//		f, started := s.Fill(analysis.PassKey(breed, evaluation), read)
//	}
package passes

import (
	"container/list"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
)

// Passes are keyed by breed and NSIP's evaluation date (analysis.PassKey).
// A pass keyed by an evaluation is not read under a later one, so it is
// kept as long as an answer and its stale copy would be (Config.TTL).

// FillTime bounds a pass read in the background.
const FillTime = 10 * time.Minute

// Shared is the Redis tier the passes are shared through, sealed as every
// record is (cache.Redis).
type Shared interface {
	// Load is the value under key and when it was stored.
	Load(ctx context.Context, key string, now time.Time) (value []byte, stored time.Time, ok bool)
	// Store keeps value under key for ttl.
	Store(ctx context.Context, key string, value []byte, stored time.Time, ttl time.Duration)
	// Ignored counts a record read but not used.
	Ignored()
}

// Config is a Store's bound and surroundings.
type Config struct {
	MaxBytes int64         // the bound of the passes kept, in bytes
	TTL      time.Duration // how long a pass is kept
	Shared   Shared        // nil: this replica keeps its own passes only
	Now      func() time.Time
	Logger   *slog.Logger
	// Ended, when set, hears of each background read's end, by key, once
	// the store has recorded how it ended (and before Close returns).
	Ended func(key string)
}

// Store is the passes kept, and those being read in the background.
type Store struct {
	cfg Config

	mu    sync.Mutex
	bytes int64
	lru   *list.List // of *entry, most recently used first
	byKey map[string]*list.Element
	// filling are the passes being read in the background: one at a
	// time, since a large breed's read takes the upstream's connections
	// and fills the answer cache with its pages.
	filling map[string]*Fill
	// refused are the passes whose last read was not kept, and why, so
	// that a pass that cannot be kept is not read again on every call.
	refused map[string]refusal
	closed  bool

	// life ends the background reads when the store is closed.
	life  context.Context
	stop  context.CancelFunc
	fills sync.WaitGroup
}

type refusal struct {
	why string
	at  time.Time
}

// RefuseTime is how long a pass whose read was not kept is not read
// again: as long as a cached answer lives, after which NSIP may have
// settled (its pages agreeing again) or the bounds changed.
const RefuseTime = time.Hour

type entry struct {
	key    string
	p      *breedpass.BreedPass
	size   int64
	stored time.Time
}

// New is an empty store.
func New(cfg Config) *Store {
	life, stop := context.WithCancel(context.Background())
	return &Store{cfg: cfg, lru: list.New(), byKey: map[string]*list.Element{}, filling: map[string]*Fill{}, refused: map[string]refusal{}, life: life, stop: stop}
}

// Max is the store's bound in bytes.
func (s *Store) Max() int64 { return s.cfg.MaxBytes }

// Size is the bytes and the number of passes kept, for /metrics.
func (s *Store) Size() (int64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes, s.lru.Len()
}

// Load is the pass of breed under evaluation: this replica's, or one
// another replica shared through Redis; nil when neither keeps one.
func (s *Store) Load(ctx context.Context, breed int, evaluation string) *breedpass.BreedPass {
	key, now := breedpass.PassKey(breed, evaluation), s.cfg.Now()
	if p := s.get(key, now, s.cfg.TTL); p != nil {
		return p
	}
	rd := s.cfg.Shared
	if rd == nil {
		return nil
	}
	b, stored, ok := rd.Load(ctx, key, now)
	if !ok || now.Sub(stored) > s.cfg.TTL {
		return nil
	}
	p := &breedpass.BreedPass{}
	if err := p.UnmarshalBinary(b); err != nil || p.Breed != breed || p.Evaluation != evaluation {
		rd.Ignored()
		return nil
	}
	s.put(key, p, stored)
	return p
}

// Holds reports whether this replica keeps a pass of breed under any
// evaluation, read or shared to it within the TTL: whether reading NSIP's
// date to find a current one may pay. A pass only another replica keeps
// is not seen until a question of this replica loads it.
func (s *Store) Holds(breed int) bool {
	now := s.cfg.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for el := s.lru.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*entry); e.p.Breed == breed && now.Sub(e.stored) <= s.cfg.TTL {
			return true
		}
	}
	return false
}

// Keep keeps p here and shares it through Redis, and reports whether it
// did; a pass larger than the whole bound is logged and not kept.
func (s *Store) Keep(ctx context.Context, p *breedpass.BreedPass) bool {
	key, now := breedpass.PassKey(p.Breed, p.Evaluation), s.cfg.Now()
	if !s.put(key, p, now) {
		s.cfg.Logger.Info("breed pass not kept: larger than the passes may hold", "breed_id", p.Breed, "bytes", p.Bytes(), "limit_bytes", s.cfg.MaxBytes)
		return false
	}
	if rd := s.cfg.Shared; rd != nil {
		if b, err := p.MarshalBinary(); err == nil {
			rd.Store(ctx, key, b, now, s.cfg.TTL)
		}
	}
	return true
}

// Fill runs read in the background, unless a pass is already being read,
// the pass of key was refused within RefuseTime or the store is closed,
// and reports whether it started it (Why says why not); the Fill is the
// read started, or the one of key already under way, or nil.
// read's context ends after FillTime, when the store is closed, or when
// the Fill is cancelled; what read returns is how the Fill ended.
func (s *Store) Fill(key string, read func(ctx context.Context, f *Fill) (Summary, error)) (*Fill, bool) {
	s.mu.Lock()
	if f := s.filling[key]; f != nil {
		s.mu.Unlock()
		return f, false
	}
	if s.closed || len(s.filling) > 0 || s.refusedLocked(key) != "" {
		s.mu.Unlock()
		return nil, false
	}
	ctx, cancel := context.WithTimeout(s.life, FillTime)
	f := &Fill{key: key, cancel: cancel, done: make(chan struct{})}
	s.filling[key] = f
	s.fills.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.fills.Done()
		defer cancel()
		sum, err := read(ctx, f)
		if err == nil && ctx.Err() != nil {
			err = ctx.Err() // ended by its context, whatever read made of it
		}
		s.mu.Lock()
		delete(s.filling, key)
		s.mu.Unlock()
		f.end(sum, err)
		if s.cfg.Ended != nil {
			s.cfg.Ended(key)
		}
	}()
	return f, true
}

// Filling is the read of key under way, or nil.
func (s *Store) Filling(key string) *Fill {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.filling[key]
}

// Refuse records that the pass of key was read and not kept, and why.
func (s *Store) Refuse(key, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused[key] = refusal{why: why, at: s.cfg.Now()}
}

// Why says why Fill would not read the pass of key now; "" when it would,
// or when that pass is being read already.
func (s *Store) Why(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return "the server is shutting down"
	case s.filling[key] != nil:
		return ""
	case len(s.filling) > 0:
		return "another breed's pass is being read in the background, one at a time"
	}
	return s.refusedLocked(key)
}

// refusedLocked is why the pass of key was refused, while that holds.
func (s *Store) refusedLocked(key string) string {
	r, ok := s.refused[key]
	if !ok {
		return ""
	}
	if s.cfg.Now().Sub(r.at) > RefuseTime {
		delete(s.refused, key)
		return ""
	}
	return "its last read was not kept (" + r.why + ")"
}

// Close ends the reads under way, waits for them to return and starts no
// more; the passes kept stay readable.
func (s *Store) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.fills.Wait()
}

// get is the pass kept under key, if it is younger than ttl at now.
func (s *Store) get(key string, now time.Time, ttl time.Duration) *breedpass.BreedPass {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byKey[key]
	if !ok {
		return nil
	}
	e := el.Value.(*entry)
	if now.Sub(e.stored) > ttl {
		s.removeLocked(el)
		return nil
	}
	s.lru.MoveToFront(el)
	return e.p
}

// put keeps p under key, dropping the least recently used passes until it
// fits; a pass larger than the whole bound is not kept.
func (s *Store) put(key string, p *breedpass.BreedPass, stored time.Time) bool {
	size := p.Bytes()
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byKey[key]; ok {
		s.removeLocked(el)
	}
	if size > s.cfg.MaxBytes {
		return false
	}
	for s.bytes+size > s.cfg.MaxBytes {
		s.removeLocked(s.lru.Back())
	}
	s.byKey[key] = s.lru.PushFront(&entry{key: key, p: p, size: size, stored: stored})
	s.bytes += size
	return true
}

func (s *Store) removeLocked(el *list.Element) {
	e := s.lru.Remove(el).(*entry)
	delete(s.byKey, e.key)
	s.bytes -= e.size
}
