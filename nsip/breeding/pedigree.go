// Package breeding is the arithmetic behind the analysis tools: pedigrees
// and Wright's coefficient of inbreeding, selection indexes, an exact top-N
// bound, optimal mating assignment and trait statistics. It does no I/O.
package breeding

import (
	"errors"
	"fmt"
	"slices"
)

// Pedigree records each animal's sire and dam. An empty parent is unknown.
// The zero value is not usable; call NewPedigree. It keeps each animal's
// inbreeding once computed, so it is not safe for concurrent use.
type Pedigree struct {
	parents map[string][2]string
	inbr    map[string]float64 // each animal's F, as computed so far
}

// NewPedigree returns an empty pedigree.
func NewPedigree() *Pedigree {
	return &Pedigree{parents: map[string][2]string{}}
}

// ErrConflict reports two records giving one animal different parents.
var ErrConflict = errors.New("conflicting parents")

// Add records an animal and its parents (either may be ""). A later record
// may fill in a parent that was unknown; one naming a different parent is
// refused, as is an animal that would be its own ancestor.
func (p *Pedigree) Add(id, sire, dam string) error {
	if id == "" {
		return errors.New("breeding: an animal needs an ID")
	}
	if id == sire || id == dam {
		return fmt.Errorf("breeding: %s is recorded as its own parent", id)
	}
	old, seen := p.parents[id]
	next := [2]string{sire, dam}
	for i := range next {
		switch {
		case next[i] == "":
			next[i] = old[i]
		case old[i] != "" && old[i] != next[i]:
			return fmt.Errorf("breeding: %s: %w: %s and %s", id, ErrConflict, old[i], next[i])
		}
	}
	if seen && next == old {
		return nil // nothing new: no cycle to look for, no memo to drop
	}
	p.parents[id] = next
	// An animal new to the pedigree is no one's parent in it yet (every
	// parent named is recorded), so it cannot be its own ancestor: only
	// a record of an animal already named can close a cycle. A pedigree
	// added parents first, as one copied from a breed's, so costs no walk.
	if seen && p.isAncestor(id, id) {
		p.parents[id] = old
		if !seen {
			delete(p.parents, id)
		}
		return fmt.Errorf("breeding: %s would be its own ancestor", id)
	}
	// Parents are named only once the record is accepted.
	for _, q := range next {
		if _, ok := p.parents[q]; q != "" && !ok {
			p.parents[q] = [2]string{}
		}
	}
	p.inbr = nil // the memo no longer holds
	return nil
}

// Has reports whether the pedigree names the animal at all.
func (p *Pedigree) Has(id string) bool { _, ok := p.parents[id]; return ok }

// Parents returns an animal's sire and dam, "" where unknown.
func (p *Pedigree) Parents(id string) (sire, dam string) {
	ps := p.parents[id]
	return ps[0], ps[1]
}

// Len is the number of animals named, parents included.
func (p *Pedigree) Len() int { return len(p.parents) }

// isAncestor reports whether a is a strict ancestor of x.
func (p *Pedigree) isAncestor(a, x string) bool {
	seen := map[string]bool{}
	stack := []string{x}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range p.parents[n] {
			if q == "" || seen[q] {
				continue
			}
			if q == a {
				return true
			}
			seen[q] = true
			stack = append(stack, q)
		}
	}
	return false
}

// Completeness is the share of ancestor slots known in each generation
// behind an animal: [0] its two parents, [1] its four grandparents, and so
// on for gens generations.
func (p *Pedigree) Completeness(id string, gens int) []float64 {
	out := make([]float64, gens)
	level := []string{id}
	for g := range gens {
		var next []string
		known := 0
		for _, a := range level {
			for _, q := range p.parents[a] {
				if q != "" {
					known++
					next = append(next, q)
				}
			}
		}
		out[g] = float64(known) / float64(int(1)<<(g+1))
		level = next
	}
	return out
}

// Ancestors lists the known ancestors of id, each once, nearest first.
func (p *Pedigree) Ancestors(id string) []string {
	var out []string
	seen := map[string]bool{id: true}
	level := []string{id}
	for len(level) > 0 {
		var next []string
		for _, a := range level {
			for _, q := range p.parents[a] {
				if q != "" && !seen[q] {
					seen[q] = true
					out = append(out, q)
					next = append(next, q)
				}
			}
		}
		level = next
	}
	return out
}

// Leaves lists the animals within gens generations behind id whose sire
// and dam are both unknown: those whose pedigree might be extended.
func (p *Pedigree) Leaves(id string, gens int) []string {
	var out []string
	seen := map[string]bool{}
	level := []string{id}
	for g := 0; g <= gens && len(level) > 0; g++ {
		var next []string
		for _, a := range level {
			if seen[a] {
				continue
			}
			seen[a] = true
			ps := p.parents[a]
			if ps == [2]string{} {
				if g > 0 {
					out = append(out, a)
				}
				continue
			}
			for _, q := range ps {
				if q != "" {
					next = append(next, q)
				}
			}
		}
		level = next
	}
	slices.Sort(out)
	return out
}
