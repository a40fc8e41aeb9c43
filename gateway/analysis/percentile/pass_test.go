package percentile_test

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// checkBrute holds every top_percent of a comparison of ids to the count
// over the whole breed, and returns how many it checked.
func checkBrute(t *testing.T, f *analysistest.FakeSource, ids []any, a *analysistest.PctAnswer) int {
	t.Helper()
	checked := 0
	for i, row := range a.Animals {
		an := f.Animals[ids[i].(string)]
		for k, code := range a.Traits {
			v, ok := an.EBV[code]
			got := row.TopPercent[k]
			switch {
			case ok && got == nil:
				t.Errorf("%s %s: no top_percent (%v)", an.ID, code, a.Percentiles.Unproven)
			case ok && *got != analysistest.BrutePercent(f, 640, code, v):
				t.Errorf("%s %s %v: top_percent %v, brute force %v", an.ID, code, v, *got, analysistest.BrutePercent(f, 640, code, v))
			case ok:
				checked++
			}
		}
	}
	return checked
}

// A breed read in one pass gives every top_percent exactly as the count
// over the whole breed does (ties, animals without the EBV, a trait with
// no direction), for the breed's pages and the two date reads.
func TestBreedPassMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		n    int
	}{{1, 80}, {2, 650}, {3, 2500}} {
		t.Run(fmt.Sprint(c.n, " animals"), func(t *testing.T) {
			f := analysistest.Population(c.seed, c.n)
			for i, id := range analysistest.Pick(f, c.seed+7, 40) {
				f.Animals[id.(string)].EBV["NWT"] = float64(i % 7)
			}
			src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
			ids := analysistest.Pick(f, c.seed, 8)
			var a analysistest.PctAnswer
			analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": ids, "traits": []any{"BWT", "WWT", "FAT", "NWT"}, "percentiles": true}, &a)
			if got := checkBrute(t, f, ids, &a); got < 20 {
				t.Errorf("only %d values checked", got)
			}
			pages := (c.n + 99) / 100
			if a.Percentiles.Via != "breed pass" || f.CallsOf("search") != pages || a.Percentiles.Lookups != pages+2 {
				t.Errorf("via %q, %d search pages, %d lookups; want breed pass, %d pages and %d lookups (%v)", a.Percentiles.Via, f.CallsOf("search"), a.Percentiles.Lookups, pages, pages+2, a.Percentiles.BreedPass)
			}
			for _, s := range f.Searches {
				if s["evaluation"] != "09/23/2025" || s["sorted_trait"] != nil {
					t.Fatalf("a pass page was read sorted or without the evaluation date in its key: %v", s)
				}
			}
			if !strings.Contains(a.Percentiles.Method, "one pass") {
				t.Errorf("method does not describe the pass: %s", a.Percentiles.Method)
			}
		})
	}
}

// A second comparison of five other animals of the breed, under the same
// evaluation, reads no search page: the pass is kept.
func TestBreedPassSecondCompareReadsNoPage(t *testing.T) {
	f := analysistest.Population(4, 1523)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
	ids := analysistest.Pick(f, 4, 10)
	var a analysistest.PctAnswer
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": ids[:5], "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}, &a)
	first := f.CallsOf("search")
	if first != 16 || src.Stored != 1 {
		t.Fatalf("first compare read %d search pages and kept %d passes, want 16 and 1", first, src.Stored)
	}
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": ids[5:], "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}, &a)
	if n := f.CallsOf("search") - first; n != 0 {
		t.Errorf("the second compare read %d search pages, want none", n)
	}
	if checkBrute(t, f, ids[5:], &a) < 15 || a.Percentiles.Via != "breed pass" || !strings.Contains(a.Percentiles.BreedPass["640"], "kept") {
		t.Errorf("second compare: via %q, breed_pass %v", a.Percentiles.Via, a.Percentiles.BreedPass)
	}
	// One date read: the one that finds the pass's evaluation current.
	if a.Percentiles.Lookups != 1 {
		t.Errorf("second compare: %d lookups for percentiles, want 1", a.Percentiles.Lookups)
	}
}

