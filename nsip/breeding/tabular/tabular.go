// Package tabular is the additive relationship matrix by the tabular
// method (Emik and Terrill 1949), the brute force every test of a faster
// inbreeding method is held to. It needs O(n^2) memory, which is why only
// tests use it; it knows a pedigree only by its parents, so that the
// breeding package's own tests can use it without an import cycle.
package tabular

import "math/big"

// Parents are animal i's sire and dam, -1 where unknown, for animals
// numbered 0..n-1 parents first.
type Parents func(i int32) (sire, dam int32)

// Rat is the matrix in exact rationals, lower triangle a[i][j], j <= i:
// a(i,i) = 1 + a(s,d)/2, a(i,j) = (a(j,s) + a(j,d))/2 for j numbered
// before i, an unknown parent contributing 0.
func Rat(n int, parents Parents) [][]*big.Rat {
	a := make([][]*big.Rat, n)
	half := big.NewRat(1, 2)
	get := func(i, j int32) *big.Rat {
		if i < 0 || j < 0 {
			return new(big.Rat)
		}
		if j > i {
			i, j = j, i
		}
		return a[i][j]
	}
	for i := range int32(n) {
		a[i] = make([]*big.Rat, i+1)
		s, d := parents(i)
		for j := range i {
			v := new(big.Rat).Add(get(j, s), get(j, d))
			a[i][j] = v.Mul(v, half)
		}
		v := new(big.Rat).Mul(get(s, d), half)
		a[i][i] = v.Add(v, big.NewRat(1, 1))
	}
	return a
}

// Float is the same in float64, as a(i, j) in either order, 0 where
// either is -1.
func Float(n int, parents Parents) func(i, j int32) float64 {
	a := make([][]float64, n)
	get := func(i, j int32) float64 {
		if i < 0 || j < 0 {
			return 0
		}
		if j > i {
			i, j = j, i
		}
		return a[i][j]
	}
	for i := range int32(n) {
		a[i] = make([]float64, i+1)
		s, d := parents(i)
		for j := range i {
			a[i][j] = (get(j, s) + get(j, d)) / 2
		}
		a[i][i] = 1 + get(s, d)/2
	}
	return get
}
