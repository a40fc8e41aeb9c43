package analysistest

import "math"

// MeanSD are the mean and sample SD (n-1) of vs by the textbook formulas
// (sum, then squared deviations), against which the statistics answers
// give are checked; SD 0 for fewer than two values.
func MeanSD(vs []float64) (mean, sd float64) {
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	mean = sum / float64(len(vs))
	if len(vs) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(vs)-1))
}
