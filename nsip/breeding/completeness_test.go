package breeding

import (
	"math"
	"slices"
	"testing"
)

// Worked by hand, ancestor by ancestor, path by path:
//
//	L (sire S, dam D); S (sire A, dam B); D (sire A, dam unknown);
//	A (sire G, dam unknown); B, G founders.
//
// L's known ancestors by path: S and D at 1 generation (2 x 1/2 = 1);
// A by S and A by D, and B, at 2 (3 x 1/4 = 0.75); G by each of A's two
// paths at 3 (2 x 1/8 = 0.25): 2 in all. S: A, B (1), G (1/4) = 1.25.
// D: A (1/2), G (1/4) = 0.75. A: G = 0.5. A founder 0, as is an added
// parent; a number beyond the pedigree NaN.
func TestEquivalentGenerationsHandWorked(t *testing.T) {
	p := mustBreed(t, rowsOf(
		[3]string{"L", "S", "D"},
		[3]string{"S", "A", "B"},
		[3]string{"D", "A", "-"},
		[3]string{"A", "G", "-"},
		[3]string{"B", "-", "-"},
	))
	ids := []string{"L", "S", "D", "A", "B", "G"}
	want := []float64{2, 1.25, 0.75, 0.5, 0, 0}
	var animals []int32
	for _, id := range ids {
		animals = append(animals, byID(t, p, id))
	}
	got := p.EquivalentGenerations(append(animals, int32(p.Len())))
	for i, id := range ids {
		if got[i] != want[i] {
			t.Errorf("%s: %v equivalent generations, want %v", id, got[i], want[i])
		}
	}
	if !math.IsNaN(got[len(ids)]) {
		t.Errorf("an animal beyond the pedigree gives %v, want NaN", got[len(ids)])
	}
	// Asked alone, an animal's figure is the same: the ancestry walked
	// is its own.
	if g := p.EquivalentGenerations([]int32{byID(t, p, "D")}); g[0] != 0.75 {
		t.Errorf("D alone: %v", g[0])
	}
	// L's ancestry is every animal, parents first; D's is D, A and G; a
	// number of no animal is left out.
	if got := p.Ancestry([]int32{byID(t, p, "L"), -1, int32(p.Len())}); len(got) != 6 || !slices.IsSorted(got) {
		t.Errorf("L's ancestry %v, want all six in number order", got)
	}
	anc := p.Ancestry([]int32{byID(t, p, "D")})
	wantAnc := []int32{byID(t, p, "D"), byID(t, p, "A"), byID(t, p, "G")}
	slices.Sort(wantAnc)
	if !slices.Equal(anc, wantAnc) {
		t.Errorf("D's ancestry %v, want %v", anc, wantAnc)
	}
}
