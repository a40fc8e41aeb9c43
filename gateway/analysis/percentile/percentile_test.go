package percentile_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Every top_percent equals the count over the whole breed, with ties (two
// decimals, and one in twenty animals without the EBV, sorted last) and
// breeds of one page and of 25; each value costs about log2(pages) pages.
func TestComparePercentilesMatchBruteForce(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		n    int
	}{{1, 80}, {2, 650}, {3, 2500}} {
		t.Run(fmt.Sprint(c.n, " animals"), func(t *testing.T) {
			f := analysistest.Population(c.seed, c.n)
			ids := analysistest.Pick(f, c.seed, 8)
			var a analysistest.PctAnswer
			analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids, "traits": []any{"BWT", "WWT", "FAT"}, "percentiles": true}, &a)
			checked := 0
			for i, row := range a.Animals {
				an := f.Animals[ids[i].(string)]
				for k, code := range a.Traits {
					v, ok := an.EBV[code]
					got := row.TopPercent[k]
					switch {
					case !ok && got != nil:
						t.Errorf("%s has no %s, yet top_percent %v", an.ID, code, *got)
					case ok && got == nil:
						t.Errorf("%s %s: no top_percent (%v)", an.ID, code, a.Percentiles.Unproven)
					case ok && *got != analysistest.BrutePercent(f, 640, code, v):
						t.Errorf("%s %s %v: top_percent %v, brute force %v", an.ID, code, v, *got, analysistest.BrutePercent(f, 640, code, v))
					case ok:
						checked++
					}
				}
			}
			if checked < 20 {
				t.Errorf("only %d values checked", checked)
			}
			pages := (c.n + 99) / 100
			log2 := int(math.Ceil(math.Log2(float64(pages)))) + 1
			// One date read before the pages, and one after each value
			// that read pages.
			reads := f.CallsOf("search") + f.CallsOf("evaluation")
			if most := 3*(2+log2+2) + checked*(log2+1) + 1; a.Percentiles.Lookups > most || reads != a.Percentiles.Lookups {
				t.Errorf("%d lookups (%d searches and date reads) for %d values over %d pages, want at most %d", a.Percentiles.Lookups, reads, checked, pages, most)
			}
			if e := a.Percentiles.Evaluation; e == nil || *e != "09/23/2025" {
				t.Errorf("percentiles.evaluation = %v, want 09/23/2025", e)
			}
			for _, s := range f.Searches {
				if s["evaluation"] != "09/23/2025" {
					t.Fatalf("a page was read without the evaluation date in its key: %v", s)
				}
			}
		})
	}
}

// A trait with no direction counts lower first, and a breed whose animals
// without the EBV NSIP sorts first is counted from the other end.
func TestPercentilesWithoutDirectionAndHeadMissing(t *testing.T) {
	f := analysistest.Population(4, 900)
	rng := rand.New(rand.NewPCG(4, 6))
	for _, a := range f.Animals {
		if rng.IntN(10) > 0 {
			a.EBV["NWT"] = math.Round(rng.NormFloat64()*10) / 100
		}
	}
	ids := analysistest.Pick(f, 4, 6)
	var a analysistest.PctAnswer
	analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids, "traits": []any{"NWT"}, "percentiles": true}, &a)
	for i, row := range a.Animals {
		an := f.Animals[ids[i].(string)]
		if v, ok := an.EBV["NWT"]; ok && (row.TopPercent[0] == nil || *row.TopPercent[0] != analysistest.BrutePercent(f, 640, "NWT", v)) {
			t.Errorf("%s NWT %v: %v, brute force %v", an.ID, v, row.TopPercent[0], analysistest.BrutePercent(f, 640, "NWT", v))
		}
	}
	// NSIP lists the animals without the EBV first and sorts the rest
	// lowest first: the same counts.
	g := f
	rev := &reversedSource{FakeSource: g}
	var b analysistest.PctAnswer
	sent := map[string]any{"lpn_ids": ids, "traits": []any{"NWT", "WWT"}, "percentiles": true}
	v, err := analysis.Run(t.Context(), compare.Compare, rev, analysistest.Discard(), param.SentOf(sent), analysistest.Valid(t, compare.Compare, sent))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &b)
	for i, row := range b.Animals {
		an := g.Animals[ids[i].(string)]
		for k, code := range b.Traits {
			if x, ok := an.EBV[code]; ok && (row.TopPercent[k] == nil || *row.TopPercent[k] != analysistest.BrutePercent(g, 640, code, x)) {
				t.Errorf("reversed NSIP: %s %s %v: %v, brute force %v (%v)", an.ID, code, x, row.TopPercent[k], analysistest.BrutePercent(g, 640, code, x), b.Percentiles.Unproven)
			}
		}
	}
}