// Pages NSIP gives inconsistently leave the pass unused and unkept, and
// the answer says why; the values come from the binary search.
func TestBreedPassInconsistentNotUsed(t *testing.T) {
	for _, c := range []struct {
		name, want string
		spoil      func(f *analysistest.FakeSource)
	}{
		{"short page", "rows missing", func(f *analysistest.FakeSource) {
			var once atomic.Bool
			f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
				if page == 1 && !once.Swap(true) {
					return rows[:len(rows)-1]
				}
				return rows
			}
		}},
		{"repeat", "repeated", func(f *analysistest.FakeSource) {
			var once atomic.Bool
			f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
				if page == 2 && !once.Swap(true) {
					rows[5] = rows[4]
				}
				return rows
			}
		}},
		{"count change", "count changed", func(f *analysistest.FakeSource) {
			f.AfterSearch = func(n int) {
				if n == 1 {
					f.Add(&analysistest.FakeAnimal{ID: "6400000NEW00001", Sex: "Male", EBV: map[string]float64{"BWT": 0.1}})
				}
			}
		}},
		{"new evaluation", "new evaluation", func(f *analysistest.FakeSource) {
			var once atomic.Bool
			f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
				if page == 2 && !once.Swap(true) {
					f.Evaluation = "10/01/2025" // read only once the pages are in
				}
				return rows
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := analysistest.Population(5, 300)
			c.spoil(f)
			src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
			ids := analysistest.Pick(f, 5, 2)
			var a analysistest.PctAnswer
			analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": ids, "traits": []any{"BWT"}, "percentiles": true}, &a)
			note := a.Percentiles.BreedPass["640"]
			if !strings.HasPrefix(note, "not used: ") || !strings.Contains(note, c.want) {
				t.Errorf("breed_pass = %q, want it not used because of %q", note, c.want)
			}
			if src.Stored != 0 || a.Percentiles.Via != "binary search" {
				t.Errorf("%d passes kept, via %q; want none kept and the binary search", src.Stored, a.Percentiles.Via)
			}
		})
	}
}

// The pass is read only when it costs fewer lookups than the binary
// search: two values of one trait in a breed of 25 pages are searched, and
// a breed larger than the call's lookups left is filled in the background.
func TestBreedPassChosenByCost(t *testing.T) {
	f := analysistest.Population(6, 2500)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true}}
	ids := analysistest.Pick(f, 6, 2)
	var a analysistest.PctAnswer
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": ids, "traits": []any{"BWT"}, "percentiles": true}, &a)
	if a.Percentiles.Via != "binary search" || !strings.Contains(a.Percentiles.BreedPass["640"], "binary search takes about") || src.Stored != 0 {
		t.Errorf("two values: via %q, breed_pass %v, %d kept; want the binary search", a.Percentiles.Via, a.Percentiles.BreedPass, src.Stored)
	}
	if checkBrute(t, f, ids, &a) != 2 {
		t.Error("the values were not computed")
	}
	f.Ceiling = f.Lookups + 20 // fewer than the pass's 25 pages
	ids = analysistest.Pick(f, 7, 6)
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": ids, "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}, &a)
	if len(src.Fills) != 1 || src.Fills[0] != breedpass.PassKey(640, "09/23/2025") || !strings.Contains(a.Percentiles.BreedPass["640"], "background") {
		t.Errorf("too large: fills %v, breed_pass %v; want one fill of breed 640 under the evaluation", src.Fills, a.Percentiles.BreedPass)
	}
}

// A pass the store will not read in the background (its last read was not
// kept) is not promised to a later call: the answer says why instead.
func TestBreedPassRefusedIsNotPromised(t *testing.T) {
	f := analysistest.Population(6, 2500)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true, Refuse: "its last read was not kept (NSIP's count changed between pages)"}}
	f.Ceiling = f.Lookups + 20 // fewer than the pass's 25 pages
	var a analysistest.PctAnswer
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": analysistest.Pick(f, 7, 6), "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}, &a)
	got := a.Percentiles.BreedPass["640"]
	if !strings.Contains(got, "nor in the background: its last read was not kept (NSIP's count changed") || strings.Contains(got, "a later call uses it") {
		t.Errorf("breed_pass %q; want the refusal and no promise", got)
	}
}

// Without a date the pass cannot be tied to one evaluation: not read.
func TestBreedPassNeedsEvaluation(t *testing.T) {
	f := analysistest.Population(8, 200)
	f.EvalErr = fmt.Errorf("no date")
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
	var a analysistest.PctAnswer
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": analysistest.Pick(f, 8, 2), "traits": []any{"BWT"}, "percentiles": true}, &a)
	if a.Percentiles.Via != "binary search" || !strings.Contains(a.Percentiles.BreedPass["640"], "last-update date") || src.Stored != 0 {
		t.Errorf("via %q, breed_pass %v, %d kept", a.Percentiles.Via, a.Percentiles.BreedPass, src.Stored)
	}
}

