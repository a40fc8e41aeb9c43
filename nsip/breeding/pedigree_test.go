package breeding

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ped builds a pedigree from "id sire dam" triples ("-" for unknown).
func ped(t *testing.T, rows ...[3]string) *Pedigree {
	t.Helper()
	p := NewPedigree()
	for _, r := range rows {
		s, d := r[1], r[2]
		if s == "-" {
			s = ""
		}
		if d == "-" {
			d = ""
		}
		if err := p.Add(r[0], s, d); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// The expected values are Wright's sums worked by hand: each path pair
// through common ancestor A adds (1/2)^(n1+n2+1) (1+F_A).
func TestMatingCOIHandWorked(t *testing.T) {
	cases := []struct {
		name      string
		rows      [][3]string
		want      float64
		ancestors map[string][][2]int
	}{
		{"half-sibs: one path S-X-D, (1/2)^3", [][3]string{{"S", "X", "-"}, {"D", "X", "-"}}, 0.125,
			map[string][][2]int{"X": {{1, 1}}}},
		{"full-sibs: two paths, 2 (1/2)^3", [][3]string{{"S", "X", "Y"}, {"D", "X", "Y"}}, 0.25,
			map[string][][2]int{"X": {{1, 1}}, "Y": {{1, 1}}}},
		{"sire x his daughter: the sire is the common ancestor, (1/2)^2", [][3]string{{"D", "S", "Y"}}, 0.25,
			map[string][][2]int{"S": {{0, 1}}}},
		{"first cousins: two paths of five, 2 (1/2)^5",
			[][3]string{{"A", "G1", "G2"}, {"B", "G1", "G2"}, {"S", "A", "M1"}, {"D", "B", "M2"}}, 0.0625,
			map[string][][2]int{"G1": {{2, 2}}, "G2": {{2, 2}}}},
		{"half-sibs by an inbred sire (F_X = 1/4): (1/2)^3 (1 + 1/4)",
			[][3]string{{"P", "G1", "G2"}, {"Q", "G1", "G2"}, {"X", "P", "Q"}, {"S", "X", "-"}, {"D", "X", "-"}}, 0.15625,
			map[string][][2]int{"X": {{1, 1}}}},
		{"unrelated", [][3]string{{"S", "A", "B"}, {"D", "C", "E"}}, 0, map[string][][2]int{}},
		{"common ancestor five generations behind both: (1/2)^11",
			[][3]string{
				{"S", "S1", "-"}, {"S1", "S2", "-"}, {"S2", "S3", "-"}, {"S3", "S4", "-"}, {"S4", "A", "-"},
				{"D", "-", "D1"}, {"D1", "-", "D2"}, {"D2", "D3", "-"}, {"D3", "-", "D4"}, {"D4", "A", "-"},
			}, math.Ldexp(1, -11), map[string][][2]int{"A": {{5, 5}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ped(t, c.rows...)
			if got := p.MatingCOI("S", "D"); got != c.want {
				t.Errorf("tabular COI = %v, want %v", got, c.want)
			}
			got, contrib := p.PathCOI("S", "D")
			if got != c.want {
				t.Errorf("path COI = %v, want %v", got, c.want)
			}
			if len(contrib) != len(c.ancestors) {
				t.Fatalf("common ancestors %+v, want %v", contrib, c.ancestors)
			}
			for _, a := range contrib {
				want, ok := c.ancestors[a.Ancestor]
				if !ok || fmt.Sprint(a.Paths) != fmt.Sprint(want) {
					t.Errorf("ancestor %s paths %v, want %v", a.Ancestor, a.Paths, want)
				}
			}
		})
	}
}

// Random pedigrees: the tabular method and path counting are independent
// derivations of the same coefficient, so they must agree on every pair.
func TestTabularAgreesWithPathCounting(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	for trial := range 40 {
		p := NewPedigree()
		n := 12 + r.IntN(14)
		ids := make([]string, n)
		for i := range n {
			ids[i] = fmt.Sprintf("A%02d", i)
			var s, d string
			if i >= 3 && r.IntN(6) > 0 {
				s = ids[r.IntN(i)]
			}
			if i >= 3 && r.IntN(6) > 0 {
				d = ids[r.IntN(i)]
			}
			if s == d {
				d = ""
			}
			if err := p.Add(ids[i], s, d); err != nil {
				t.Fatal(err)
			}
		}
		for range 15 {
			a, b := ids[r.IntN(n)], ids[r.IntN(n)]
			if a == b {
				continue
			}
			tab := p.MatingCOI(a, b)
			path, _ := p.PathCOI(a, b)
			if math.Abs(tab-path) > 1e-12 {
				t.Fatalf("trial %d: %s x %s: tabular %v, paths %v", trial, a, b, tab, path)
			}
		}
		for _, id := range ids {
			s, d := p.Parents(id)
			path, _ := p.PathCOI(s, d)
			if f := p.Inbreeding(id); math.Abs(f-path) > 1e-12 {
				t.Fatalf("trial %d: F(%s) tabular %v, paths %v", trial, id, f, path)
			}
		}
	}
}

func TestPedigreeRefusesConflictsAndCycles(t *testing.T) {
	p := ped(t, [3]string{"B", "A", "-"}, [3]string{"C", "B", "-"})
	if err := p.Add("B", "Z", ""); !errors.Is(err, ErrConflict) {
		t.Errorf("second sire for B: err = %v, want a conflict", err)
	}
	if err := p.Add("A", "C", ""); err == nil {
		t.Error("A as C's descendant and ancestor was accepted")
	}
	if s, _ := p.Parents("A"); s != "" {
		t.Errorf("refused record left A's sire as %q", s)
	}
	// A refused record leaves no trace: not even a parent it alone named.
	before := p.Len()
	if err := p.Add("A", "NEW", "C"); err == nil {
		t.Error("A with its descendant C as dam was accepted")
	}
	if p.Has("NEW") || p.Len() != before {
		t.Errorf("refused record left NEW in the pedigree (%d animals, was %d)", p.Len(), before)
	}
	if err := p.Add("B", "", "M"); err != nil {
		t.Errorf("filling in B's unknown dam: %v", err)
	}
	if got := p.Completeness("C", 3); fmt.Sprint(got) != "[0.5 0.5 0]" {
		t.Errorf("completeness behind C = %v, want [0.5 0.5 0] (B; then A and M of four)", got)
	}
	if got := p.Leaves("C", 6); fmt.Sprint(got) != "[A M]" {
		t.Errorf("leaves = %v, want [A M]", got)
	}
}

func TestPathPairsCountsUpwardPaths(t *testing.T) {
	// S has paths S, S-X; D has D, D-X, D-Y: 2 x 3 pairs.
	p := ped(t, [3]string{"S", "X", "-"}, [3]string{"D", "X", "Y"})
	if got := p.PathPairs("S", "D"); got != 6 {
		t.Errorf("path pairs = %v, want 6", got)
	}
}