// reversedSource serves every search in the opposite order, as an NSIP
// whose reverse=false meant lowest first (and animals without the trait
// first) would.
type reversedSource struct{ *analysistest.FakeSource }

func (r *reversedSource) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	q.Reverse = !q.Reverse
	return r.FakeSource.Search(ctx, q)
}

// Pages NSIP does not promise leave a trait without percentiles, each
// saying why: a short page, a repeat across pages or within one, pages out
// of order.
func TestPercentilesUnprovenSaySo(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*analysistest.FakeSource)
		why  string
	}{
		{"short page", func(f *analysistest.FakeSource) {
			f.Pages = func(p int, rows []nsip.AnimalRow) []nsip.AnimalRow {
				if p == 0 {
					return rows[:90]
				}
				return rows
			}
		}, "held 90 rows"},
		{"repeat", func(f *analysistest.FakeSource) {
			first := ""
			f.Pages = func(p int, rows []nsip.AnimalRow) []nsip.AnimalRow {
				switch {
				case p == 0:
					first = rows[0].LPNID
				case p == 19 && first != "":
					rows[0].LPNID = first // read second, at the start
				}
				return rows
			}
		}, "on pages"},
		{"repeat within a page", func(f *analysistest.FakeSource) {
			f.Pages = func(p int, rows []nsip.AnimalRow) []nsip.AnimalRow {
				if p == 0 {
					rows[1].LPNID = rows[0].LPNID
				}
				return rows
			}
		}, "twice on page 0"},
		{"unsorted", func(f *analysistest.FakeSource) { f.Unsorted = true }, "not in one order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := analysistest.Population(5, 2000)
			c.set(f)
			var a analysistest.PctAnswer
			analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": analysistest.Pick(f, 5, 5), "traits": []any{"WWT"}, "percentiles": true}, &a)
			for _, row := range a.Animals {
				if row.TopPercent[0] != nil {
					t.Errorf("%s: top_percent %v on pages that cannot be trusted", row.LPNID, *row.TopPercent[0])
				}
			}
			why := a.Percentiles.Unproven["WWT (breed 640)"]
			if !strings.Contains(why, c.why) {
				t.Errorf("unproven %v, want WWT's reason to say %q", a.Percentiles.Unproven, c.why)
			}
		})
	}
}

// Ranked rows carry each weighted trait's top_percent, as brute force.
func TestRankPercentiles(t *testing.T) {
	f := analysistest.Population(6, 1500)
	var a struct {
		Columns []string `json:"columns"`
		Top     [][]any  `json:"top"`
	}
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0, "BWT": -1.0}, "top_n": 5, "percentiles": true}, &a)
	n := len(a.Columns)
	if !slices.Equal(a.Columns[n-2:], []string{"BWT_top_percent", "WWT_top_percent"}) {
		t.Fatalf("columns %v", a.Columns)
	}
	for _, row := range a.Top {
		an := f.Animals[row[1].(string)]
		for k, code := range []string{"BWT", "WWT"} {
			if want := analysistest.BrutePercent(f, 640, code, an.EBV[code]); row[n-2+k] != want {
				t.Errorf("%s %s: %v, brute force %v", an.ID, code, row[n-2+k], want)
			}
		}
	}
}

