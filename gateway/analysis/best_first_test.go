package analysis

import (
	"cmp"
	"slices"
	"strings"
)

// scored is an animal's value under a ranking, as brute force works it
// out to check an answer against.
type scored struct {
	id string
	v  float64
}

// bestFirst sorts all in the order every ranking answers in: best value
// first, ties by LPN ID.
func bestFirst(all []scored) []scored {
	slices.SortFunc(all, func(x, y scored) int { return cmp.Or(cmp.Compare(y.v, x.v), strings.Compare(x.id, y.id)) })
	return all
}
