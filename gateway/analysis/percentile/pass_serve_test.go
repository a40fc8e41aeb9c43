package percentile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// served is indexed(seed, n) with what a breed's animals differ in that
// the filters read: statuses living and not (and none), sexes NSIP spells
// out and ones it does not (and none), birth dates in NSIP's forms, and
// flocks and parents (or none).
func served(seed uint64, n int) *analysistest.FakeSource {
	f := analysistest.Indexed(seed, n)
	rng := rand.New(rand.NewPCG(seed, 3))
	dates := []string{"2/13/%d", "%d-03-01T00:00:00", "%d-04-20", ""}
	ids := slices.Sorted(maps.Keys(f.Animals))
	for _, id := range ids {
		a := f.Animals[id]
		a.Flock = []string{"640238", "640100", "640555", ""}[rng.IntN(4)]
		if rng.IntN(5) > 0 {
			a.Sire, a.Dam = ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
		}
		a.Status = []string{"CURRENT", "CURRENT", "SOLD", "DEAD", "CULL", ""}[rng.IntN(6)]
		if rng.IntN(15) == 0 {
			a.Sex = []string{"", "1"}[rng.IntN(2)]
		}
		if d := dates[rng.IntN(len(dates))]; d != "" {
			a.Born = fmt.Sprintf(d, 2015+rng.IntN(10))
		}
	}
	return f
}

// answerOf is an answer as a client reads it, less what says how it was
// read: the upstream's counts, the pages, the method and the pass.
func answerOf(t *testing.T, v map[string]any) string {
	t.Helper()
	c, _ := v["computed"].(map[string]any)
	c = maps.Clone(c)
	for _, k := range []string{"upstream", "pages", "method", "via", "breed_pass"} {
		delete(c, k)
	}
	w := maps.Clone(v)
	w["computed"] = c
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// viaOf is how an answer says its animals were read.
func viaOf(v map[string]any) (via, note string) {
	c, _ := v["computed"].(map[string]any)
	via, _ = c["via"].(string)
	note, _ = c["breed_pass"].(string)
	return via, note
}

// passQuestions are rankings by index, each with filters the pass holds
// to: none, one sex, a status, every living status asked for, rams for
// ewes' sake, another index.
var passQuestions = []map[string]any{
	{"index": "US Hair Index", "top_n": 50},
	{"index": "usHairIndex", "top_n": 10, "search_criteria": map[string]any{"gender": "Male"}},
	{"index": "SRC$ Index", "top_n": 25, "search_criteria": map[string]any{"status": "SOLD"}},
	{"index": "US Hair Index", "top_n": 30, "search_criteria": map[string]any{"gender": "Female", "status": "living"}},
	{"index": "SRC$ Index", "top_n": 20, "search_criteria": map[string]any{"gender": "Both", "status": "DEAD"}},
}

// Every ranking by index a kept pass answers is the ranking the pages
// give, to the last row, count and name left out, for breeds of 80, 650
// and 2,500 animals, and reads no search page.
func TestBreedPassRanksByIndexAsThePagesDo(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		n    int
	}{{21, 80}, {22, 650}, {23, 2500}} {
		t.Run(fmt.Sprint(c.n, " animals"), func(t *testing.T) {
			f := served(c.seed, c.n)
			src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
			// The first ranking reads the breed's pages and keeps them.
			var first map[string]any
			analysistest.MustRunSource(t, rank.Rank, src, map[string]any{"breed_id": 640, "index": "US Hair Index"}, &first)
			pages := (c.n + 99) / 100
			if via, note := viaOf(first); via != "search pages" || !strings.HasPrefix(note, "kept from these pages") || src.Stored != 1 || f.CallsOf("search") != pages {
				t.Fatalf("first ranking: via %q, breed_pass %q, %d kept, %d pages; want the pages read and kept", via, note, src.Stored, f.CallsOf("search"))
			}
			for _, q := range passQuestions {
				sent := maps.Clone(q)
				sent["breed_id"] = 640
				var want, got map[string]any
				analysistest.MustRun(t, rank.Rank, served(c.seed, c.n), sent, &want)
				before, lookups, records := f.CallsOf("search"), f.Lookups, f.CallsOf("details")
				analysistest.MustRunSource(t, rank.Rank, src, sent, &got)
				if via, note := viaOf(got); via != "breed pass" || !strings.HasPrefix(note, "kept from an earlier read") {
					t.Errorf("%v: via %q, breed_pass %q; want the kept pass", q, via, note)
				}
				// The ranked animals whose rows state no sex or genotyped
				// status have their records read, as from the pages.
				rec := f.CallsOf("details") - records
				if n, l := f.CallsOf("search")-before, f.Lookups-lookups; n != 0 || l != 1+rec || rec > q["top_n"].(int) {
					t.Errorf("%v: %d search pages and %d lookups (%d records); want none and the date and the ranked animals' records", q, n, l, rec)
				}
				if a, b := answerOf(t, got), answerOf(t, want); a != b {
					t.Errorf("%v: from the pass\n%s\nfrom the pages\n%s", q, a, b)
				}
				if top, _ := got["top"].([]any); len(top) == 0 {
					t.Errorf("%v: nothing ranked", q)
				}
			}
		})
	}
}