// nsip_get_animal with percentiles: every EBV of the animal, as counted
// over its breed.
func TestAnimalPercentilesMatchBruteForce(t *testing.T) {
	f := analysistest.Population(7, 700)
	for _, id := range analysistest.Pick(f, 7, 4) {
		v, err := analysis.Run(t.Context(), percentile.AnimalPercentiles, f, analysistest.Discard(), param.SentOf(map[string]any{"search_string": id}), analysistest.Valid(t, percentile.AnimalPercentiles, map[string]any{"search_string": id}))
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			EBVs [][]any `json:"ebvs"`
		}
		analysistest.Decode(t, v, &a)
		an := f.Animals[id.(string)]
		// Parents as recorded; one NSIP does not record is null, not "".
		var raw map[string]any
		analysistest.Decode(t, v, &raw)
		for key, want := range map[string]string{"sire": an.Sire, "dam": an.Dam} {
			got, ok := raw[key]
			if !ok || (want == "" && got != nil) || (want != "" && got != want) {
				t.Errorf("%s: %s %v (present %v), recorded %q; want it as recorded, null where none", an.ID, key, got, ok, want)
			}
		}
		if len(a.EBVs) != len(an.EBV) {
			t.Fatalf("%s: %d EBVs, want %d", an.ID, len(a.EBVs), len(an.EBV))
		}
		for _, row := range a.EBVs {
			code := row[0].(string)
			if want := analysistest.BrutePercent(f, 640, code, an.EBV[code]); row[3] != want {
				t.Errorf("%s %s: %v, brute force %v", an.ID, code, row[3], want)
			}
		}
	}
}

// failingSearch fails every search of one page.
type failingSearch struct {
	*analysistest.FakeSource
	page int
}

func (f *failingSearch) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	if q.Page == f.page {
		return nil, fmt.Errorf("NSIP busy")
	}
	return f.FakeSource.Search(ctx, q)
}

// A page NSIP does not answer leaves that trait without percentiles, said
// why, and the comparison whole.
func TestPercentilesPageFails(t *testing.T) {
	f := analysistest.Population(8, 900)
	ids := analysistest.Pick(f, 8, 3)
	src := &failingSearch{FakeSource: f, page: 8} // the last page, read for every trait
	sent := map[string]any{"lpn_ids": ids, "traits": []any{"WWT"}, "percentiles": true}
	v, err := analysis.Run(t.Context(), compare.Compare, src, analysistest.Discard(), param.SentOf(sent), analysistest.Valid(t, compare.Compare, sent))
	if err != nil {
		t.Fatalf("a failed page failed the comparison: %v", err)
	}
	var a analysistest.PctAnswer
	analysistest.Decode(t, v, &a)
	if len(a.Animals) != 3 || a.Animals[0].TopPercent[0] != nil || !strings.Contains(a.Percentiles.Unproven["WWT (breed 640)"], "could not be read (UPSTREAM_ERROR)") {
		t.Errorf("animals %d, unproven %v", len(a.Animals), a.Percentiles.Unproven)
	}
}

// NSIP publishes a new evaluation after the first page sorted by WWT is
// read, every WWT moving down by 5 (the old first page still sorts above
// the new pages, so they pass every other check): no top_percent combines the old page with the new
// ones. The call says the trait is unproven and why; the next call reads
// the pages under the new date and counts them exactly.
func TestPercentilesNeverSpanTwoEvaluations(t *testing.T) {
	f, old := analysistest.Population(6, 2000), analysistest.Population(6, 2000)
	ids := analysistest.Pick(f, 6, 6)
	f.AfterSearch = func(n int) {
		if n != 1 {
			return
		}
		f.Evaluation = "10/21/2025"
		for _, a := range f.Animals {
			if _, ok := a.EBV["WWT"]; ok {
				a.EBV["WWT"] -= 5
			}
		}
	}
	var a analysistest.PctAnswer
	analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids, "traits": []any{"WWT"}, "percentiles": true}, &a)
	if e := a.Percentiles.Evaluation; e == nil || *e != "09/23/2025" {
		t.Fatalf("percentiles.evaluation = %v, want the date read before the pages, 09/23/2025", e)
	}
	for i, row := range a.Animals {
		an := old.Animals[ids[i].(string)]
		if got := row.TopPercent[0]; got != nil {
			t.Errorf("%s WWT: top_percent %v from pages of two evaluations (brute force under the first: %v)", an.ID, *got, analysistest.BrutePercent(old, 640, "WWT", an.EBV["WWT"]))
		}
	}
	if why := a.Percentiles.Unproven["WWT (breed 640)"]; !strings.Contains(why, "new evaluation (09/23/2025, then 10/21/2025)") {
		t.Errorf("unproven WWT = %q, want the new evaluation named", why)
	}
	if !strings.Contains(a.Percentiles.EvalChange, "10/21/2025") {
		t.Errorf("evaluation_changed = %q, want the new date", a.Percentiles.EvalChange)
	}

	// Called again: every page is read under the new date.
	f.Searches = nil
	analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids, "traits": []any{"WWT"}, "percentiles": true}, &a)
	if e := a.Percentiles.Evaluation; e == nil || *e != "10/21/2025" || a.Percentiles.EvalChange != "" {
		t.Errorf("second call: evaluation %v, changed %q; want 10/21/2025 and no change", e, a.Percentiles.EvalChange)
	}
	for i, row := range a.Animals {
		an := f.Animals[ids[i].(string)]
		if v, ok := an.EBV["WWT"]; ok && (row.TopPercent[0] == nil || *row.TopPercent[0] != analysistest.BrutePercent(f, 640, "WWT", v)) {
			t.Errorf("second call: %s WWT %v: %v, brute force %v (%v)", an.ID, v, row.TopPercent[0], analysistest.BrutePercent(f, 640, "WWT", v), a.Percentiles.Unproven)
		}
	}
	for _, s := range f.Searches {
		if s["evaluation"] != "10/21/2025" {
			t.Fatalf("second call read a page keyed %v, want 10/21/2025", s["evaluation"])
		}
	}
}

