package flock

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// NSIP does not promise that its trait ranges bound every EBV, that a page
// is full until the last, or that paging is stable (see the API notes).
// An answer that leans on one must check it on what it read.

// repeat serves page p with the previous page's last row in place of its
// own first, as offset paging over ties does: one animal twice, one never.
// The previous page is read before page p (a scan reads its first page
// alone, and pages in order), but pages after it may be read beside it.
func repeat(p int) func(int, []nsip.AnimalRow) []nsip.AnimalRow {
	var mu sync.Mutex
	var last nsip.AnimalRow
	return func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		mu.Lock()
		defer mu.Unlock()
		if page == p {
			rows = append([]nsip.AnimalRow{last}, rows[1:]...)
		}
		if page == p-1 {
			last = rows[len(rows)-1]
		}
		return rows
	}
}

// The breed's ranges say BWT is -1..0, but SLOPE0005, read on the first
// page, has -1.5: the ranges are disproved, and a bound built on them
// would stop after that page with SLOPE0005 (2 x 9.95 + 1.5 = 21.4) as
// the best, missing the sleeper on page 5 (2 x 4.8 + 15 = 24.6).
func TestRankRangesDisprovedByARowRead(t *testing.T) {
	f := analysistest.NewFake()
	for i := range 1000 {
		f.Add(&analysistest.FakeAnimal{ID: fmt.Sprintf("SLOPE%04d", i), EBV: map[string]float64{"WWT": float64(1000-i) / 100, "BWT": 0}})
	}
	f.Animals["SLOPE0005"].EBV["BWT"] = -1.5
	f.Add(&analysistest.FakeAnimal{ID: "SLEEPER1", EBV: map[string]float64{"WWT": 4.8, "BWT": -15}})
	f.Ranges = map[int][]nsip.TraitRange{640: {{Code: "BWT", Range: nsip.Range{Min: -1, Max: 0}}, {Code: "WWT", Range: nsip.Range{Min: 0.01, Max: 10}}}}
	var a analysistest.RankAnswer
	v, err := analysistest.Run(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 2.0, "BWT": -1.0}, "top_n": 1})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &a)
	if len(a.Top) != 1 || a.Top[0][1] != "SLEEPER1" {
		t.Errorf("top %v, want SLEEPER1", a.Top)
	}
	if a.Computed.Stopped != "all read" || !a.Computed.Exact {
		t.Errorf("%+v, want every page read once the ranges are disproved", a.Computed)
	}
	if note := v.(*rank.RankAnswer).Computed.Ranges; !strings.Contains(note, "SLOPE0005") {
		t.Errorf("computed.ranges %q, want it to name the animal outside the ranges", note)
	}
}

// A short page before NSIP's count is reached is missing rows, not the
// end: the ranking is not exact and the flock summary not complete.
func TestShortPageIsNotTheEnd(t *testing.T) {
	f := analysistest.Population(21, 250)
	f.Unsorted = true // no bound: the scan would read every page
	f.Pages = analysistest.Short(1, 10)
	var r analysistest.RankAnswer
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
	if r.Computed.Exact || r.Computed.Pages != 3 || r.Computed.AnimalsRead != 240 {
		t.Errorf("rank over a short page: %+v; want 3 pages, 240 animals, not exact", r.Computed)
	}

	f = analysistest.FlockOf(22, 250)
	f.Pages = analysistest.Short(1, 10)
	var fl analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &fl)
	if fl.Computed.Complete || fl.Computed.Pages != 3 || fl.Computed.AnimalsRead != 240 || !strings.Contains(fl.Computed.Incomplete, "10") {
		t.Errorf("flock over a short page: %+v; want 3 pages, 240 animals, incomplete and saying by how many", fl.Computed)
	}
}