// The counts and statistics of a search of one breed that a kept pass
// answers are those its pages give, with a sex and a status asked or
// neither, for breeds of 80, 650 and 2,500 animals; a search the pass
// cannot hold rows to (a flock) reads its pages.
func TestBreedPassSummarizesAsThePagesDo(t *testing.T) {
	for _, c := range []struct {
		seed uint64
		n    int
	}{{31, 80}, {32, 650}, {33, 2500}} {
		t.Run(fmt.Sprint(c.n, " animals"), func(t *testing.T) {
			f := served(c.seed, c.n)
			src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
			breed := map[string]any{"search": map[string]any{"breed_id": 640}}
			var first map[string]any
			analysistest.MustRunSource(t, flock.FlockSummary, src, breed, &first)
			if via, note := viaOf(first); via != "search pages" || !strings.HasPrefix(note, "kept from these pages") || src.Stored != 1 {
				t.Fatalf("first summary: via %q, breed_pass %q, %d kept; want the pages read and kept", via, note, src.Stored)
			}
			for _, crit := range []map[string]any{nil, {"gender": "Male"}, {"status": "CURRENT"}, {"gender": "Female", "status": "DEAD"}} {
				sent := map[string]any{"search": map[string]any{"breed_id": 640}}
				if crit != nil {
					sent["search"].(map[string]any)["search_criteria"] = crit
				}
				var want, got map[string]any
				analysistest.MustRun(t, flock.FlockSummary, served(c.seed, c.n), sent, &want)
				before := f.CallsOf("search")
				analysistest.MustRunSource(t, flock.FlockSummary, src, sent, &got)
				if via, _ := viaOf(got); via != "breed pass" || f.CallsOf("search") != before {
					t.Errorf("%v: via %q, %d search pages; want the kept pass and none", crit, via, f.CallsOf("search")-before)
				}
				if a, b := answerOf(t, got), answerOf(t, want); a != b {
					t.Errorf("%v: from the pass\n%s\nfrom the pages\n%s", crit, a, b)
				}
				if a, b := groupTableOf(t, src, sent), groupTableOf(t, served(c.seed, c.n), sent); !reflect.DeepEqual(a, b) {
					t.Errorf("%v: the full table from the pass differs from the pages' but for the accuracies", crit)
				}
				if got["animals"].(float64) == 0 {
					t.Errorf("%v: no animals", crit)
				}
			}
			var fl map[string]any
			before := f.CallsOf("search")
			analysistest.MustRunSource(t, flock.FlockSummary, src, map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"flock_id": "640238"}}}, &fl)
			if via, _ := viaOf(fl); via != "search pages" || f.CallsOf("search") == before {
				t.Errorf("a flock's search: via %q; want its pages read", via)
			}
		})
	}
}

