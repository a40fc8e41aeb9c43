package param

import "sync/atomic"

// comparisons counts the Levenshtein runs Closest makes in this package's
// tests, which bound the work an error costs.
var comparisons atomic.Int64

func init() {
	distance = func(a, b string) int {
		comparisons.Add(1)
		return Levenshtein(a, b)
	}
}
