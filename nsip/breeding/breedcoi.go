package breeding

import (
	"math"
	"slices"
)

// Inbreeding is every animal's coefficient of inbreeding, by number.
//
// The method is Colleau's indirect one (2002) applied parent by parent, as
// Sargolzaei, Iwaisaki and Colleau (2005) do: with the additive
// relationship matrix written A = T D T' (T passes half of each parent's
// value to its offspring, D is each animal's within-family variance), the
// column of A for a parent x is T D T' e_x. T' e_x is found by passing
// half of x's coefficient up to each of its parents through its
// ancestors, D scales it, and T passes the result back down, but only
// through the ancestors of x's mates: that is all the column needs at the
// mates, and a lamb's F is half its parents' relationship. One parent's
// column serves all its lambs, so a ram with forty ewes costs one pass up
// his pedigree and one down theirs, not forty. Parents are taken in
// number order, so every ancestor's own F, which its D needs, is known
// before it is used. Memory is linear: a few numbers per animal, never
// one per pair. The work is the sum over parents of their ancestries and
// their mates': a few dozen animals visited per animal for a breed of
// twenty generations, but a chain thousands of generations deep, which
// only bad data could make, costs the square of its length.
//
// An unknown parent, and so every founder, counts as unrelated to every
// other animal and not inbred. The result is computed once and kept; the
// slice returned is the caller's.
func (p *BreedPedigree) Inbreeding() []float64 {
	p.once.Do(p.computeInbreeding)
	return slices.Clone(p.f)
}

// within is animal i's within-family variance D_i: the share of its
// additive variance its parents do not explain, 1 - (1 + F_parent)/4 per
// known parent.
func (p *BreedPedigree) within(f []float64, i int32) float64 {
	d := 1.0
	if s := p.par[i][0]; s >= 0 {
		d -= (1 + f[s]) / 4
	}
	if q := p.par[i][1]; q >= 0 {
		d -= (1 + f[q]) / 4
	}
	return d
}

// colleau is the scratch of the computation: a value per animal for the
// pass up (v) and down (u), a mark per animal, and the lists of a pass.
type colleau struct {
	p     *BreedPedigree
	f     []float64
	v, u  []float64
	mark  []uint32
	epoch uint32
	up    []int32 // the animal and its ancestors, parents first
	down  []int32 // the mates and their ancestors, parents first
	stack []int32
}

func newColleau(p *BreedPedigree, f []float64) *colleau {
	n := len(p.ids)
	return &colleau{p: p, f: f, v: make([]float64, n), u: make([]float64, n), mark: make([]uint32, n)}
}

// postOrder lists the roots and all their ancestors numbered lo or more,
// each once, parents before offspring, into out.
func (c *colleau) postOrder(roots []int32, lo int32, out []int32) []int32 {
	c.epoch++
	e, par, mark := c.epoch, c.p.par, c.mark
	st := c.stack[:0]
	for _, r := range roots {
		if r < lo || mark[r] == e {
			continue
		}
		st = append(st, r)
		for len(st) > 0 {
			k := st[len(st)-1]
			if k < 0 {
				// Finished: every parent is listed already.
				out = append(out, ^k)
				st = st[:len(st)-1]
				continue
			}
			if mark[k] == e {
				// Pushed twice and expanded from the other push.
				st = st[:len(st)-1]
				continue
			}
			// Marked when expanded, not when pushed, so that an animal
			// is listed only once all of its parents are.
			mark[k] = e
			st[len(st)-1] = ^k
			pk := par[k]
			if q := pk[1]; q >= lo && mark[q] != e {
				st = append(st, q)
			}
			if q := pk[0]; q >= lo && mark[q] != e {
				st = append(st, q)
			}
		}
	}
	c.stack = st
	return out
}

// column computes a(x, y) for every y of mates, into c.u: one pass up
// from x, one down through the mates' ancestry. Every ancestor of x must
// have its F in c.f. It returns the lowest number of x's line, for at.
func (c *colleau) column(x int32, mates []int32) int32 {
	p := c.p
	c.up = c.postOrder([]int32{x}, 0, c.up[:0])
	// Up: v = T' e_x, youngest first, so each animal has all its share
	// before passing half on; then w = D v, kept in v.
	c.v[x] = 1
	lo := x
	for i := len(c.up) - 1; i >= 0; i-- {
		j := c.up[i]
		vj := c.v[j]
		if s := p.par[j][0]; s >= 0 {
			c.v[s] += vj / 2
		}
		if d := p.par[j][1]; d >= 0 {
			c.v[d] += vj / 2
		}
		c.v[j] = vj * p.within(c.f, j)
		lo = min(lo, j)
	}
	// Down: u = T w over the mates' ancestry. Parents are numbered before
	// offspring, so nothing numbered below every animal of x's line
	// descends from it: u is 0 there and the walk stops.
	c.down = c.postOrder(mates, lo, c.down[:0])
	for _, i := range c.down {
		ui := c.v[i]
		if s := p.par[i][0]; s >= lo {
			ui += c.u[s] / 2
		}
		if d := p.par[i][1]; d >= lo {
			ui += c.u[d] / 2
		}
		c.u[i] = ui
	}
	return lo
}