// An animal repeated across pages means another was skipped.
func TestRepeatedRowMeansOneSkipped(t *testing.T) {
	f := analysistest.Population(23, 250)
	f.Unsorted = true
	f.Pages = repeat(1)
	var r analysistest.RankAnswer
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
	if r.Computed.Exact || r.Computed.AnimalsRead != 249 {
		t.Errorf("rank with a repeat: %+v; want 249 animals, not exact", r.Computed)
	}

	f = analysistest.FlockOf(24, 250)
	f.Pages = repeat(1)
	var fl analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &fl)
	if fl.Computed.Complete || fl.Computed.AnimalsRead != 249 || fl.Computed.Incomplete == "" {
		t.Errorf("flock with a repeat: %+v; want 249 animals, incomplete and saying why", fl.Computed)
	}
}

// The last page is short of what NSIP's count leaves for it, or a page
// comes back empty before the count is reached: rows are missing all the
// same, and neither the ranking nor the flock summary is proven whole.
func TestShortOrEmptyLastPagesAreMissingRows(t *testing.T) {
	for _, c := range []struct {
		name          string
		pages         func(int, []nsip.AnimalRow) []nsip.AnimalRow
		read, missing int
	}{
		{"short last page", analysistest.Short(2, 20), 230, 20},     // 250: the last page should hold 50
		{"empty middle page", analysistest.Short(1, 100), 100, 150}, // pages 1 and 2 never come
	} {
		t.Run(c.name, func(t *testing.T) {
			f := analysistest.Population(25, 250)
			f.Unsorted = true
			f.Pages = c.pages
			var r struct{ Computed rank.RankComputed }
			analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
			want := fmt.Sprintf("%d rows missing", c.missing)
			if r.Computed.Exact || r.Computed.AnimalsRead != c.read || !strings.Contains(r.Computed.Paging, want) {
				t.Errorf("rank: %+v; want %d animals, not exact, paging saying %q", r.Computed, c.read, want)
			}
			f = analysistest.FlockOf(26, 250)
			f.Pages = c.pages
			var fl analysistest.FlockAnswer
			analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &fl)
			if fl.Computed.Complete || fl.Computed.AnimalsRead != c.read || !strings.Contains(fl.Computed.Incomplete, want) {
				t.Errorf("flock: %+v; want %d animals, incomplete, saying %q", fl.Computed, c.read, want)
			}
		})
	}
}

// An animal leaving the listing between pages shifts every later row up
// by one: one animal is skipped and none repeated, every page is as full
// as the new count says, and only NSIP's count, which changed, shows it.
func TestChangedCountBetweenPagesIsNotExact(t *testing.T) {
	const want = "count changed between pages (250, then 249)"
	f := analysistest.Population(27, 250)
	f.Unsorted = true
	leaves(f, func(a *analysistest.FakeAnimal) bool { return a.Breed == 640 })
	var r struct{ Computed rank.RankComputed }
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
	if r.Computed.Exact || r.Computed.AnimalsRead != 249 || !strings.Contains(r.Computed.Paging, want) {
		t.Errorf("rank: %+v; want 249 animals read, not exact, naming the changed count", r.Computed)
	}
	f = analysistest.Indexed(27, 250)
	leaves(f, func(a *analysistest.FakeAnimal) bool { return a.Breed == 640 })
	var ri struct{ Computed rank.IndexRankComputed }
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index"}, &ri)
	if ri.Computed.Exact || ri.Computed.AnimalsRead != 249 || !strings.Contains(ri.Computed.Paging, want) {
		t.Errorf("rank by index: %+v; want 249 animals read, not exact, naming the changed count", ri.Computed)
	}
	f = analysistest.FlockOf(28, 250)
	leaves(f, func(a *analysistest.FakeAnimal) bool { return a.Flock == "640238" })
	var fl analysistest.FlockAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &fl)
	if fl.Computed.Complete || !strings.Contains(fl.Computed.Incomplete, "count changed between pages") {
		t.Errorf("flock: %+v; want incomplete, naming the changed count", fl.Computed)
	}
}

