// Tests of nsip_flock_summary (flock.go): its runs over a fake NSIP: counts and
// statistics equal to a direct computation over the group (a flock, an
// animal's progeny or a search), holders of the extremes, strays left out
// and named, and the page ceiling. Its contract and arguments are in
// flock_test.go.

package flock

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestFlockSummaryMatchesDirectComputation(t *testing.T) {
	for _, n := range []int{1, 99, 100, 257} {
		f := analysistest.FlockOf(uint64(n), n)
		var a analysistest.FlockAnswer
		analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &a)

		// Direct: count each animal of the flock, and each trait's values
		// by the textbook formulas (sum, then squared deviations / (n-1)).
		sex, year, status := map[string]int{}, map[string]int{}, map[string]int{}
		vals := map[string][]float64{}
		for _, x := range f.Animals {
			if x.Flock != "640238" {
				continue
			}
			sex[map[string]string{"Male": "male", "1": "male", "Female": "female", "2": "female", "": "unknown"}[x.Sex]]++
			y := "unknown"
			if x.Born != "" {
				for _, c := range []string{"2019", "2020", "2021", "2022", "2023", "2024"} {
					if slices.Contains([]string{"2/13/" + c, c + "-03-01T00:00:00", c + "-04-20"}, x.Born) {
						y = c
					}
				}
			}
			year[y]++
			st := x.Status
			if st == "" {
				st = "unknown"
			}
			status[st]++
			for c, v := range x.EBV {
				vals[c] = append(vals[c], v)
			}
		}
		if a.Animals != n || !maps.Equal(a.BySex, sex) || !maps.Equal(a.ByYear, year) || !maps.Equal(a.ByStatus, status) {
			t.Errorf("%d animals: got %d, sex %v, years %v, status %v; want sex %v, years %v, status %v",
				n, a.Animals, a.BySex, a.ByYear, a.ByStatus, sex, year, status)
		}
		// Pages of 100 until NSIP's count is reached: a full last page
		// ends the scan without asking for an empty one.
		if want := (n + 99) / 100; a.Computed.Pages != want || !a.Computed.Complete {
			t.Errorf("%d animals: %d pages, complete %v; want %d pages, complete", n, a.Computed.Pages, a.Computed.Complete, want)
		}
		var codes []string
		for _, tr := range a.Traits {
			codes = append(codes, tr.Trait)
			vs := vals[tr.Trait]
			sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
			for _, v := range vs {
				sum += v
				lo, hi = min(lo, v), max(hi, v)
			}
			mean, ss := sum/float64(len(vs)), 0.0
			for _, v := range vs {
				ss += (v - mean) * (v - mean)
			}
			sd := 0.0
			if len(vs) > 1 {
				sd = math.Sqrt(ss / float64(len(vs)-1))
			}
			if tr.N != len(vs) || math.Abs(tr.Mean-mean) > 5e-5 || math.Abs(tr.SD-sd) > 5e-5 || tr.Min != lo || tr.Max != hi {
				t.Errorf("%d animals, %s: n %d mean %v sd %v min %v max %v; want %d %v %v %v %v",
					n, tr.Trait, tr.N, tr.Mean, tr.SD, tr.Min, tr.Max, len(vs), mean, sd, lo, hi)
			}
			if len(tr.MinIDs) == 0 || f.Animals[tr.MinIDs[0]].EBV[tr.Trait] != lo || len(tr.MaxIDs) == 0 || f.Animals[tr.MaxIDs[0]].EBV[tr.Trait] != hi {
				t.Errorf("%s: holders %v / %v do not hold the min %v / max %v", tr.Trait, tr.MinIDs, tr.MaxIDs, lo, hi)
			}
		}
		if want := slices.DeleteFunc([]string{"BWT", "WWT", "NLB"}, func(c string) bool { return len(vals[c]) == 0 }); !slices.Equal(codes, want) {
			t.Errorf("traits %v, want %v", codes, want)
		}
	}
}

