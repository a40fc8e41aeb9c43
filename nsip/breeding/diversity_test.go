package breeding

import (
	"math"
	"testing"
)

// diversityHerd is worked by hand below: founders A, B and G; full sibs C
// and D of A x B; E of C x D (F = 1/4); H of E x G; K of A and an unknown
// dam. The reference population is E, H and K.
func diversityHerd(t *testing.T) (*BreedPedigree, []int32, func(string) int32) {
	t.Helper()
	p := mustBreed(t, rowsOf(
		[3]string{"K", "A", "-"}, [3]string{"H", "E", "G"}, [3]string{"E", "C", "D"},
		[3]string{"C", "A", "B"}, [3]string{"D", "A", "B"},
		[3]string{"A", "-", "-"}, [3]string{"B", "-", "-"}, [3]string{"G", "-", "-"},
	))
	num := map[string]int32{}
	for i := range int32(p.Len()) {
		num[p.ID(i)] = i
	}
	at := func(id string) int32 { return num[id] }
	return p, []int32{at("E"), at("H"), at("K"), at("E")}, at
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func (p *BreedPedigree) everyAnimal() []int32 {
	all := make([]int32, p.Len())
	for i := range all {
		all[i] = int32(i)
	}
	return all
}

// Equivalent complete generations, (1 + t)/2 from each known parent:
// A, B, G 0; C, D (1+0)/2 + (1+0)/2 = 1; E (1+1)/2 + (1+1)/2 = 2;
// H (1+2)/2 + (1+0)/2 = 2; K (1+0)/2 = 0.5.
//
// Individual ΔF = 1 - (1-F)^(1/(t-1)): E 1 - (3/4)^1 = 1/4, H 0 (F 0),
// K none (t <= 1). Mean over E and H 1/8, so Ne = 1/(2 x 1/8) = 4. With
// t = 3 and F = 1/4, ΔF = 1 - sqrt(3/4) = 0.1339746.
func TestEquivalentGenerationsAndDeltaF(t *testing.T) {
	p, _, at := diversityHerd(t)
	ecg := p.EquivalentGenerations(p.everyAnimal())
	want := map[string]float64{"A": 0, "B": 0, "G": 0, "C": 1, "D": 1, "E": 2, "H": 2, "K": 0.5}
	for id, w := range want {
		if got := ecg[at(id)]; !near(got, w) {
			t.Errorf("%s: %g equivalent generations, worked %g", id, got, w)
		}
	}
	f := p.Inbreeding()
	sum, n := 0.0, 0
	for _, id := range []string{"E", "H", "K"} {
		if d, ok := IndividualDeltaF(f[at(id)], ecg[at(id)]); ok {
			sum += d
			n++
		}
	}
	if n != 2 || !near(sum/float64(n), 0.125) || !near(1/(2*sum/float64(n)), 4) {
		t.Errorf("mean ΔF %g over %d animals, worked 1/8 over E and H (Ne 4)", sum/float64(n), n)
	}
	if d, ok := IndividualDeltaF(0.25, 3); !ok || !near(d, 1-math.Sqrt(0.75)) {
		t.Errorf("ΔF(F 1/4, t 3) = %g, %v; worked 1 - sqrt(3/4)", d, ok)
	}
	for _, tt := range []float64{1, 0.5, 0} {
		if _, ok := IndividualDeltaF(0.1, tt); ok {
			t.Errorf("ΔF defined for t = %g", tt)
		}
	}
}

// Founder shares, each reference animal 1/3, half to each parent: H gives
// E and G 1/6; E (1/3 + 1/6 = 1/2) gives C and D 1/4; each of C and D
// gives A and B 1/8; K gives A and its unknown dam 1/6. So A 1/4 + 1/6 =
// 5/12, B 1/4, G 1/6, K's unknown dam 1/6 (sum 1); Σp² = (25+9+4+4)/144
// = 7/24 and f_e = 24/7, from 4 founders.
//
// Ancestors (marginal contributions): raw shares E 1/2, A 5/12, H, K 1/3:
// E first, 1/2. With E chosen (its parents passing nothing), A's share is
// K's 1/6, G's 1/6, H's 1/3 of which E explains half (1/6), K's 1/3 with
// nothing explained: K second, 1/3. Then G and H tie at 1/6 (H's genes not
// from E are G's); G, numbered before its offspring, is taken, and nothing
// is left: Σq = 1/2 + 1/3 + 1/6 = 1, Σq² = 1/4 + 1/9 + 1/36 = 7/18, so
// f_a = 18/7.
func TestFounderContributions(t *testing.T) {
	p, ref, at := diversityHerd(t)
	got := p.FounderContributions(ref, 100)
	if !near(got.Fe, 24.0/7) || got.Count != 4 {
		t.Errorf("f_e %g from %d founders, worked 24/7 from 4", got.Fe, got.Count)
	}
	if !near(got.Fa, 18.0/7) || !near(got.Explained, 1) || len(got.Ancestors) != 3 {
		t.Fatalf("f_a %g, explained %g, ancestors %+v; worked 18/7 from E, K, G", got.Fa, got.Explained, got.Ancestors)
	}
	want := []struct {
		id            string
		raw, marginal float64
	}{{"E", 0.5, 0.5}, {"K", 1.0 / 3, 1.0 / 3}, {"G", 1.0 / 6, 1.0 / 6}}
	for i, w := range want {
		a := got.Ancestors[i]
		if a.Animal != at(w.id) || a.Unknown || !near(a.Raw, w.raw) || !near(a.Marginal, w.marginal) {
			t.Errorf("ancestor %d: %s %+v, worked %s raw %g marginal %g", i+1, p.ID(a.Animal), a, w.id, w.raw, w.marginal)
		}
	}
	if !near(got.FaLow, got.Fa) {
		t.Errorf("every gene explained, yet f_a is bounded below by %g", got.FaLow)
	}
	// Stopped after one ancestor, f_a is bounded: above by 1/(1/2)² = 4,
	// below by 1/(1/4 + (1 - 1/2)·1/2) = 2; 18/7 lies between.
	if one := p.FounderContributions(ref, 1); !near(one.Fa, 4) || !near(one.FaLow, 2) || !near(one.Explained, 0.5) {
		t.Errorf("one ancestor: f_a %g..%g, explained %g; worked 2..4 and 1/2", one.FaLow, one.Fa, one.Explained)
	}
	// An unknown parent is a founder of its own: K alone as the reference
	// is half A, half its unknown dam, so f_e = 1/(1/4 + 1/4) = 2; K itself,
	// its share 1, explains every gene at once.
	k := p.FounderContributions([]int32{at("K")}, 10)
	if !near(k.Fe, 2) || len(k.Ancestors) != 1 || k.Ancestors[0].Animal != at("K") || !near(k.Ancestors[0].Marginal, 1) {
		t.Errorf("K alone: f_e %g, ancestors %+v; worked 2, and K itself explaining all", k.Fe, k.Ancestors)
	}
	if none := p.FounderContributions(nil, 10); none.Fe != 0 || none.Fa != 0 || none.Ancestors != nil {
		t.Errorf("no reference: %+v", none)
	}
}

// Equivalent generations and the founders and 500 ancestors of the last
// generation (5,000 animals) of the benchmark breed of 100,026.
func BenchmarkBreedDiversity(b *testing.B) {
	p := benchBreed(b)
	rows := len(genBreed(1, benchShape).IDs)
	var ref []int32
	for j := rows - 5000; j < rows; j++ {
		ref = append(ref, p.Animal(j))
	}
	b.ReportAllocs()
	var fd Founders
	for b.Loop() {
		p.EquivalentGenerations(p.everyAnimal())
		fd = p.FounderContributions(ref, 500)
	}
	b.ReportMetric(fd.Fe, "f_e")
	b.ReportMetric(fd.Fa, "f_a")
	b.ReportMetric(fd.FaLow, "f_a-low")
	b.ReportMetric(fd.Explained, "explained")
}
