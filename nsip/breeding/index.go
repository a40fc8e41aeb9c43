package breeding

import (
	"cmp"
	"math"
	"slices"
)

// Weights maps trait codes to index weights: the index of an animal is
// sum(weight x EBV) over the weighted traits.
type Weights map[string]float64

// Codes lists the weighted traits, heaviest (by absolute weight) first, ties
// by code.
func (w Weights) Codes() []string {
	out := make([]string, 0, len(w))
	for c := range w {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(math.Abs(w[b]), math.Abs(w[a])); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// Index is sum(weight x EBV). ok is false, and missing names the traits,
// when the animal lacks an EBV for a weighted trait: such an animal has no
// index rather than a partial one.
func (w Weights) Index(ebv map[string]float64) (v float64, missing []string, ok bool) {
	for _, c := range w.Codes() {
		x, has := ebv[c]
		if !has {
			missing = append(missing, c)
			continue
		}
		v += w[c] * x
	}
	return v, missing, len(missing) == 0
}

// Bound is the largest index an animal could have whose EBV for trait sort
// is at most sortEdge (when the sort trait's weight is positive) or at least
// sortEdge (when negative), given each other weighted trait's range within
// the breed. ok is false when a weighted trait has no range.
func (w Weights) Bound(sort string, sortEdge float64, ranges map[string][2]float64) (float64, bool) {
	b := w[sort] * sortEdge
	for c, wt := range w {
		if c == sort {
			continue
		}
		r, ok := ranges[c]
		if !ok {
			return 0, false
		}
		b += max(wt*r[0], wt*r[1])
	}
	return b, true
}

// Scored is one animal and its index.
type Scored struct {
	ID    string
	Score float64
}

// TopN keeps the n highest scores seen, ties broken by ID so that the
// answer does not depend on the order animals arrive in.
type TopN struct {
	n    int
	rows []Scored
}

// NewTopN keeps the best n.
func NewTopN(n int) *TopN { return &TopN{n: n} }

func better(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// Offer considers one animal.
func (t *TopN) Offer(s Scored) {
	if len(t.rows) == t.n && !better(s, t.rows[len(t.rows)-1]) {
		return
	}
	i, _ := slices.BinarySearchFunc(t.rows, s, func(x, y Scored) int {
		if better(x, y) {
			return -1
		}
		if better(y, x) {
			return 1
		}
		return 0
	})
	t.rows = slices.Insert(t.rows, i, s)
	if len(t.rows) > t.n {
		t.rows = t.rows[:t.n]
	}
}

// Full reports whether n animals are held.
func (t *TopN) Full() bool { return len(t.rows) == t.n }

// Last is the n-th best score; meaningful only when Full.
func (t *TopN) Last() float64 { return t.rows[len(t.rows)-1].Score }

// Rows returns the kept animals, best first.
func (t *TopN) Rows() []Scored { return slices.Clone(t.rows) }