// Rows naming another flock are left out and named; extremes held by many
// list three holders and count the rest; over the budget, one.
func TestFlockSummaryHoldersAndStrays(t *testing.T) {
	f := analysistest.NewFake()
	for i := range 6 {
		f.Add(&analysistest.FakeAnimal{ID: fmt.Sprintf("FLOCK%d", i), Flock: "640238", Sex: "Female", Born: "2024-01-01", EBV: map[string]float64{"WWT": 1}})
	}
	stray := &analysistest.FakeAnimal{ID: "STRAY1", Flock: "640238", Sex: "Male", EBV: map[string]float64{"WWT": 50}}
	f.Add(stray)
	// The fake filters by its own Flock; the row it serves names another,
	// as an NSIP ignoring the criterion would.
	sf := &strayFlock{FakeSource: f, id: "STRAY1", flock: "111111"}
	v, err := analysis.Run(t.Context(), FlockSummary, sf, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, FlockSummary, map[string]any{"flock_id": "640238"}))
	if err != nil {
		t.Fatal(err)
	}
	var a analysistest.FlockAnswer
	analysistest.Decode(t, v, &a)
	if a.Animals != 6 || !slices.Equal(a.LeftOut.LPNIDs, []string{"STRAY1"}) || a.BySex["male"] != 0 {
		t.Errorf("animals %d left out %v by sex %v; want 6, STRAY1 left out and not counted", a.Animals, a.LeftOut.LPNIDs, a.BySex)
	}
	tr := a.Traits[0]
	if tr.N != 6 || tr.Max != 1 || tr.SD != 0 || len(tr.MinIDs) != 3 || tr.MinMore != 3 {
		t.Errorf("WWT %+v, want 6 at 1, SD 0, three holders listed and 3 more", tr)
	}
	f.Over = true
	v, _ = analysis.Run(t.Context(), FlockSummary, sf, analysistest.Discard(), param.Sent{}, analysistest.Valid(t, FlockSummary, map[string]any{"flock_id": "640238"}))
	analysistest.Decode(t, v, &a)
	if len(a.Traits[0].MinIDs) != 1 || a.Traits[0].MinMore != 5 {
		t.Errorf("over budget: holders %v and %d more, want 1 and 5", a.Traits[0].MinIDs, a.Traits[0].MinMore)
	}

	var empty analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "123456", "breed_id": 640}, &empty)
	if empty.Animals != 0 || empty.Note == "" || !empty.Computed.Complete {
		t.Errorf("empty flock: %d animals, note %q; want 0 and a note to check the code", empty.Animals, empty.Note)
	}
	if last := f.Searches[len(f.Searches)-1]; last["breed_id"] != 640 {
		t.Errorf("breed_id not passed to the search: %v", last)
	}
}

type strayFlock struct {
	*analysistest.FakeSource
	id, flock string
}

func (s *strayFlock) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	res, err := s.FakeSource.Search(ctx, q)
	if err == nil {
		for i := range res.Results {
			if res.Results[i].LPNID == s.id {
				res.Results[i].FlockCode = s.flock
			}
		}
	}
	return res, err
}

// Past 30 pages the summary stops and says how much it read.
func TestFlockSummaryPageCeiling(t *testing.T) {
	f := analysistest.FlockOf(31, 3050)
	var a analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &a)
	if a.Computed.Complete || a.Computed.Pages != scan.FlockPages || a.Computed.AnimalsRead != 3000 || a.Computed.Incomplete == "" {
		t.Errorf("%+v, want 3000 animals over 30 pages, incomplete and saying so", a.Computed)
	}
	if n := f.CallsOf("search"); n != scan.FlockPages {
		t.Errorf("%d searches, want the page limit %d", n, scan.FlockPages)
	}
}

// groupCounts is what the summary of animals should say, worked out
// directly: counts by sex, status and birth year, and each trait's values.
type groupCounts struct {
	sex, year, status map[string]int
	vals              map[string][]float64
}

func countGroup(as []*analysistest.FakeAnimal) groupCounts {
	g := groupCounts{map[string]int{}, map[string]int{}, map[string]int{}, map[string][]float64{}}
	for _, x := range as {
		g.sex[map[string]string{"Male": "male", "1": "male", "Female": "female", "2": "female", "": "unknown"}[x.Sex]]++
		y := "unknown"
		for _, c := range []string{"2019", "2020", "2021", "2022", "2023", "2024"} {
			if slices.Contains([]string{"2/13/" + c, c + "-03-01T00:00:00", c + "-04-20"}, x.Born) {
				y = c
			}
		}
		g.year[y]++
		st := x.Status
		if st == "" {
			st = "unknown"
		}
		g.status[st]++
		for c, v := range x.EBV {
			g.vals[c] = append(g.vals[c], v)
		}
	}
	return g
}

