package breeding

import (
	"context"
	"errors"
	"fmt"
)

// Limits on one inbreeding or relationship computation. The pedigree comes
// from NSIP, which promises nothing about its shape, so a pedigree past
// either limit is refused with ErrTooComplex rather than allowed to take
// the process's memory or minutes of CPU. Real flocks are far inside both:
// sixteen generations of distinct ancestors behind each parent are about
// 131,000 animals and 2 million steps; 6 generations, a few hundred
// animals and a few thousand steps.
const (
	// MaxAnimals bounds the animals behind one pair (the pair included).
	// Memory is linear in it: a few dozen bytes an animal.
	MaxAnimals = 200_000
	// MaxSteps bounds the work of one call: each step is one ancestor
	// visited while tracing an animal's row of the pedigree, or one animal
	// compared while checking a pair of paths. A second or so of CPU.
	MaxSteps = 5_000_000
	// MaxPathPairs bounds the pairs of upward paths PathCOI enumerates.
	MaxPathPairs = 250_000
)

// The limits in force; tests lower them to reach them quickly.
var (
	animalLimit = MaxAnimals
	stepLimit   = MaxSteps
)

// ErrTooComplex reports a pedigree beyond MaxAnimals, MaxSteps or
// MaxPathPairs. The error wrapping it says which and by how much.
var ErrTooComplex = errors.New("pedigree too complex")

// ctxEvery is how many steps pass between looks at the context.
const ctxEvery = 4096

// budget counts steps against MaxSteps and checks for cancellation.
type budget struct {
	ctx   context.Context
	steps int
}

func (b *budget) spend(n int) error {
	before := b.steps
	b.steps += n
	if b.steps > stepLimit {
		return fmt.Errorf("breeding: %w: more than %d steps", ErrTooComplex, stepLimit)
	}
	if before/ctxEvery != b.steps/ctxEvery {
		return b.ctx.Err()
	}
	return nil
}

// MatingCOI is the coefficient of inbreeding of a lamb of sire and dam:
// half their additive relationship. Either may be "" (unknown: 0).
func (p *Pedigree) MatingCOI(ctx context.Context, sire, dam string) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return p.lambF(&budget{ctx: ctx}, sire, dam)
}

// Inbreeding is an animal's own coefficient of inbreeding.
func (p *Pedigree) Inbreeding(ctx context.Context, id string) (float64, error) {
	if f, ok := p.inbr[id]; ok {
		return f, nil
	}
	s, d := p.Parents(id)
	return p.MatingCOI(ctx, s, d)
}

// Relationship is the additive relationship a(x, y): 1 + F(x) when x = y,
// otherwise twice the inbreeding of a (virtual) lamb of x and y. Unknown
// animals ("") contribute 0.
func (p *Pedigree) Relationship(ctx context.Context, x, y string) (float64, error) {
	if x == "" || y == "" {
		return 0, nil
	}
	if x == y {
		f, err := p.Inbreeding(ctx, x)
		return 1 + f, err
	}
	f, err := p.MatingCOI(ctx, x, y)
	return 2 * f, err
}

// lambF computes the inbreeding of a virtual lamb of s and d by Meuwissen
// and Luo's method (1992), which reads the relationship matrix as L D L':
// with the animals ordered parents first, an animal's row of L is found by
// passing each ancestor's coefficient half to each of its parents, taken
// from the youngest back, and F_i = sum_j L_ij^2 D_j - 1, where D_j, the
// within-family variance, is 1/2 - (F_sire + F_dam)/4 with an unknown
// parent counting F = -1. It keeps one number per animal behind the pair,
// so memory grows with the pedigree, not with the paths through it; the
// tabular method it replaces memoised one number per pair of animals.
// Every ancestor's own F is kept in p.inbr for later calls.
func (p *Pedigree) lambF(b *budget, s, d string) (float64, error) {
	if s == "" || d == "" {
		// A lamb with an unknown parent has no common ancestor to inherit.
		return 0, nil
	}
	g, err := p.gather(b, s, d)
	if err != nil {
		return 0, err
	}
	if p.inbr == nil {
		p.inbr = map[string]float64{}
	}
	n := len(g.ids)
	f := make([]float64, n)
	dv := make([]float64, n)
	w := &lrow{l: make([]float64, n)}
	for i := range n {
		dv[i] = g.within(f, g.par[i])
		if v, ok := p.inbr[g.ids[i]]; ok {
			f[i] = v
			continue
		}
		v, err := w.inbreeding(b, g.par, dv, g.par[i], dv[i])
		if err != nil {
			return 0, err
		}
		f[i] = v
		p.inbr[g.ids[i]] = v
	}
	lamb := [2]int32{g.index[s], g.index[d]}
	return w.inbreeding(b, g.par, dv, lamb, g.within(f, lamb))
}

