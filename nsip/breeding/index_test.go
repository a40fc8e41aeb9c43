package breeding

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestIndexAndBound(t *testing.T) {
	w := Weights{"WWT": 2, "BWT": -1, "FEC": -0.5}
	if got := fmt.Sprint(w.Codes()); got != "[WWT BWT FEC]" {
		t.Errorf("codes = %s, want heaviest first", got)
	}
	// 2*3 - 1*0.5 - 0.5*(-10) = 6 - 0.5 + 5
	v, _, ok := w.Index(map[string]float64{"WWT": 3, "BWT": 0.5, "FEC": -10, "YWT": 99})
	if !ok || v != 10.5 {
		t.Errorf("index = %v %v, want 10.5", v, ok)
	}
	if _, missing, ok := w.Index(map[string]float64{"WWT": 3}); ok || fmt.Sprint(missing) != "[BWT FEC]" {
		t.Errorf("missing = %v ok=%v, want [BWT FEC] and no index", missing, ok)
	}
	ranges := map[string][2]float64{"BWT": {-1, 2}, "FEC": {-20, 30}}
	// WWT at most 4: 2*4 + max(-1*-1, -1*2) + max(-0.5*-20, -0.5*30) = 8 + 1 + 10
	if b, ok := w.Bound("WWT", 4, ranges); !ok || b != 19 {
		t.Errorf("bound = %v %v, want 19", b, ok)
	}
	if _, ok := w.Bound("WWT", 4, map[string][2]float64{"BWT": {0, 1}}); ok {
		t.Error("a bound without FEC's range was given")
	}
}

// TopN must equal sorting everything and taking the first n.
func TestTopNMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 50 {
		n := 1 + r.IntN(8)
		var all []Scored
		top := NewTopN(n)
		for i := range r.IntN(40) {
			s := Scored{ID: fmt.Sprintf("X%03d", i), Score: float64(r.IntN(10))}
			all = append(all, s)
			top.Offer(s)
		}
		slices.SortFunc(all, func(a, b Scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		want := all[:min(n, len(all))]
		if got := top.Rows(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("top %d = %v, want %v", n, got, want)
		}
	}
}

func TestDescribeHandWorked(t *testing.T) {
	// 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32, sample SD sqrt(32/7)
	vals := []float64{4, 2, 9, 4, 5, 4, 7, 5}
	var vs []Value
	for i, v := range vals {
		vs = append(vs, Value{ID: fmt.Sprintf("E%d", i), V: v})
	}
	s, ok := Describe(vs)
	if !ok || s.N != 8 || s.Mean != 5 || math.Abs(s.SD-math.Sqrt(32.0/7)) > 1e-12 {
		t.Errorf("stats = %+v, want n 8 mean 5 sd %v", s, math.Sqrt(32.0/7))
	}
	if s.Min != 2 || fmt.Sprint(s.MinIDs) != "[E1]" || s.Max != 9 || fmt.Sprint(s.MaxIDs) != "[E2]" {
		t.Errorf("extremes = %v %v / %v %v", s.Min, s.MinIDs, s.Max, s.MaxIDs)
	}
	one, _ := Describe([]Value{{"A", 3}, {"B", 3}})
	if one.SD != 0 || fmt.Sprint(one.MinIDs, one.MaxIDs) != "[A B] [A B]" {
		t.Errorf("tied pair: %+v", one)
	}
	if _, ok := Describe(nil); ok {
		t.Error("statistics of nothing")
	}
}

// bruteAssign tries every assignment of each ewe to a ram or to none.
func bruteAssign(pairs [][]Pair, capacity []int) (mated int, total float64) {
	nr, ne := len(pairs), len(pairs[0])
	used := make([]int, nr)
	best, bestV := -1, math.Inf(-1)
	var walk func(e, m int, v float64)
	walk = func(e, m int, v float64) {
		if e == ne {
			if m > best || (m == best && v > bestV+1e-9) {
				best, bestV = m, v
			}
			return
		}
		walk(e+1, m, v)
		for r := range nr {
			if pairs[r][e].Allowed && used[r] < capacity[r] {
				used[r]++
				walk(e+1, m+1, v+pairs[r][e].Value)
				used[r]--
			}
		}
	}
	walk(0, 0, 0)
	return best, bestV
}

func TestAssignMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		nr, ne := 1+r.IntN(3), 1+r.IntN(6)
		pairs := make([][]Pair, nr)
		capacity := make([]int, nr)
		for i := range nr {
			capacity[i] = r.IntN(4)
			pairs[i] = make([]Pair, ne)
			for e := range ne {
				pairs[i][e] = Pair{Value: float64(r.IntN(21)-10) / 4, Allowed: r.IntN(5) > 0}
			}
		}
		got, err := Assign(pairs, capacity)
		if err != nil {
			t.Fatal(err)
		}
		m, v := bruteAssign(pairs, capacity)
		if got.Mated != m || math.Abs(got.Total-v) > 1e-9 {
			t.Fatalf("trial %d: assigned %d ewes worth %v, brute force %d worth %v (%v, cap %v)", trial, got.Mated, got.Total, m, v, pairs, capacity)
		}
		load := make([]int, nr)
		for e, ram := range got.RamOf {
			if ram >= 0 {
				load[ram]++
				if !pairs[ram][e].Allowed {
					t.Fatalf("trial %d: ewe %d given to ram %d over the cap", trial, e, ram)
				}
			}
		}
		for i := range nr {
			if load[i] > capacity[i] {
				t.Fatalf("trial %d: ram %d has %d ewes, capacity %d", trial, i, load[i], capacity[i])
			}
		}
	}
}

