package breeding

import (
	"math"
	"slices"
)

// A breed's genetic diversity from its pedigree alone: how complete the
// pedigree is (equivalent complete generations), how fast inbreeding rises
// (individual ΔF, Gutiérrez et al. 2009, and the effective population size
// it implies) and how many founders and ancestors the genes of a reference
// population come from (f_e, Lacy 1989; f_a, Boichard et al. 1997).
// Everything is linear in the pedigree but f_a, which costs a pass over the
// pedigree per ancestor chosen.

// IndividualDeltaF is an animal's individual rate of inbreeding (Gutiérrez
// et al. 2009): 1 - (1 - f)^(1/(t - 1)) for its coefficient f and its
// equivalent complete generations t; false when t is 1 or less, as the rate
// is not defined for a pedigree that shallow.
func IndividualDeltaF(f, t float64) (float64, bool) {
	if t <= 1 || f >= 1 || math.IsNaN(f) || math.IsNaN(t) {
		return 0, false
	}
	return 1 - math.Pow(1-f, 1/(t-1)), true
}

// GeneShare is an ancestor's share of a reference population's genes:
// Raw is the expected share of their genes that come from it, Marginal what
// it adds to the ancestors chosen before it (Boichard et al. 1997). An
// unknown parent of an animal with the other parent known counts as a
// founder of its own (Unknown: the unknown sire, or dam when Dam, of
// Animal); every other contribution is Animal's.
type GeneShare struct {
	Animal   int32
	Unknown  bool
	Dam      bool
	Raw      float64
	Marginal float64
}

// Founders is what FounderContributions finds of a reference population.
type Founders struct {
	// Fe is the effective number of founders, 1/Σp² over every founder's
	// share p (Lacy 1989); Count is how many founders have a share, the
	// unknown parents of half-known animals among them.
	Fe    float64
	Count int
	// Fa is the effective number of ancestors, 1/Σq² over the marginal
	// contributions q of the ancestors chosen greedily (Boichard et al.
	// 1997). Ancestors are they, in the order chosen; Explained is Σq, 1
	// when every gene is accounted for. Short of 1, Fa is an upper bound
	// (the ancestors not chosen would add to Σq²) and FaLow a lower one:
	// no ancestor's marginal contribution grows as others are chosen, so
	// none left exceeds the last chosen q, and the 1 - Σq left adds at
	// most (1 - Σq)·q to Σq².
	Fa, FaLow float64
	Ancestors []GeneShare
	Explained float64
}

// withUnknown is the pedigree with a node of its own for every unknown
// parent of an animal whose other parent is known, numbered after the
// animals (it has no parents, so any number serves).
type withUnknown struct {
	par  [][2]int32
	of   []int32 // node n+k -> the animal it is the unknown parent of
	dam  []bool
	size int
}

func (p *BreedPedigree) withUnknown() withUnknown {
	n := int32(len(p.par))
	w := withUnknown{par: make([][2]int32, n)}
	for i, pr := range p.par {
		w.par[i] = pr
		if (pr[0] < 0) == (pr[1] < 0) {
			continue // founder, or both parents known
		}
		k := n + int32(len(w.of))
		w.of = append(w.of, int32(i))
		if pr[0] < 0 {
			w.par[i][0] = k
			w.dam = append(w.dam, false)
		} else {
			w.par[i][1] = k
			w.dam = append(w.dam, true)
		}
	}
	w.size = int(n) + len(w.of)
	return w
}

// flowUp is each node's expected share of the reference population's genes
// (weight 1/len(ref) an animal), passed half to each parent, youngest
// first, except through the nodes cut.
func (w withUnknown) flowUp(ref []int32, cut []bool, share []float64) {
	clear(share)
	for _, i := range ref {
		share[i] += 1 / float64(len(ref))
	}
	for i := len(w.par) - 1; i >= 0; i-- {
		if share[i] == 0 || cut != nil && cut[i] {
			continue
		}
		for _, q := range w.par[i] {
			if q >= 0 {
				share[q] += share[i] / 2
			}
		}
	}
}

// FounderContributions finds the founders and the main ancestors of the
// reference population ref (animal numbers; a number given twice counts
// once), choosing at most maxAncestors ancestors for f_a. Every founder is
// a founder of the rows: an ancestor whose own parents are not recorded is
// counted as unrelated to every other, whatever its real ancestry.
func (p *BreedPedigree) FounderContributions(ref []int32, maxAncestors int) Founders {
	ref = uniqueAnimals(ref, len(p.par))
	var out Founders
	if len(ref) == 0 {
		return out
	}
	w := p.withUnknown()
	n := len(p.par)
	share := make([]float64, w.size)
	w.flowUp(ref, nil, share)
	sum2 := 0.0
	for i, s := range share {
		if s > 0 && (i >= n || p.par[i][0] < 0 && p.par[i][1] < 0) {
			out.Count++
			sum2 += s * s
		}
	}
	out.Fe = 1 / sum2
	raw := slices.Clone(share)
	// f_a: each round, the ancestors chosen pass nothing up (what their
	// ancestors gave through them is theirs), and an ancestor's marginal
	// contribution is its share times what the chosen do not explain of
	// its own genes.
	chosen := make([]bool, w.size)
	from := make([]float64, w.size) // the share of a node's genes from the chosen
	sumQ2 := 0.0
	for len(out.Ancestors) < maxAncestors && out.Explained < 1-1e-12 {
		w.flowUp(ref, chosen, share)
		for i := n; i < w.size; i++ {
			from[i] = b2f(chosen[i])
		}
		for i, pr := range w.par {
			if chosen[i] {
				from[i] = 1
				continue
			}
			from[i] = 0
			for _, q := range pr {
				if q >= 0 {
					from[i] += from[q] / 2
				}
			}
		}
		best, bestQ := -1, 0.0
		for i := range w.size {
			// Ties go to the lower number, an ancestor before its
			// offspring, so that the choice does not depend on chance.
			if q := share[i] * (1 - from[i]); !chosen[i] && q > bestQ+1e-15 {
				best, bestQ = i, q
			}
		}
		if best < 0 {
			break
		}
		chosen[best] = true
		c := GeneShare{Animal: int32(best), Raw: raw[best], Marginal: bestQ}
		if best >= n {
			k := best - n
			c.Animal, c.Unknown, c.Dam = w.of[k], true, w.dam[k]
		}
		out.Ancestors = append(out.Ancestors, c)
		out.Explained += bestQ
		sumQ2 += bestQ * bestQ
	}
	if sumQ2 > 0 {
		out.Fa = 1 / sumQ2
		last := out.Ancestors[len(out.Ancestors)-1].Marginal
		out.FaLow = 1 / (sumQ2 + max(0, 1-out.Explained)*last)
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// uniqueAnimals is ref without repeats or numbers outside 0..n-1.
func uniqueAnimals(ref []int32, n int) []int32 {
	seen := make(map[int32]bool, len(ref))
	var out []int32
	for _, i := range ref {
		if i >= 0 && int(i) < n && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}