// ancestry is the animals behind a pair, numbered so that parents come
// before their offspring.
type ancestry struct {
	ids   []string
	par   [][2]int32 // local numbers of sire and dam, -1 where unknown
	index map[string]int32
}

// within is D for an animal with parents q: the share of its variance not
// explained by them.
func (g *ancestry) within(f []float64, q [2]int32) float64 {
	v := 1.0
	for _, x := range q {
		if x >= 0 {
			v -= (1 + f[x]) / 4
		}
	}
	return v
}

// gather collects s, d and all their known ancestors and orders them
// parents first by an iterative depth-first walk (a deep pedigree must not
// deepen the goroutine's stack), refusing more than MaxAnimals.
func (p *Pedigree) gather(b *budget, s, d string) (*ancestry, error) {
	g := &ancestry{index: map[string]int32{}}
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int8{}
	type frame struct {
		id   string
		next int // which parent to visit next
	}
	for _, root := range [2]string{s, d} {
		if state[root] != unseen {
			continue
		}
		stack := []frame{{id: root}}
		state[root] = open
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < 2 {
				q := p.parents[top.id][top.next]
				top.next++
				if q != "" && state[q] == unseen {
					state[q] = open
					stack = append(stack, frame{id: q})
				}
				continue
			}
			id := top.id
			stack = stack[:len(stack)-1]
			state[id] = done
			if len(g.ids) == animalLimit {
				return nil, fmt.Errorf("breeding: %w: more than %d animals behind %s and %s", ErrTooComplex, animalLimit, s, d)
			}
			if err := b.spend(1); err != nil {
				return nil, err
			}
			// Post-order: both parents are numbered already.
			par := [2]int32{-1, -1}
			for k, q := range p.parents[id] {
				if q != "" {
					par[k] = g.index[q]
				}
			}
			g.index[id] = int32(len(g.ids))
			g.ids = append(g.ids, id)
			g.par = append(g.par, par)
		}
	}
	return g, nil
}

// lrow is the scratch space for one row of L: the coefficients, and a
// max-heap of the ancestors still to pass theirs on, youngest first.
type lrow struct {
	l    []float64
	heap []int32
}

// inbreeding is F of an animal with parents q, numbered after all its
// ancestors, and within-family variance dSelf.
func (w *lrow) inbreeding(b *budget, par [][2]int32, dv []float64, q [2]int32, dSelf float64) (float64, error) {
	sum := dSelf // L_self,self = 1
	for _, x := range q {
		w.add(x, 0.5)
	}
	for len(w.heap) > 0 {
		if err := b.spend(1); err != nil {
			w.reset()
			return 0, err
		}
		j := w.pop()
		lj := w.l[j]
		w.l[j] = 0
		sum += lj * lj * dv[j]
		for _, x := range par[j] {
			w.add(x, lj/2)
		}
	}
	return sum - 1, nil
}

func (w *lrow) add(x int32, v float64) {
	if x < 0 {
		return
	}
	if w.l[x] == 0 {
		w.push(x)
	}
	w.l[x] += v
}

// reset clears what a refused row left behind, so the scratch stays zero.
func (w *lrow) reset() {
	for _, j := range w.heap {
		w.l[j] = 0
	}
	w.heap = w.heap[:0]
}

func (w *lrow) push(x int32) {
	h := append(w.heap, x)
	i := len(h) - 1
	for i > 0 {
		up := (i - 1) / 2
		if h[up] >= h[i] {
			break
		}
		h[up], h[i] = h[i], h[up]
		i = up
	}
	w.heap = h
}

func (w *lrow) pop() int32 {
	h := w.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[i] >= h[c] {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	w.heap = h
	return top
}