// A second ranking by index of the same breed under the same evaluation
// reads no search page: the first kept the breed's pages as its pass.
func TestBreedPassSecondIndexRankingReadsNoPage(t *testing.T) {
	f := served(24, 1523)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
	var a analysistest.RankIndexAnswer
	analysistest.MustRunSource(t, rank.Rank, src, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 5}, &a)
	first := f.CallsOf("search")
	if first != 16 || !a.Computed.Exact {
		t.Fatalf("first ranking read %d search pages, exact %v; want 16 and exact", first, a.Computed.Exact)
	}
	analysistest.MustRunSource(t, rank.Rank, src, map[string]any{"breed_id": 640, "index": "SRC$ Index", "top_n": 5, "search_criteria": map[string]any{"gender": "Male"}}, &a)
	if n := f.CallsOf("search") - first; n != 0 {
		t.Errorf("the second ranking read %d search pages, want none", n)
	}
	if want := analysistest.BruteIndexTop(f, 640, "Male", "SRC$ Index", 50); len(a.Top) != 5 || !a.Computed.Exact || a.Computed.Pages != 0 {
		t.Errorf("second ranking: %d rows, exact %v, %d pages; want 5, exact, none", len(a.Top), a.Computed.Exact, a.Computed.Pages)
	} else {
		// The usable rams of the brute-force order, as the ranking leaves
		// out those of a stated status other than CURRENT.
		var living []string
		for _, id := range want {
			if s := f.Animals[id].Status; s == "" || s == "CURRENT" {
				living = append(living, id)
			}
		}
		for i, row := range a.Top {
			if row[1] != living[i] {
				t.Errorf("rank %d: %v, brute force %s", i+1, row[1], living[i])
			}
		}
	}
}

// A breed of more pages than a ranking or a summary reads has its pass
// read in the background, and once it is kept the same questions are
// answered whole from it.
func TestBreedPassLargeBreedFilledThenServed(t *testing.T) {
	f := served(25, 3400)
	src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{Background: true}}
	var a analysistest.RankIndexAnswer
	sent := map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 5}
	var raw map[string]any
	analysistest.MustRunSource(t, rank.Rank, src, sent, &raw)
	analysistest.Decode(t, raw, &a)
	if _, note := viaOf(raw); a.Computed.Exact || len(src.Fills) != 1 || src.Fills[0] != breedpass.PassKey(640, "09/23/2025") || !strings.Contains(note, "background") {
		t.Fatalf("exact %v, fills %v, breed_pass %q; want inexact and the pass read in the background", a.Computed.Exact, src.Fills, note)
	}
	var fl map[string]any
	analysistest.MustRunSource(t, flock.FlockSummary, src, map[string]any{"search": map[string]any{"breed_id": 640}}, &fl)
	if _, note := viaOf(fl); len(src.Fills) != 2 || src.Fills[1] != src.Fills[0] || !strings.Contains(note, "background") {
		t.Errorf("summary: fills %v, breed_pass %q; want the background read asked for", src.Fills, note)
	}
	// The background read, as the gateway runs it.
	p, why, err := percentile.ReadBreedPass(t.Context(), f, analysistest.Discard(), 640, "09/23/2025", 0, nil)
	if err != nil || p == nil {
		t.Fatalf("background read: %v %s", err, why)
	}
	src.Keep(t.Context(), p)
	before := f.CallsOf("search")
	analysistest.MustRunSource(t, rank.Rank, src, sent, &raw)
	analysistest.Decode(t, raw, &a)
	want := analysistest.BruteIndexTop(f, 640, "", "US Hair Index", 5000)
	var living []string
	for _, id := range want {
		if s := f.Animals[id].Status; s != "DEAD" && s != "CULL" {
			living = append(living, id)
		}
	}
	if !a.Computed.Exact || a.Computed.Population != 3400 || f.CallsOf("search") != before || len(a.Top) != 5 {
		t.Fatalf("from the pass: exact %v, population %d, %d pages; want exact over 3400 and none", a.Computed.Exact, a.Computed.Population, f.CallsOf("search")-before)
	}
	for i, row := range a.Top {
		if row[1] != living[i] {
			t.Errorf("rank %d: %v, brute force %s", i+1, row[1], living[i])
		}
	}
	analysistest.MustRunSource(t, flock.FlockSummary, src, map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"status": "CURRENT"}}}, &fl)
	c := fl["computed"].(map[string]any)
	current := 0
	for _, an := range f.Animals {
		if an.Breed == 640 && an.Status == "CURRENT" {
			current++
		}
	}
	if c["complete"] != true || fl["animals"] != float64(current) || c["via"] != "breed pass" {
		t.Errorf("summary from the pass: complete %v, %v animals; want complete and %d", c["complete"], fl["animals"], current)
	}
}