// checkGroup compares an answer with the group's direct counts and each
// trait's statistics by the textbook formulas.
func checkGroup(t *testing.T, name string, f *analysistest.FakeSource, a analysistest.FlockAnswer, want groupCounts, n int, withStatus bool) {
	t.Helper()
	if a.Animals != n || !maps.Equal(a.BySex, want.sex) || !maps.Equal(a.ByYear, want.year) {
		t.Errorf("%s: got %d animals, sex %v, years %v; want %d, sex %v, years %v", name, a.Animals, a.BySex, a.ByYear, n, want.sex, want.year)
	}
	if withStatus && !maps.Equal(a.ByStatus, want.status) {
		t.Errorf("%s: status %v, want %v", name, a.ByStatus, want.status)
	}
	if len(a.Traits) != len(want.vals) {
		t.Errorf("%s: %d traits, want %d", name, len(a.Traits), len(want.vals))
	}
	for _, tr := range a.Traits {
		vs := want.vals[tr.Trait]
		sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for _, v := range vs {
			sum += v
			lo, hi = min(lo, v), max(hi, v)
		}
		mean, ss := sum/float64(len(vs)), 0.0
		for _, v := range vs {
			ss += (v - mean) * (v - mean)
		}
		sd := 0.0
		if len(vs) > 1 {
			sd = math.Sqrt(ss / float64(len(vs)-1))
		}
		if tr.N != len(vs) || math.Abs(tr.Mean-mean) > 5e-5 || math.Abs(tr.SD-sd) > 5e-5 || tr.Min != lo || tr.Max != hi {
			t.Errorf("%s, %s: n %d mean %v sd %v min %v max %v; want %d %v %v %v %v", name, tr.Trait, tr.N, tr.Mean, tr.SD, tr.Min, tr.Max, len(vs), mean, sd, lo, hi)
		}
		if len(tr.MinIDs) == 0 || f.Animals[tr.MinIDs[0]].EBV[tr.Trait] != lo || len(tr.MaxIDs) == 0 || f.Animals[tr.MaxIDs[0]].EBV[tr.Trait] != hi {
			t.Errorf("%s, %s: holders %v / %v do not hold the min %v / max %v", name, tr.Trait, tr.MinIDs, tr.MaxIDs, lo, hi)
		}
	}
}

// Every offspring, over as many pages as they take: the same statistics
// as counting them directly, with no status (progeny rows carry none).
func TestGroupProgenyMatchesBruteForce(t *testing.T) {
	for _, n := range []int{0, 1, 100, 240, 257} {
		f := analysistest.ProgenyFlock(uint64(n)+100, n)
		var kids []*analysistest.FakeAnimal
		for _, a := range f.Animals {
			if a.Sire == "SIRE0001" {
				kids = append(kids, a)
			}
		}
		v, err := analysistest.Run(t, FlockSummary, f, map[string]any{"progeny_of": "SIRE0001"})
		if err != nil {
			t.Fatal(err)
		}
		var a analysistest.FlockAnswer
		analysistest.Decode(t, v, &a)
		want := countGroup(kids)
		checkGroup(t, fmt.Sprintf("%d offspring", n), f, a, want, len(kids), false)
		if want := max(1, (n+99)/100); a.Computed.Pages != want || !a.Computed.Complete || f.CallsOf("progeny") != want {
			t.Errorf("%d offspring: %d pages (%d asked), complete %v; want %d, complete", n, a.Computed.Pages, f.CallsOf("progeny"), a.Computed.Complete, want)
		}
		if (n == 0) != (a.Note != "") {
			t.Errorf("%d offspring: note %q", n, a.Note)
		}
		// The full table has a row for every offspring.
		_, tab := full.Split(v)
		if tab == nil || len(tab.Rows) != len(kids) || slices.Contains(tab.Columns, "status") {
			t.Errorf("%d offspring: table %v, want %d rows without status", n, tab, len(kids))
		}
	}
	// Per sex, in the same call: the mean WWT of his ewe lambs is the mean
	// over his daughters, counted directly.
	f := analysistest.ProgenyFlock(9, 240)
	var a analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"progeny_of": "SIRE0001"}, &a)
	for _, tr := range a.Traits {
		for _, sex := range []string{"female", "male"} {
			var vs []float64
			for _, k := range f.Animals {
				if v, ok := k.EBV[tr.Trait]; ok && k.Sire == "SIRE0001" && sexName(k.Sex) == sex {
					vs = append(vs, v)
				}
			}
			got, ok := tr.BySex[sex]
			if len(vs) == 0 {
				if ok {
					t.Errorf("%s by_sex has %s, which no offspring with it is", tr.Trait, sex)
				}
				continue
			}
			sum, lo, hi := 0.0, vs[0], vs[0]
			for _, v := range vs {
				sum, lo, hi = sum+v, min(lo, v), max(hi, v)
			}
			if !ok || got.N != len(vs) || got.Mean != facts.Round4(sum/float64(len(vs))) || (len(vs) > 1) != (got.SD > 0) {
				t.Errorf("%s by_sex.%s = %+v (present %v); want n %d, mean %g (values %g..%g)", tr.Trait, sex, got, ok, len(vs), facts.Round4(sum/float64(len(vs))), lo, hi)
			}
		}
	}
	if len(a.Traits) == 0 || len(a.BySex) < 2 {
		t.Fatalf("offspring of %d sexes with %d traits: the per-sex statistics were not exercised", len(a.BySex), len(a.Traits))
	}

	// A short page is missing rows, not the end.
	f = analysistest.ProgenyFlock(7, 240)
	f.Pages = analysistest.Short(1, 10)
	a = analysistest.FlockAnswer{}
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"progeny_of": "SIRE0001"}, &a)
	if a.Computed.Complete || a.Computed.AnimalsRead != 230 || !strings.Contains(a.Computed.Incomplete, "10 rows missing") {
		t.Errorf("offspring over a short page: %+v; want 230 read, incomplete and saying by how many", a.Computed)
	}
	if _, err := analysistest.Run(t, FlockSummary, f, map[string]any{"progeny_of": "NOBODY01"}); !errors.As(err, new(*analysis.AboutError)) {
		t.Errorf("progeny of an unknown animal: %v, want the error attributed to progeny_of", err)
	}
}