// The encoding keeps every value bit for bit, NaN for none, and refuses
// anything cut short or of another version.
func TestBreedPassCodec(t *testing.T) {
	p := breedpass.NewPassOf(640, "09/23/2025", []nsip.AnimalRow{
		{LPNID: "A1", Sex: "Male", Status: "CURRENT", Traits: []nsip.Trait{{Code: "BWT", Value: 0.1}, {Code: "WWT", Value: -1e-9}}},
		{LPNID: "A2", Sex: "Female", Status: "DEAD", Traits: []nsip.Trait{{Code: "WWT", Value: 3.25}}},
		{LPNID: "A3", Status: "CURRENT"},
	})
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q breedpass.BreedPass
	if err := q.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if q.Breed != 640 || q.Evaluation != "09/23/2025" || strings.Join(q.IDs, ",") != "A1,A2,A3" || q.Sexes[q.Sex[0]] != "Male" || q.Sexes[q.Sex[1]] != "Female" || q.Sexes[q.Sex[2]] != "" ||
		q.Statuses[q.Status[1]] != "DEAD" || q.Statuses[q.Status[2]] != "CURRENT" {
		t.Errorf("decoded %+v", q)
	}
	bwt, wwt := q.Column("BWT"), q.Column("wwt")
	if bwt[0] != 0.1 || !math.IsNaN(bwt[1]) || !math.IsNaN(bwt[2]) || wwt[0] != -1e-9 || wwt[1] != 3.25 || !math.IsNaN(wwt[2]) {
		t.Errorf("values %v %v", bwt, wwt)
	}
	if v, ok := q.TopPercent("WWT", 3.25); !ok || v != 50 {
		t.Errorf("WWT 3.25: %v %v, want top 50%%", v, ok)
	}
	for i := range b {
		if err := new(breedpass.BreedPass).UnmarshalBinary(b[:i]); err == nil {
			t.Fatalf("a pass cut to %d of %d bytes was read", i, len(b))
		}
	}
	b[0] = 99
	if err := new(breedpass.BreedPass).UnmarshalBinary(b); err == nil {
		t.Error("a pass of another version was read")
	}
	if p.Bytes() < int64(len(b)) {
		t.Errorf("Bytes() %d under the encoding's %d", p.Bytes(), len(b))
	}
}

// A pass the call's time limit stops part way goes on in the background
// (its pages read are cached), and the answer names the limit.
func TestBreedPassStoppedByTimeGoesOnInTheBackground(t *testing.T) {
	f := analysistest.Population(9, 650)
	f.TimeLimitAt = 4 + 4 // the four animals' details, the date, the first page and two more
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true}}
	var a struct {
		analysistest.PctAnswer
		Percentiles struct {
			BreedPass   map[string]string `json:"breed_pass"`
			NotComputed string            `json:"not_computed"`
		} `json:"percentiles"`
	}
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": analysistest.Pick(f, 9, 4), "traits": []any{"BWT", "WWT"}, "percentiles": true}, &a)
	note := a.Percentiles.BreedPass["640"]
	if len(src.Fills) != 1 || !strings.Contains(note, "background") || !strings.Contains(note, "time limit") {
		t.Errorf("fills %v, breed_pass %q; want one fill, and the time limit named", src.Fills, note)
	}
	if !strings.Contains(a.Percentiles.NotComputed, "time limit") {
		t.Errorf("not_computed = %q, want the time limit named", a.Percentiles.NotComputed)
	}
}

// timeLeft are limits saying the call has left, and nothing else.
func timeLeft(left time.Duration) analysis.Limits {
	return analysis.Limits{TimeLeft: func() time.Duration { return left }}
}

// A pass that would not be read within the time the call has left is not
// begun beyond its first page: it is read in the background.
func TestBreedPassNotBegunWithoutTime(t *testing.T) {
	f := analysistest.Population(10, 650)
	f.Limit = timeLeft(-time.Nanosecond)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true}}
	var a analysistest.PctAnswer
	analysistest.MustRunSource(t, compare.Compare, src, map[string]any{"lpn_ids": analysistest.Pick(f, 10, 2), "traits": []any{"BWT", "WWT"}, "percentiles": true}, &a)
	note := a.Percentiles.BreedPass["640"]
	if len(src.Fills) != 1 || !strings.Contains(note, "would take about") || a.Percentiles.Via != "binary search" {
		t.Errorf("fills %v, breed_pass %q, via %q; want a fill and the binary search", src.Fills, note, a.Percentiles.Via)
	}
	if checkBrute(t, f, analysistest.Pick(f, 10, 2), &a) != 4 {
		t.Error("the binary search did not answer")
	}
}