// Without NSIP's date the percentiles are still counted, and say they are
// not tied to one evaluation.
func TestPercentilesWithoutEvaluationDate(t *testing.T) {
	f := analysistest.Population(7, 900)
	f.EvalErr = &nsip.Error{Kind: nsip.KindUpstream, Reason: "down"}
	ids := analysistest.Pick(f, 7, 5)
	var a analysistest.PctAnswer
	analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids, "traits": []any{"BWT", "WWT"}, "percentiles": true}, &a)
	for i, row := range a.Animals {
		an := f.Animals[ids[i].(string)]
		for k, code := range a.Traits {
			if v, ok := an.EBV[code]; ok && (row.TopPercent[k] == nil || *row.TopPercent[k] != analysistest.BrutePercent(f, 640, code, v)) {
				t.Errorf("%s %s %v: %v, brute force %v (%v)", an.ID, code, v, row.TopPercent[k], analysistest.BrutePercent(f, 640, code, v), a.Percentiles.Unproven)
			}
		}
	}
	if a.Percentiles.Evaluation != nil || !strings.Contains(a.Percentiles.EvalNote, "could not be read (UPSTREAM_ERROR), so these percentiles are not tied to one evaluation") {
		t.Errorf("evaluation %v, note %q; want null and a note that the date could not be read", a.Percentiles.Evaluation, a.Percentiles.EvalNote)
	}
	if n := f.CallsOf("evaluation"); n != 1 {
		t.Errorf("the date was asked %d times, want once", n)
	}
}

// In a breed of 50 pages each value's page is guessed from the values
// read before it, so a value costs a page or two rather than the seven of
// halving alone (which ran out of lookups here), and every count is still the brute-force one.
func TestPercentileValuesGuessTheirPage(t *testing.T) {
	f := analysistest.Population(12, 5000)
	ids := analysistest.Pick(f, 12, 20)
	traits := []any{"BWT", "WWT", "FAT"}
	var a analysistest.PctAnswer
	analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids, "traits": traits, "percentiles": true}, &a)
	checked := 0
	for i, row := range a.Animals {
		an := f.Animals[ids[i].(string)]
		for k, code := range a.Traits {
			v, ok := an.EBV[code]
			if !ok {
				continue
			}
			if got := row.TopPercent[k]; got == nil || *got != analysistest.BrutePercent(f, 640, code, v) {
				t.Fatalf("%s %s %v: top_percent %v, brute force %v (%v)", an.ID, code, v, got, analysistest.BrutePercent(f, 640, code, v), a.Percentiles.Unproven)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("only %d values checked", checked)
	}
	// Each trait reads its two ends and halves its way to where the
	// animals without the EBV start (log2(50) rounded up, and that page);
	// then each value reads its pages and the date after them.
	setup := len(traits) * (2 + 6 + 1)
	perValue := float64(a.Percentiles.Lookups-setup-1)/float64(checked) - 1
	if perValue > 1.5 {
		t.Errorf("%d lookups for %d values over 50 pages: %.1f pages a value beyond the ends, want at most 1.5", a.Percentiles.Lookups, checked, perValue)
	}
}
