package breeding

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Contribution is one common ancestor's share of a mating's inbreeding by
// Wright's path method: the sum over every pair of paths from the sire and
// from the dam up to the ancestor that share no animal but it, of
// (1/2)^(n1+n2+1) (1 + F_A), where n1 and n2 count the generations from
// each parent up to the ancestor (0 when the parent is the ancestor).
type Contribution struct {
	Ancestor   string   `json:"ancestor"`
	Inbreeding float64  `json:"ancestor_coi"` // F_A
	Paths      [][2]int `json:"paths"`        // (n1, n2) of each path pair
	Value      float64  `json:"contribution"`
}

// PathCOI computes a mating's coefficient of inbreeding by Wright's path
// method, each common ancestor's own inbreeding taken from MatingCOI's
// computation. Ancestors are listed by contribution, largest first. It
// refuses, with ErrTooComplex, a mating of more than MaxPathPairs pairs of
// paths or more than MaxSteps animals compared; MatingCOI still answers
// those.
func (p *Pedigree) PathCOI(ctx context.Context, sire, dam string) (float64, []Contribution, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	if sire == "" || dam == "" {
		return 0, nil, nil
	}
	if n := p.PathPairs(sire, dam); n > MaxPathPairs {
		return 0, nil, fmt.Errorf("breeding: %w: %g pairs of paths behind %s and %s, more than %d", ErrTooComplex, n, sire, dam, MaxPathPairs)
	}
	b := &budget{ctx: ctx}
	// Fills p.inbr with every ancestor's own F.
	if _, err := p.lambF(b, sire, dam); err != nil {
		return 0, nil, err
	}
	up, down := p.upPaths(sire), p.upPaths(dam)
	byEnd := map[string][]int32{}
	for i, n := range down {
		byEnd[n.id] = append(byEnd[n.id], int32(i))
	}
	byAnc := map[string]*Contribution{}
	var chain []string
	for ai, a := range up {
		ends := byEnd[a.id]
		if len(ends) == 0 {
			continue
		}
		// The animals of a's path other than the ancestor itself.
		chain = chain[:0]
		for k := a.prev; k >= 0; k = up[k].prev {
			chain = append(chain, up[k].id)
		}
		for _, bi := range ends {
			bn := down[bi]
			if err := b.spend(1 + len(chain)*int(bn.n)); err != nil {
				return 0, nil, err
			}
			if !disjoint(chain, down, bn.prev) {
				continue
			}
			c := byAnc[a.id]
			if c == nil {
				c = &Contribution{Ancestor: a.id, Inbreeding: p.inbr[a.id]}
				byAnc[a.id] = c
			}
			n1, n2 := int(up[ai].n), int(bn.n)
			c.Paths = append(c.Paths, [2]int{n1, n2})
			c.Value += math.Ldexp(1+c.Inbreeding, -(n1 + n2 + 1))
		}
	}
	out := make([]Contribution, 0, len(byAnc))
	total := 0.0
	for _, c := range byAnc {
		slices.SortFunc(c.Paths, func(x, y [2]int) int { return (x[0] + x[1]) - (y[0] + y[1]) })
		out = append(out, *c)
		total += c.Value
	}
	slices.SortFunc(out, func(x, y Contribution) int {
		switch {
		case x.Value > y.Value:
			return -1
		case x.Value < y.Value:
			return 1
		}
		if x.Ancestor < y.Ancestor {
			return -1
		}
		return 1
	})
	return total, out, nil
}

// PathPairs is how many pairs of upward paths Wright's method would
// examine for a mating: the product of each parent's number of paths to its
// ancestors (itself included). It grows as 2^generations on each side, so
// callers use it to fall back to MatingCOI on very deep pedigrees.
func (p *Pedigree) PathPairs(sire, dam string) float64 {
	memo := map[string]float64{}
	// count(id) = 1 + count(sire) + count(dam), in post-order with an
	// explicit stack, since a pedigree may be a chain of any length.
	count := func(root string) float64 {
		if root == "" {
			return 0
		}
		stack := []string{root}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			if _, ok := memo[id]; ok {
				stack = stack[:len(stack)-1]
				continue
			}
			v, ready := 1.0, true
			for _, q := range p.parents[id] {
				if q == "" {
					continue
				}
				if c, ok := memo[q]; ok {
					v += c
				} else {
					ready = false
					stack = append(stack, q)
				}
			}
			if ready {
				memo[id] = v
				stack = stack[:len(stack)-1]
			}
		}
		return memo[root]
	}
	return count(sire) * count(dam)
}

// pathNode is one upward path, stored as its last animal and the path it
// extends, so that a parent's paths cost one node each however long.
type pathNode struct {
	id   string
	prev int32 // the path without its last animal; -1 for the start
	n    int32 // generations from the start
}

// upPaths lists every path from id up through its known ancestors, id
// itself first, each path before those that extend it.
func (p *Pedigree) upPaths(id string) []pathNode {
	var out []pathNode
	// Depth first with an explicit stack, sire's side before dam's, so the
	// order (and so the order of additions) is a recursive walk's.
	stack := []pathNode{{id: id, prev: -1}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i := int32(len(out))
		out = append(out, n)
		ps := p.parents[n.id]
		for k := len(ps) - 1; k >= 0; k-- {
			if ps[k] != "" {
				stack = append(stack, pathNode{id: ps[k], prev: i, n: n.n + 1})
			}
		}
	}
	return out
}

// disjoint reports whether no animal of chain lies on the path that ends at
// down[k] (followed back to its start).
func disjoint(chain []string, down []pathNode, k int32) bool {
	for ; k >= 0; k = down[k].prev {
		if slices.Contains(chain, down[k].id) {
			return false
		}
	}
	return true
}