// at is a(x, y) after column(x, ...) with y among the mates.
func (c *colleau) at(lo, y int32) float64 {
	if y < lo || c.mark[y] != c.epoch {
		return 0
	}
	return c.u[y]
}

// clear zeroes what column left in v, so that the next starts clean.
func (c *colleau) clear() {
	for _, j := range c.up {
		c.v[j] = 0
	}
}

func (p *BreedPedigree) computeInbreeding() {
	n := int32(len(p.ids))
	f := make([]float64, n)
	// Each lamb with both parents known is computed from the column of
	// the parent with more such lambs, so that a column serves as many as
	// it can; lambs are grouped by that parent, counting-sort style.
	lambs := make([]int32, n)
	for i := range n {
		if s, d := p.par[i][0], p.par[i][1]; s >= 0 && d >= 0 {
			lambs[s]++
			lambs[d]++
		}
	}
	key := func(i int32) int32 {
		s, d := p.par[i][0], p.par[i][1]
		if lambs[d] > lambs[s] {
			return d
		}
		return s
	}
	start := make([]int32, n+1)
	for i := range n {
		if p.par[i][0] >= 0 && p.par[i][1] >= 0 {
			start[key(i)+1]++
		}
	}
	for i := range n {
		start[i+1] += start[i]
	}
	byKey := make([]int32, start[n])
	next := slices.Clone(start[:n])
	for i := range n {
		if p.par[i][0] >= 0 && p.par[i][1] >= 0 {
			k := key(i)
			byKey[next[k]] = i
			next[k]++
		}
	}
	lambs, next = nil, nil
	c := newColleau(p, f)
	var mates []int32
	for x := range n {
		group := byKey[start[x]:start[x+1]]
		if len(group) == 0 {
			continue
		}
		mates = mates[:0]
		for _, i := range group {
			mates = append(mates, p.par[i][0]^p.par[i][1]^x) // the other parent
		}
		lo := c.column(x, mates)
		for _, i := range group {
			f[i] = c.at(lo, p.par[i][0]^p.par[i][1]^x) / 2
		}
		c.clear()
	}
	p.f = f
}

// Coancestry is the coefficient of coancestry of each pair of animals
// (by number): half their additive relationship, so the inbreeding of a
// lamb they would have. An animal with itself gives (1 + F)/2. A number
// of -1 (unknown) gives 0, as an unknown parent is unrelated; a number
// beyond the pedigree gives NaN. Pairs sharing an animal share its
// column (Colleau's method, as for Inbreeding), so a plan of 10 rams and
// 100 ewes costs ten columns, not a thousand. The first call computes the
// inbreeding of every animal, which the columns need.
func (p *BreedPedigree) Coancestry(pairs [][2]int32) []float64 {
	p.once.Do(p.computeInbreeding)
	n := int32(len(p.ids))
	out := make([]float64, len(pairs))
	// Count how often each animal appears, and key each pair by its more
	// frequent animal, so that one column serves the most pairs.
	count := map[int32]int{}
	valid := func(x int32) bool { return x >= 0 && x < n }
	for i, pr := range pairs {
		a, b := pr[0], pr[1]
		switch {
		case a >= n || b >= n:
			out[i] = math.NaN()
		case a < 0 || b < 0:
		default:
			count[a]++
			count[b]++
		}
	}
	groups := map[int32][]int{}
	for i, pr := range pairs {
		a, b := pr[0], pr[1]
		if !valid(a) || !valid(b) {
			continue
		}
		if count[b] > count[a] || count[b] == count[a] && b < a {
			a = b
		}
		groups[a] = append(groups[a], i)
	}
	keys := make([]int32, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a fixed order, so that sums add up the same way
	c := newColleau(p, p.f)
	var mates []int32
	for _, x := range keys {
		mates = mates[:0]
		for _, i := range groups[x] {
			mates = append(mates, pairs[i][0]^pairs[i][1]^x)
		}
		lo := c.column(x, mates)
		for _, i := range groups[x] {
			out[i] = c.at(lo, pairs[i][0]^pairs[i][1]^x) / 2
		}
		c.clear()
	}
	return out
}
