package breeding

import (
	"math"
	"slices"
)

// EquivalentGenerations is, for each animal asked (by number), its
// equivalent complete generations (Maignel, Boichard and Verrier 1996):
// the sum over its known ancestors, counted once by each path to them, of
// (1/2)^g, g the generations between (1 for a parent). It is how much of
// a pedigree is known, in one number: a parent known counts 1/2, both
// parents 1, and a pedigree complete to g generations g; an animal with
// no known parent 0. A COI computed over a pedigree of few equivalent
// generations sees only the inbreeding of those. By recursion, an
// animal's figure is the sum over its known parents of (1 + the parent's
// figure)/2; parents are numbered before offspring, so the animals of
// the ancestry are taken in number order. A number beyond the pedigree
// gives NaN.
func (p *BreedPedigree) EquivalentGenerations(animals []int32) []float64 {
	n := int32(len(p.ids))
	e := map[int32]float64{}
	for _, k := range p.Ancestry(animals) {
		v := 0.0
		for _, q := range p.par[k] {
			if q >= 0 {
				v += (1 + e[q]) / 2
			}
		}
		e[k] = v
	}
	out := make([]float64, len(animals))
	for i, a := range animals {
		if a < 0 || a >= n {
			out[i] = math.NaN()
			continue
		}
		out[i] = e[a]
	}
	return out
}

// Ancestry is the animals asked (by number) and all their ancestors, each
// once, in number order, so parents before offspring; numbers beyond the
// pedigree, or -1, are left out.
func (p *BreedPedigree) Ancestry(animals []int32) []int32 {
	n := int32(len(p.ids))
	seen := map[int32]bool{}
	var stack []int32
	for _, a := range animals {
		if a >= 0 && a < n {
			stack = append(stack, a)
		}
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[k] {
			continue
		}
		seen[k] = true
		for _, q := range p.par[k] {
			if q >= 0 {
				stack = append(stack, q)
			}
		}
	}
	out := make([]int32, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
