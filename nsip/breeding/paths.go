package breeding

import (
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
// method, with each common ancestor's own inbreeding found the same way. It
// agrees with MatingCOI; the tests check one against the other. Ancestors
// are listed by contribution, largest first.
func (p *Pedigree) PathCOI(sire, dam string) (float64, []Contribution) {
	return p.pathCOI(sire, dam, map[string]float64{})
}

func (p *Pedigree) pathCOI(sire, dam string, memo map[string]float64) (float64, []Contribution) {
	if sire == "" || dam == "" {
		return 0, nil
	}
	up := p.upPaths(sire)
	down := p.upPaths(dam)
	byAnc := map[string]*Contribution{}
	for _, a := range up {
		for _, b := range down {
			anc := a[len(a)-1]
			if b[len(b)-1] != anc || !disjoint(a[:len(a)-1], b[:len(b)-1]) {
				continue
			}
			c := byAnc[anc]
			if c == nil {
				c = &Contribution{Ancestor: anc, Inbreeding: p.ownF(anc, memo)}
				byAnc[anc] = c
			}
			n1, n2 := len(a)-1, len(b)-1
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
	return total, out
}

func (p *Pedigree) ownF(id string, memo map[string]float64) float64 {
	if f, ok := memo[id]; ok {
		return f
	}
	s, d := p.Parents(id)
	f, _ := p.pathCOI(s, d, memo)
	memo[id] = f
	return f
}

// PathPairs is how many pairs of upward paths Wright's method would
// examine for a mating: the product of each parent's number of paths to its
// ancestors (itself included). It grows as 2^generations on each side, so
// callers use it to fall back to the tabular method on very deep pedigrees.
func (p *Pedigree) PathPairs(sire, dam string) float64 {
	memo := map[string]float64{}
	var count func(id string) float64
	count = func(id string) float64 {
		if v, ok := memo[id]; ok {
			return v
		}
		v := 1.0
		for _, q := range p.parents[id] {
			if q != "" {
				v += count(q)
			}
		}
		memo[id] = v
		return v
	}
	return count(sire) * count(dam)
}

// upPaths lists every path from id up through its known ancestors, each
// starting at id: [id], [id, sire], [id, sire, sire's dam], ...
func (p *Pedigree) upPaths(id string) [][]string {
	var out [][]string
	var walk func(path []string)
	walk = func(path []string) {
		out = append(out, slices.Clone(path))
		for _, q := range p.parents[path[len(path)-1]] {
			if q != "" {
				walk(append(path, q))
			}
		}
	}
	walk([]string{id})
	return out
}

func disjoint(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return false
		}
	}
	return true
}