// leaves takes the listing's first animal by ID (of those in says belong
// to it) out of f once the first page has been served.
func leaves(f *analysistest.FakeSource, in func(*analysistest.FakeAnimal) bool) {
	f.AfterSearch = func(n int) {
		if n != 1 {
			return
		}
		first := ""
		for id, a := range f.Animals {
			if in(a) && (first == "" || id < first) {
				first = id
			}
		}
		delete(f.Animals, first)
	}
}

// A lookup answered from a copy kept after NSIP failed may be from before
// a change to the listing: a ranking that read one is not proven exact,
// and says why.
func TestRankWithStaleLookupsIsNotExact(t *testing.T) {
	f := analysistest.Population(29, 250)
	f.Stale = 2
	var r struct{ Computed rank.RankComputed }
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
	if r.Computed.Exact || !strings.Contains(r.Computed.Stale, "2 lookups were answered from copies kept") {
		t.Errorf("rank: %+v; want not exact, saying 2 stale lookups", r.Computed)
	}
	f = analysistest.Indexed(29, 250)
	f.Stale = 1
	var ri struct{ Computed rank.IndexRankComputed }
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index"}, &ri)
	if ri.Computed.Exact || !strings.Contains(ri.Computed.Stale, "1 lookups") {
		t.Errorf("rank by index: %+v; want not exact, saying 1 stale lookup", ri.Computed)
	}
	f.Stale = 0
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index"}, &ri)
	if !ri.Computed.Exact || ri.Computed.Stale != "" {
		t.Errorf("rank by index with nothing stale: %+v; want exact", ri.Computed)
	}
}

// A ranking's pages are tied to one NSIP evaluation: keyed by the date
// read before them, and exact only when the date read after them is the
// same. A new evaluation published mid-read, or a date NSIP will not give,
// leaves the ranking unproven, saying why.
func TestRankTiedToOneEvaluation(t *testing.T) {
	weights := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}
	index := map[string]any{"breed_id": 640, "index": "US Hair Index"}
	for _, c := range []struct {
		name  string
		set   func(*analysistest.FakeSource)
		exact bool
		check string
	}{
		{"one evaluation", func(*analysistest.FakeSource) {}, true, ""},
		{"published mid-read", func(f *analysistest.FakeSource) {
			f.AfterSearch = func(n int) {
				if n == 1 {
					f.Evaluation = "10/21/2025"
				}
			}
		}, false, "NSIP published a new evaluation (09/23/2025, then 10/21/2025) while the pages were read"},
		{"no date", func(f *analysistest.FakeSource) { f.EvalErr = errors.New("NSIP down") }, false, "last-update date could not be read (UPSTREAM_ERROR)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range []map[string]any{weights, index} {
				f := analysistest.Indexed(30, 250)
				f.Unsorted = true // every page read, the date changing after the first
				c.set(f)
				var r struct{ Computed rank.RankComputed }
				analysistest.MustRun(t, rank.Rank, f, args, &r)
				got := r.Computed
				if got.Exact != c.exact || !strings.Contains(got.EvaluationCheck, c.check) || (c.check == "") != (got.EvaluationCheck == "") {
					t.Errorf("%v: exact %v, evaluation_check %q; want %v, %q", args, got.Exact, got.EvaluationCheck, c.exact, c.check)
				}
				if f.EvalErr == nil {
					for _, s := range f.Searches {
						if s["evaluation"] != "09/23/2025" {
							t.Errorf("%v: a page was read keyed by evaluation %v, want 09/23/2025", args, s["evaluation"])
						}
					}
					if got.Evaluation != "09/23/2025" {
						t.Errorf("%v: evaluation %q, want the date read before the pages", args, got.Evaluation)
					}
				}
				if n := f.CallsOf("evaluation"); n != 2 && f.EvalErr == nil {
					t.Errorf("%v: the date was read %d times, want before and after the pages", args, n)
				}
			}
		})
	}
}