// Every animal a search matches: breed and criteria, counted as directly.
func TestGroupSearchMatchesBruteForce(t *testing.T) {
	f := analysistest.FlockOf(41, 230)
	for i, a := range slices.Sorted(maps.Keys(f.Animals)) {
		if i%4 == 0 {
			f.Animals[a].Breed = 641
		}
	}
	for _, crit := range []map[string]any{nil, {"gender": "Male"}, {"gender": "Female", "status": "CURRENT"}} {
		search := map[string]any{"breed_id": 640}
		if crit != nil {
			search["search_criteria"] = crit
		}
		var match []*analysistest.FakeAnimal
		for _, a := range f.Animals {
			g, _ := crit["gender"].(string)
			st, _ := crit["status"].(string)
			if a.Breed == 640 && (g == "" || a.Sex == g) && (st == "" || a.Status == st) {
				match = append(match, a)
			}
		}
		var a analysistest.FlockAnswer
		analysistest.MustRun(t, FlockSummary, f, map[string]any{"search": search}, &a)
		checkGroup(t, fmt.Sprint("search ", crit), f, a, countGroup(match), len(match), true)
		if !a.Computed.Complete {
			t.Errorf("search %v: %+v, want complete", crit, a.Computed)
		}
	}
	// A row contradicting the criteria is evidence NSIP ignored one: it
	// is left out, named, and not counted.
	f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page == 0 && len(rows) > 0 {
			rows[0].Sex = "Female"
		}
		return rows
	}
	var a analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Male"}}}, &a)
	if len(a.LeftOut.LPNIDs) != 1 || a.BySex["female"] != 0 || a.Animals != a.Computed.AnimalsRead-1 {
		t.Errorf("a contradicting row: left out %v, by sex %v, %d of %d counted; want it named and not counted", a.LeftOut.LPNIDs, a.BySex, a.Animals, a.Computed.AnimalsRead)
	}
	// So is a row of another breed, or one whose trait lies outside the
	// trait_ranges asked (NSIP ignoring them).
	f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page == 0 && len(rows) > 1 {
			rows[0].BreedID = 641
			rows[1].Traits = analysistest.TraitsOf(map[string]float64{"WWT": 50})
		}
		return rows
	}
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"search": map[string]any{"breed_id": 640,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": map[string]any{"max": 40}}}}}, &a)
	if len(a.LeftOut.LPNIDs) != 2 || a.Animals != a.Computed.AnimalsRead-2 {
		t.Errorf("rows of another breed and outside trait_ranges: left out %v, %d of %d counted; want both named and not counted", a.LeftOut.LPNIDs, a.Animals, a.Computed.AnimalsRead)
	}
}
