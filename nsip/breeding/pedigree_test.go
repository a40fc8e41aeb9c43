package breeding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
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
			if got := mustCOI(t, p, "S", "D"); got != c.want {
				t.Errorf("L-D-L' COI = %v, want %v", got, c.want)
			}
			if got := brute(p, "S", "D"); got != c.want {
				t.Errorf("brute-force Wright COI = %v, want %v", got, c.want)
			}
			got, contrib, err := p.PathCOI(context.Background(), "S", "D")
			if err != nil {
				t.Fatal(err)
			}
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

// Random pedigrees: the L-D-L' method and path counting are independent
// derivations of the same coefficient, so they must agree on every pair,
// and with brute force (every pair of paths, and each common ancestor's own
// inbreeding found by brute force in turn).
func TestLDLAgreesWithPathCounting(t *testing.T) {
	ctx := context.Background()
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
			ldl := mustCOI(t, p, a, b)
			path, _, err := p.PathCOI(ctx, a, b)
			if err != nil {
				t.Fatal(err)
			}
			bf := brute(p, a, b)
			if math.Abs(ldl-path) > 1e-12 || math.Abs(ldl-bf) > 1e-12 {
				t.Fatalf("trial %d: %s x %s: L-D-L' %v, paths %v, brute force %v", trial, a, b, ldl, path, bf)
			}
			if rel, err := p.Relationship(ctx, a, b); err != nil || math.Abs(rel-2*bf) > 1e-12 {
				t.Fatalf("trial %d: a(%s, %s) = %v (%v), want %v", trial, a, b, rel, err, 2*bf)
			}
		}
		for _, id := range ids {
			s, d := p.Parents(id)
			bf := brute(p, s, d)
			if f, err := p.Inbreeding(ctx, id); err != nil || math.Abs(f-bf) > 1e-12 {
				t.Fatalf("trial %d: F(%s) L-D-L' %v (%v), brute force %v", trial, id, f, err, bf)
			}
			if a, err := p.Relationship(ctx, id, id); err != nil || math.Abs(a-(1+bf)) > 1e-12 {
				t.Fatalf("trial %d: a(%s, %s) = %v (%v), want 1 + F = %v", trial, id, id, a, err, 1+bf)
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

func mustCOI(t *testing.T, p *Pedigree, s, d string) float64 {
	t.Helper()
	v, err := p.MatingCOI(context.Background(), s, d)
	if err != nil {
		t.Fatalf("MatingCOI(%s, %s): %v", s, d, err)
	}
	return v
}

// brute is Wright's formula by plain enumeration, written apart from the
// package's code: every path up from s against every path up from d, kept
// when they meet at their ends and share no other animal, each adding
// (1/2)^(n1+n2+1) (1 + F_A) with F_A found the same way.
func brute(p *Pedigree, s, d string) float64 {
	if s == "" || d == "" {
		return 0
	}
	var paths func(id string) [][]string
	paths = func(id string) [][]string {
		out := [][]string{{id}}
		sire, dam := p.Parents(id)
		for _, q := range []string{sire, dam} {
			if q == "" {
				continue
			}
			for _, up := range paths(q) {
				out = append(out, append([]string{id}, up...))
			}
		}
		return out
	}
	total := 0.0
	for _, a := range paths(s) {
		for _, b := range paths(d) {
			anc := a[len(a)-1]
			if b[len(b)-1] != anc {
				continue
			}
			shared := false
			for _, x := range a[:len(a)-1] {
				for _, y := range b[:len(b)-1] {
					shared = shared || x == y
				}
			}
			if shared {
				continue
			}
			as, ad := p.Parents(anc)
			total += math.Pow(0.5, float64(len(a)-1+len(b)-1+1)) * (1 + brute(p, as, ad))
		}
	}
	return total
}

// A loop repeated: each generation is the full-sib mating of the last's
// offspring. F follows Wright's recurrence F_t = (1 + 2 F_{t-1} + F_{t-2})/4
// (1/4, 3/8, 1/2, 19/32, ...), worked here by hand as exact fractions.
func TestRepeatedFullSibLoop(t *testing.T) {
	ctx := context.Background()
	p := NewPedigree()
	s, d := "S0", "D0" // unrelated founders
	want := []float64{0, 0, 0.25, 0.375, 0.5, 0.59375, 0.671875}
	for g := 1; g < len(want); g++ {
		ns, nd := fmt.Sprintf("S%d", g), fmt.Sprintf("D%d", g)
		for _, id := range []string{ns, nd} {
			if err := p.Add(id, s, d); err != nil {
				t.Fatal(err)
			}
		}
		s, d = ns, nd
		if f, err := p.Inbreeding(ctx, s); err != nil || f != want[g] {
			t.Errorf("F(%s) = %v (%v), want %v", s, f, err, want[g])
		}
	}
	if got, want := brute(p, s, d), 0.734375; got != want {
		t.Fatalf("brute force gives %v for the next lamb, hand %v", got, want)
	}
	if got := mustCOI(t, p, s, d); got != 0.734375 {
		t.Errorf("lamb of %s x %s: COI %v, want 47/64", s, d, got)
	}
}

// deepTrees builds a mating of half-sibs, S and D by the common sire X,
// behind whom, and behind each of their dams, stands a full tree of depth
// generations of distinct animals. The COI is exactly 1/8, but the old
// tabular method memoised a number for about every pair of an S-side and a
// D-side ancestor, 4^depth of them: gigabytes at depth 13.
func deepTrees(t *testing.T, depth int) *Pedigree {
	t.Helper()
	p := NewPedigree()
	var grow func(id string, left int)
	grow = func(id string, left int) {
		if left == 0 {
			return
		}
		s, d := id+"s", id+"d"
		if err := p.Add(id, s, d); err != nil {
			t.Fatal(err)
		}
		grow(s, left-1)
		grow(d, left-1)
	}
	for _, r := range [][3]string{{"S", "X", "MS"}, {"D", "X", "MD"}} {
		if err := p.Add(r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	grow("X", depth)
	grow("MS", depth)
	grow("MD", depth)
	return p
}

// pooled builds depth generations of width animals, each with both parents
// drawn from the next generation: every animal is related to every other
// through 2^depth paths.
func pooled(t *testing.T, depth, width int, seed uint64) *Pedigree {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	p := NewPedigree()
	for g := range depth {
		for i := range width {
			s := r.IntN(width)
			d := (s + 1 + r.IntN(width-1)) % width
			if err := p.Add(fmt.Sprintf("G%d_%d", g, i), fmt.Sprintf("G%d_%d", g+1, s), fmt.Sprintf("G%d_%d", g+1, d)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return p
}

// Memory is counted (bytes allocated during the call), not timed. The old
// tabular method ran out of memory on deepTrees(t, 14).
func TestAdversarialPedigreesStayBounded(t *testing.T) {
	ctx := context.Background()
	allocated := func(f func()) uint64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		f()
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	t.Run("distinct ancestors 14 generations deep", func(t *testing.T) {
		p := deepTrees(t, 14)
		var coi float64
		var err error
		bytes := allocated(func() { coi, err = p.MatingCOI(ctx, "S", "D") })
		if err != nil || coi != 0.125 {
			t.Fatalf("half-sib COI over %d animals = %v (%v), want 0.125", p.Len(), coi, err)
		}
		// About 100,000 animals; a few hundred bytes each is generous.
		if limit := uint64(64 << 20); bytes > limit {
			t.Errorf("the COI allocated %d MB, more than %d MB", bytes>>20, limit>>20)
		}
		if _, _, err := p.PathCOI(ctx, "S", "D"); !errors.Is(err, ErrTooComplex) {
			t.Errorf("path method over 2^30 pairs of paths: err = %v, want ErrTooComplex", err)
		}
	})
	t.Run("a small pool 16 generations deep", func(t *testing.T) {
		p := pooled(t, 16, 6, 1)
		var coi float64
		var err error
		bytes := allocated(func() { coi, err = p.MatingCOI(ctx, "G0_0", "G0_1") })
		if err != nil {
			t.Fatal(err)
		}
		if limit := uint64(1 << 20); bytes > limit {
			t.Errorf("the COI allocated %d KB, more than %d KB", bytes>>10, limit>>10)
		}
		// Cross-checked where brute force is still feasible: the same
		// kind of pedigree 6 generations deep.
		small := pooled(t, 6, 6, 1)
		if got, want := mustCOI(t, small, "G0_0", "G0_1"), brute(small, "G0_0", "G0_1"); math.Abs(got-want) > 1e-12 {
			t.Errorf("6 generations: L-D-L' %v, brute force %v", got, want)
		}
		if !(coi > 0 && coi < 1) {
			t.Errorf("COI = %v, want a fraction", coi)
		}
	})
}

// The limits are lowered here so that reaching them is quick; the
// pedigrees are over them by the same margins as they would be over the
// real ones.
func TestTooComplexIsRefused(t *testing.T) {
	ctx := context.Background()
	t.Run("more animals than the limit", func(t *testing.T) {
		defer func(n int) { animalLimit = n }(animalLimit)
		animalLimit = 2000
		p := NewPedigree()
		for i := range animalLimit {
			if err := p.Add(fmt.Sprint("C", i), fmt.Sprint("C", i+1), ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Add("D", "C0", ""); err != nil {
			t.Fatal(err)
		}
		_, err := p.MatingCOI(ctx, "C0", "D")
		if !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), "more than 2000 animals") {
			t.Errorf("a chain of %d ancestors: err = %v, want ErrTooComplex naming the limit", animalLimit+1, err)
		}
		// Half the chain is within the limit: C1000 x his daughter E.
		if err := p.Add("E", "C1000", ""); err != nil {
			t.Fatal(err)
		}
		if v, err := p.MatingCOI(ctx, "C1000", "E"); err != nil || v != 0.25 {
			t.Errorf("sire x daughter over half the chain: %v, %v; want 0.25", v, err)
		}
	})
	t.Run("more steps than the limit", func(t *testing.T) {
		defer func(n int) { stepLimit = n }(stepLimit)
		stepLimit = 100_000
		// 20 generations of 60: each animal has most of the older ones as
		// ancestors, some 170,000 steps in all.
		p := pooled(t, 20, 60, 2)
		_, err := p.MatingCOI(ctx, "G0_0", "G0_1")
		if !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), "more than 100000 steps") {
			t.Errorf("err = %v, want ErrTooComplex naming the limit", err)
		}
		if _, _, err := p.PathCOI(ctx, "G0_0", "G0_1"); !errors.Is(err, ErrTooComplex) {
			t.Errorf("path method: err = %v, want ErrTooComplex", err)
		}
	})
}

// cancelAfter is a context that reports cancellation from its n-th look on,
// so a test sees work stop part way without timing anything.
type cancelAfter struct {
	context.Context
	looks, n int
}

func (c *cancelAfter) Err() error {
	c.looks++
	if c.looks >= c.n {
		return context.Canceled
	}
	return nil
}

func TestCancellationStopsTheWork(t *testing.T) {
	p := deepTrees(t, 12)
	ctx := &cancelAfter{Context: context.Background(), n: 3}
	if _, err := p.MatingCOI(ctx, "S", "D"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if ctx.looks != 3 {
		t.Errorf("the context was consulted %d times, want the work to stop at the 3rd", ctx.looks)
	}
	// Cancelled work leaves nothing wrong behind.
	if got := mustCOI(t, p, "S", "D"); got != 0.125 {
		t.Errorf("after a cancelled call, COI = %v, want 0.125", got)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := p.PathCOI(done, "S", "D"); !errors.Is(err, context.Canceled) {
		t.Errorf("PathCOI on a cancelled context: err = %v", err)
	}
}