// However fast the first page came, the rest of a pass waits for the rate
// limit: 25 pages at one a minute past a burst of 10 take 15 minutes, more
// than the 10 the call has left, so the pass is read in the background.
// Without the limit the estimate is seven times the first page, timed on
// the clock: minutes, not seconds, keep a loaded machine's slow page well
// inside the call's time without the limit, and well under the limit's
// time with it.
func TestBreedPassTimeCountsTheRateLimit(t *testing.T) {
	f := analysistest.Population(6, 2500)
	ids := analysistest.Pick(f, 7, 6)
	args := map[string]any{"lpn_ids": ids, "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}
	var a analysistest.PctAnswer
	f.Limit = timeLeft(10 * time.Minute)
	analysistest.MustRunSource(t, compare.Compare, analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true}}, args, &a)
	if a.Percentiles.Via != "breed pass" {
		t.Fatalf("without a rate limit: via %q, breed_pass %v; want the pass read in the call", a.Percentiles.Via, a.Percentiles.BreedPass)
	}
	f.Limit.PerSecond, f.Limit.Burst = 1.0/60, 10
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true}}
	analysistest.MustRunSource(t, compare.Compare, src, args, &a)
	if note := a.Percentiles.BreedPass["640"]; len(src.Fills) != 1 || !strings.Contains(note, "would take about 15m0s") || !strings.Contains(note, "the call has 10m0s left") {
		t.Errorf("at one a minute: fills %v, breed_pass %q; want it read in the background, 15 minutes of 10 named", src.Fills, note)
	}
}

// A ranking's percentile columns and one animal's EBVs come from the pass
// as a comparison's do, equal to the count over the breed; the second
// question reads the kept pass.
func TestBreedPassServesRankAndAnimal(t *testing.T) {
	f := analysistest.Population(11, 1500)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
	var r struct {
		Columns     []string `json:"columns"`
		Top         [][]any  `json:"top"`
		Percentiles struct {
			Via string `json:"via"`
		} `json:"percentiles"`
	}
	analysistest.MustRunSource(t, rank.Rank, src, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0, "BWT": -1.0}, "top_n": 5, "percentiles": true}, &r)
	n := len(r.Columns)
	for _, row := range r.Top {
		an := f.Animals[row[1].(string)]
		for k, code := range []string{"BWT", "WWT"} {
			if want := analysistest.BrutePercent(f, 640, code, an.EBV[code]); row[n-2+k] != want {
				t.Errorf("rank: %s %s: %v, brute force %v", an.ID, code, row[n-2+k], want)
			}
		}
	}
	if r.Percentiles.Via != "breed pass" || src.Stored != 1 {
		t.Errorf("rank: via %q, %d passes kept; want the pass", r.Percentiles.Via, src.Stored)
	}
	searches := f.CallsOf("search")
	id := analysistest.Pick(f, 11, 1)[0].(string)
	v, err := analysis.Run(t.Context(), percentile.AnimalPercentiles, src, analysistest.Discard(), param.SentOf(map[string]any{"search_string": id}), analysistest.Valid(t, percentile.AnimalPercentiles, map[string]any{"search_string": id}))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		EBVs        [][]any `json:"ebvs"`
		Percentiles struct {
			Via string `json:"via"`
		} `json:"percentiles"`
	}
	analysistest.Decode(t, v, &a)
	an := f.Animals[id]
	for _, row := range a.EBVs {
		if want := analysistest.BrutePercent(f, 640, row[0].(string), an.EBV[row[0].(string)]); row[3] != want {
			t.Errorf("animal: %s %s: %v, brute force %v", id, row[0], row[3], want)
		}
	}
	if len(a.EBVs) != len(an.EBV) || a.Percentiles.Via != "breed pass" || f.CallsOf("search") != searches {
		t.Errorf("animal: %d EBVs of %d, via %q, %d search pages read; want all from the kept pass", len(a.EBVs), len(an.EBV), a.Percentiles.Via, f.CallsOf("search")-searches)
	}
}