// A kept pass encodes and decodes whole: every table and column, the
// indexes included.
func TestBreedPassCodecKeepsEverything(t *testing.T) {
	f := served(26, 300)
	p, _, err := percentile.ReadBreedPass(t.Context(), f, analysistest.Discard(), 640, "", 0, nil)
	if err != nil || p == nil {
		t.Fatal(err)
	}
	if len(p.IndexNames) != 2 || len(p.Dates) < 10 || len(p.Sexes) != 4 || len(p.Genotypes) != 2 {
		t.Errorf("indexes %v, %d dates, sexes %q, genotyped %q", p.IndexNames, len(p.Dates), p.Sexes, p.Genotypes)
	}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q breedpass.BreedPass
	if err := q.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for j := range p.IDs {
		if a, b := p.Row(j, true), q.Row(j, true); !reflect.DeepEqual(a, b) {
			t.Fatalf("animal %d: %+v, decoded %+v", j, a, b)
		}
	}
	if p.Bytes() < int64(len(b)) {
		t.Errorf("Bytes() %d under the encoding's %d", p.Bytes(), len(b))
	}
}

// No byte of an encoded pass, however changed, makes reading it panic;
// a pass of the first version, kept before the indexes were, is refused.
func TestBreedPassCorruptRefused(t *testing.T) {
	p, _, err := percentile.ReadBreedPass(t.Context(), served(27, 60), analysistest.Discard(), 640, "", 0, nil)
	if err != nil || p == nil {
		t.Fatal(err)
	}
	b, _ := p.MarshalBinary()
	for i := range b {
		for _, x := range []byte{0, 1, 0x7f, 0xff} {
			c := slices.Clone(b)
			c[i] = x
			var q breedpass.BreedPass
			if q.UnmarshalBinary(c) == nil {
				for j := range q.IDs {
					q.Row(j, true) // every entry named is in its table
				}
			}
		}
	}
	old := slices.Clone(b)
	old[0] = 1
	if err := new(breedpass.BreedPass).UnmarshalBinary(old); err == nil {
		t.Error("a pass of version 1 was read")
	}
	if _, err := (&breedpass.BreedPass{IDs: []string{"A"}}).MarshalBinary(); err == nil {
		t.Error("a pass with no column for its animal was encoded")
	}
}

// A ranking by index for ewes' sake (rams only, each ram's lambs' mean COI
// with the ewes, from the parents on his row) is the same from a kept pass
// as from the pages: the pass keeps each animal's sire and dam. Only how
// the COIs were computed differs: from the pass, over the breed's whole
// pedigree with no lineage read.
func TestBreedPassRanksForEwesAsThePagesDo(t *testing.T) {
	for _, seed := range []uint64{2, 5} {
		f := analysistest.Kin(seed)
		src := analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}
		var first map[string]any
		analysistest.MustRunSource(t, rank.Rank, src, map[string]any{"breed_id": 640, "index": "US Hair Index"}, &first)
		sent := map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 4, "for_ewes": analysistest.AnyList(analysistest.YoungEwes(f, 5)), "max_mean_coi": 0.02}
		var want, got map[string]any
		analysistest.MustRun(t, rank.Rank, analysistest.Kin(seed), sent, &want)
		before := f.CallsOf("search")
		analysistest.MustRunSource(t, rank.Rank, src, sent, &got)
		if via, _ := viaOf(got); via != "breed pass" || f.CallsOf("search") != before {
			t.Errorf("seed %d: via %q, %d search pages; want the kept pass and none", seed, via, f.CallsOf("search")-before)
		}
		fe, _ := got["for_ewes"].(map[string]any)
		if fe["via"] == nil || fe["lineages_read"] != 0.0 {
			t.Errorf("seed %d: for_ewes via %v, %v lineages read; want the breed's pedigree and none", seed, fe["via"], fe["lineages_read"])
		}
		for _, v := range []map[string]any{got, want} {
			fe := maps.Clone(v["for_ewes"].(map[string]any))
			for _, k := range []string{"via", "lineages_read", "method"} {
				delete(fe, k)
			}
			v["for_ewes"] = fe
		}
		if a, b := answerOf(t, got), answerOf(t, want); a != b {
			t.Errorf("seed %d: from the pass\n%s\nfrom the pages\n%s", seed, a, b)
		}
	}
}

// groupTableOf is the full table of a group summary, less the accuracies
// (a pass keeps none).
func groupTableOf(t *testing.T, src analysis.Source, sent map[string]any) [][]any {
	t.Helper()
	args, errs := flock.FlockSummary.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v, err := analysis.Run(t.Context(), flock.FlockSummary, src, analysistest.Discard(), param.SentOf(sent), args)
	if err != nil {
		t.Fatal(err)
	}
	tb := v.(*full.Answer).Table
	out := [][]any{{}}
	for i, c := range tb.Columns {
		if !strings.HasSuffix(c, "_acc") {
			out[0] = append(out[0], c)
			for j, row := range tb.Rows {
				if len(out) <= j+1 {
					out = append(out, nil)
				}
				out[j+1] = append(out[j+1], row[i])
			}
		}
	}
	return out
}