// Greedy would give ram 0 ewe 0 (value 10) and leave ewe 1 without a ram;
// the optimum mates both.
func TestAssignIsNotGreedy(t *testing.T) {
	pairs := [][]Pair{
		{{Value: 10, Allowed: true}, {Value: 9, Allowed: true}},
		{{Value: 8, Allowed: true}, {Value: 0, Allowed: false}},
	}
	got, _ := Assign(pairs, []int{1, 1})
	if fmt.Sprint(got.RamOf) != "[1 0]" || got.Total != 17 {
		t.Errorf("assignment %v worth %v, want [1 0] worth 17", got.RamOf, got.Total)
	}
}

// The stopping rule, checked by brute force: animals are read in the order
// the sort trait's weight calls for (descending for a positive weight,
// ascending for a negative one); wherever the bound at the last value read
// falls below the N-th best index so far, the top N so far must already be
// the top N of the whole population. Weights of either sign, ties in the
// sort trait and breed ranges that are the population's own are drawn at
// random. Reading in the wrong direction, or bounding each other trait by
// its maximum alone, makes this fail.
func TestBoundProvesNoUnreadAnimalEnters(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	codes := []string{"A", "B", "C"}
	stops := 0
	for trial := range 300 {
		w := Weights{}
		for _, c := range codes[:1+r.IntN(3)] {
			w[c] = float64(r.IntN(9)-4) / 2
			if w[c] == 0 {
				w[c] = 1
			}
		}
		type animal struct {
			id  string
			ebv map[string]float64
		}
		pop := make([]animal, 5+r.IntN(60))
		ranges := map[string][2]float64{}
		for i := range pop {
			pop[i] = animal{fmt.Sprintf("X%03d", i), map[string]float64{}}
			for _, c := range codes {
				v := float64(r.IntN(41)-20) / 4
				pop[i].ebv[c] = v
				rg, ok := ranges[c]
				if !ok {
					rg = [2]float64{v, v}
				}
				ranges[c] = [2]float64{min(rg[0], v), max(rg[1], v)}
			}
		}
		sortBy := w.Codes()[0]
		slices.SortStableFunc(pop, func(a, b animal) int {
			if w[sortBy] > 0 {
				return cmp.Compare(b.ebv[sortBy], a.ebv[sortBy])
			}
			return cmp.Compare(a.ebv[sortBy], b.ebv[sortBy])
		})
		n := 1 + r.IntN(5)
		all := NewTopN(n)
		for _, a := range pop {
			v, _, _ := w.Index(a.ebv)
			all.Offer(Scored{a.id, v})
		}
		want := fmt.Sprint(all.Rows())
		top := NewTopN(n)
		for i, a := range pop {
			v, _, _ := w.Index(a.ebv)
			top.Offer(Scored{a.id, v})
			b, ok := w.Bound(sortBy, a.ebv[sortBy], ranges)
			if !ok {
				t.Fatalf("trial %d: no bound with every range known", trial)
			}
			if top.Full() && b < top.Last() {
				if got := fmt.Sprint(top.Rows()); got != want {
					t.Fatalf("trial %d: weights %v, stopped after %d of %d animals with %s, the whole population's top %d is %s",
						trial, w, i+1, len(pop), got, n, want)
				}
				stops++
				break
			}
		}
	}
	if stops < 30 {
		t.Errorf("the bound stopped early in only %d of 300 trials; the check proves little", stops)
	}
	t.Logf("stopped early in %d of 300 trials", stops)
}

// Two rams, two ewes, one each: both full assignments total the same.
// [r0e0, r1e1] has a lamb at 1/16 and one at 0; [r0e1, r1e0] two at 1/32.
// The lower highest COI wins, though the means are equal. A third ewe,
// unmatable, changes nothing. Checked against every assignment.
func TestAssignLowCOI(t *testing.T) {
	pairs := [][]Pair{
		{{Value: 3, Allowed: true, COI: 1.0 / 16}, {Value: 2, Allowed: true, COI: 1.0 / 32}, {Value: 9}},
		{{Value: 2, Allowed: true, COI: 1.0 / 32}, {Value: 1, Allowed: true, COI: 0}, {Value: 9}},
	}
	got, err := AssignLowCOI(pairs, []int{1, 1})
	if err != nil || fmt.Sprint(got.RamOf) != "[1 0 -1]" || got.Total != 4 {
		t.Errorf("assignment %v worth %v (%v), want [1 0 -1] worth 4", got.RamOf, got.Total, err)
	}
	// Equal highest COI (1/16 either way): the lower sum wins, 1/16 + 0
	// over 1/16 + 1/32.
	pairs = [][]Pair{
		{{Value: 3, Allowed: true, COI: 1.0 / 16}, {Value: 2, Allowed: true, COI: 1.0 / 32}},
		{{Value: 2, Allowed: true, COI: 1.0 / 16}, {Value: 1, Allowed: true, COI: 0}},
	}
	got, _ = AssignLowCOI(pairs, []int{1, 1})
	if fmt.Sprint(got.RamOf) != "[0 1]" {
		t.Errorf("assignment %v, want [0 1]", got.RamOf)
	}
}
