package tabular

import (
	"math/big"
	"testing"
)

// Two half-sibs by one founder sire, and their lamb: the half-sibs are
// related 1/4, the lamb inbred 1/8 (a = 1 + 1/8), and related 1/2 + 1/8
// to each parent. The float table agrees with the rationals.
func TestHalfSibLamb(t *testing.T) {
	par := [][2]int32{{-1, -1}, {-1, -1}, {-1, -1}, {0, 1}, {0, 2}, {3, 4}}
	parents := func(i int32) (int32, int32) { return par[i][0], par[i][1] }
	a := Rat(len(par), parents)
	f := Float(len(par), parents)
	for _, c := range []struct {
		i, j int32
		want *big.Rat
	}{{4, 3, big.NewRat(1, 4)}, {5, 5, big.NewRat(9, 8)}, {5, 3, big.NewRat(5, 8)}, {3, 3, big.NewRat(1, 1)}, {2, 1, new(big.Rat)}} {
		if a[c.i][c.j].Cmp(c.want) != 0 {
			t.Errorf("a(%d,%d) = %v, want %v", c.i, c.j, a[c.i][c.j], c.want)
		}
		w, _ := c.want.Float64()
		if f(c.i, c.j) != w || f(c.j, c.i) != w {
			t.Errorf("float a(%d,%d) = %v, want %v", c.i, c.j, f(c.i, c.j), w)
		}
	}
	if f(-1, 3) != 0 {
		t.Errorf("an unknown parent is related %v", f(-1, 3))
	}
}
