package breeding

import (
	"math"
	"slices"
)

// Value is one animal's value of one trait.
type Value struct {
	ID string
	V  float64
}

// Stats describes one trait over a group of animals.
type Stats struct {
	N      int      `json:"n"`
	Mean   float64  `json:"mean"`
	SD     float64  `json:"sd"` // sample standard deviation (n-1); 0 for one animal
	Min    float64  `json:"min"`
	MinIDs []string `json:"min_lpn_ids"` // every animal at the minimum, sorted
	Max    float64  `json:"max"`
	MaxIDs []string `json:"max_lpn_ids"`
}

// Describe computes Stats in two passes (mean, then squared deviations from
// it), which stays accurate when values are large next to their spread. ok
// is false for no values.
func Describe(vs []Value) (Stats, bool) {
	if len(vs) == 0 {
		return Stats{}, false
	}
	s := Stats{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum, m2 float64
	for _, v := range vs {
		sum += v.V
	}
	s.N = len(vs)
	s.Mean = sum / float64(s.N)
	for _, v := range vs {
		d := v.V - s.Mean
		m2 += d * d
		switch {
		case v.V < s.Min:
			s.Min, s.MinIDs = v.V, []string{v.ID}
		case v.V == s.Min:
			s.MinIDs = append(s.MinIDs, v.ID)
		}
		switch {
		case v.V > s.Max:
			s.Max, s.MaxIDs = v.V, []string{v.ID}
		case v.V == s.Max:
			s.MaxIDs = append(s.MaxIDs, v.ID)
		}
	}
	if s.N > 1 {
		s.SD = math.Sqrt(m2 / float64(s.N-1))
	}
	slices.Sort(s.MinIDs)
	slices.Sort(s.MaxIDs)
	return s, true
}