// A pass answers a search of a sex and a status only; a search of any
// other criterion reads its pages, and only a search of nothing is the
// breed's own pages, which are kept as its pass.
func TestBreedPassCriteriaItHolds(t *testing.T) {
	for _, c := range []struct {
		crit        *nsiparg.Criteria
		holds, wide bool
		want        breedpass.PassFilter
	}{
		{nil, true, true, breedpass.PassFilter{}},
		{&nsiparg.Criteria{}, true, true, breedpass.PassFilter{}},
		{&nsiparg.Criteria{Gender: "Both"}, true, false, breedpass.PassFilter{}},
		{&nsiparg.Criteria{Gender: "Male", Status: "CURRENT"}, true, false, breedpass.PassFilter{Sex: "Male", Status: "CURRENT"}},
		{&nsiparg.Criteria{BornAfter: "2020-01-01"}, false, false, breedpass.PassFilter{}},
		{&nsiparg.Criteria{Gender: "Female", FlockID: "640238"}, false, false, breedpass.PassFilter{}},
		{&nsiparg.Criteria{ProvenOnly: true}, false, false, breedpass.PassFilter{}},
		{&nsiparg.Criteria{TraitRanges: map[string]nsip.Range{"BWT": {Min: 0, Max: 1}}}, false, false, breedpass.PassFilter{}},
		{&nsiparg.Criteria{BreedID: 640}, false, false, breedpass.PassFilter{}},
	} {
		f, ok := breedpass.PassFilterOf(c.crit)
		if ok != c.holds || f != c.want || breedpass.BreedWide(c.crit) != c.wide {
			t.Errorf("%+v: filter %+v %v, breed-wide %v; want %+v %v, %v", c.crit, f, ok, breedpass.BreedWide(c.crit), c.want, c.holds, c.wide)
		}
	}
}

// holdPasses keep passes and say, without a lookup, whether they keep
// one of a breed (Holds), as the gateway's store does.
type holdPasses struct{ *analysistest.MemPasses }

func (h holdPasses) Holds(_ context.Context, breed int) bool {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	for k := range h.Kept {
		if strings.HasPrefix(k, fmt.Sprintf(`breed_pass:{"breed_id":%d,`, breed)) {
			return true
		}
	}
	return false
}

// A summary of a breed no pass is kept of reads its pages and no date,
// as before passes: the lookups of the pages alone, none kept. Once a
// ranking by index has kept the breed's pass, the same summary reads the
// date and no page.
func TestBreedPassSummaryReadsNoDateWithoutAPass(t *testing.T) {
	f := served(41, 650)
	kept := &analysistest.MemPasses{}
	f.Store = holdPasses{kept}
	sent := map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Male"}}}
	var cold map[string]any
	analysistest.MustRunSource(t, flock.FlockSummary, f, sent, &cold)
	if via, _ := viaOf(cold); via != "search pages" || f.CallsOf("evaluation") != 0 || f.Lookups != f.CallsOf("search") || kept.Stored != 0 {
		t.Fatalf("cold summary: via %q, %d date reads, %d lookups for %d pages, %d kept; want its pages alone", via, f.CallsOf("evaluation"), f.Lookups, f.CallsOf("search"), kept.Stored)
	}
	analysistest.MustRunSource(t, rank.Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 5}, &map[string]any{})
	if kept.Stored != 1 {
		t.Fatalf("the ranking kept %d passes, want the breed's", kept.Stored)
	}
	lookups, pages := f.Lookups, f.CallsOf("search")
	var warm map[string]any
	analysistest.MustRunSource(t, flock.FlockSummary, f, sent, &warm)
	if via, _ := viaOf(warm); via != "breed pass" || f.CallsOf("search") != pages || f.Lookups != lookups+1 {
		t.Errorf("summary after the pass was kept: via %q, %d pages, %d lookups; want the pass, no page, the date alone", via, f.CallsOf("search")-pages, f.Lookups-lookups)
	}
	if a, b := answerOf(t, warm), answerOf(t, cold); a != b {
		t.Errorf("from the pass\n%s\nfrom the pages\n%s", a, b)
	}
}
