package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A flock of 230 (three NSIP pages) with values chosen to be worked by
// hand: BWT = i mod 5, so 46 animals at each of 0..4, mean 2, squared
// deviations 46 (4+1+0+1+4) = 460, sample SD sqrt(460/229).
func TestFlockSummaryOverEveryPage(t *testing.T) {
	h := newHerd()
	for i := range 230 {
		b := h.get(fmt.Sprintf("640F%04d", i))
		b.flock = "640555"
		b.ebv = map[string][2]float64{"BWT": {float64(i % 5), 0.5}}
		if i%2 == 0 {
			b.sex = "Male"
		}
		b.dob = fmt.Sprintf("2/13/%d", 2020+i%3)
		if i < 10 {
			b.status = "SOLD"
		}
		if i < 3 {
			b.ebv["WWT"] = [2]float64{float64(i), 0.5} // 0, 1, 2
		}
	}
	for i := range 5 {
		h.get(fmt.Sprintf("640G%04d", i)).flock = "640556"
	}
	e := herdEnv(t, h)
	r := e.call("nsip_flock_summary", map[string]any{"flock_id": "640555"}).mustOK(t)
	var a struct {
		Animals  int            `json:"animals"`
		BySex    map[string]int `json:"by_sex"`
		ByStatus map[string]int `json:"by_status"`
		ByYear   map[string]int `json:"by_birth_year"`
		Traits   []struct {
			Trait   string   `json:"trait"`
			N       int      `json:"n"`
			Mean    float64  `json:"mean"`
			SD      float64  `json:"sd"`
			Min     float64  `json:"min"`
			MinIDs  []string `json:"min_lpn_ids"`
			MinMore int      `json:"min_more"`
			Max     float64  `json:"max"`
			MaxIDs  []string `json:"max_lpn_ids"`
		} `json:"traits"`
		Computed struct {
			Pages    int  `json:"pages"`
			Complete bool `json:"complete"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if a.Animals != 230 || a.BySex["male"] != 115 || a.BySex["female"] != 115 || a.ByStatus["SOLD"] != 10 || a.ByStatus["CURRENT"] != 220 {
		t.Errorf("counts: %d animals, sex %v, status %v", a.Animals, a.BySex, a.ByStatus)
	}
	if param.JSONText(a.ByYear) != `{"2020":77,"2021":77,"2022":76}` {
		t.Errorf("birth years %v, want 77 77 76 (i mod 3 over 0..229)", a.ByYear)
	}
	if len(a.Traits) != 2 || a.Traits[0].Trait != "BWT" {
		t.Fatalf("traits %+v", a.Traits)
	}
	b := a.Traits[0]
	if b.N != 230 || b.Mean != 2 || math.Abs(b.SD-math.Sqrt(460.0/229)) > 1e-4 || b.Min != 0 || b.Max != 4 {
		t.Errorf("BWT %+v, want n 230 mean 2 sd %.4f min 0 max 4", b, math.Sqrt(460.0/229))
	}
	if param.JSONText(b.MinIDs) != `["640F0000","640F0005","640F0010"]` || b.MinMore != 43 || b.MaxIDs[0] != "640F0004" {
		t.Errorf("BWT holders min %v (+%d) max %v", b.MinIDs, b.MinMore, b.MaxIDs)
	}
	// WWT 0, 1, 2 on three animals: mean 1, SD 1.
	if w := a.Traits[1]; w.Trait != "WWT" || w.N != 3 || w.Mean != 1 || w.SD != 1 {
		t.Errorf("WWT %+v, want n 3 mean 1 sd 1", w)
	}
	if a.Computed.Pages != 3 || !a.Computed.Complete || h.count("search/getPageOfSearchResults") != 3 {
		t.Errorf("read %d pages (complete %v), %d requests; want all 3", a.Computed.Pages, a.Computed.Complete, h.count("search/getPageOfSearchResults"))
	}
}

// Every glossary trait, half the flock at each extreme: three holders per
// end would pass the budget, so one is listed and the other 19 counted.
func TestFlockSummaryStaysWithinTheBudget(t *testing.T) {
	h := newHerd()
	codes := nsip.GlossaryCodes()
	for i := range 40 {
		b := h.get(fmt.Sprintf("640F%04d", i))
		b.flock = "640555"
		for _, c := range codes {
			b.ebv[c] = [2]float64{float64(i % 2), 0.5}
		}
	}
	e := herdEnv(t, h)
	r := e.call("nsip_flock_summary", map[string]any{"flock_id": "640555"}).mustOK(t)
	var a struct {
		Traits []struct {
			MinIDs  []string `json:"min_lpn_ids"`
			MinMore int      `json:"min_more"`
			MaxMore int      `json:"max_more"`
		} `json:"traits"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || r.meta["summarized"] != false {
		t.Fatalf("summarized %v (%v): %.300s", r.meta["summarized"], err, r.text)
	}
	if len(a.Traits) != len(codes) {
		t.Fatalf("%d traits, want %d", len(a.Traits), len(codes))
	}
	for _, tr := range a.Traits {
		if len(tr.MinIDs) != 1 || tr.MinMore != 19 || tr.MaxMore != 19 {
			t.Errorf("holders %+v, want one listed and 19 counted at each end", tr)
		}
	}
}

// The group is exactly one of flock_id, progeny_of and search; a call
// with none or two is refused naming them, before NSIP is asked.
func TestGroupSummaryNeedsExactlyOne(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{}, "flock_id"},
		{map[string]any{"flock_id": "640238", "search": map[string]any{"breed_id": 640}}, "flock_id"},
		{map[string]any{"progeny_of": nsiparg.ExampleLPN, "breed_id": 640}, "breed_id"},
	} {
		te := e.call("nsip_flock_summary", c.args).errorBody(t)
		if te.Code != toolerr.CodeInvalidArgument || te.Field != c.field || !strings.Contains(te.Problem+te.Expected, "progeny_of") || te.Example == nil {
			t.Errorf("%v: %+v, want invalid_argument on %s naming the three arguments, with an example", c.args, te, c.field)
		}
		// The example is a call that works: one group, breed_id only with a flock.
		n := 0
		for _, k := range []string{"flock_id", "progeny_of", "search"} {
			if _, ok := exampleOf(te.Example)[k]; ok {
				n++
			}
		}
		if _, ok := exampleOf(te.Example)["breed_id"]; n != 1 || ok && exampleOf(te.Example)["flock_id"] == nil {
			t.Errorf("%v: example %v is not a correct call", c.args, te.Example)
		}
	}
	if n := e.up.TotalRequests(); n != 0 {
		t.Errorf("%d requests to NSIP for refused calls", n)
	}
}

// NSIP promises no fixed evaluation: an analysis that read cached answers
// says how many and how old they may be, and one that fetched everything
// says nothing of it.
func TestAnalysisSaysWhatItReadFromTheCache(t *testing.T) {
	h := newHerd()
	for i := range 30 {
		h.get(fmt.Sprintf("640C%04d", i)).flock = "640557"
	}
	e := herdEnv(t, h)
	type up struct {
		Computed struct {
			Upstream struct {
				Lookups    int    `json:"lookups"`
				Cached     int    `json:"cached"`
				CachedNote string `json:"cached_note"`
			} `json:"upstream"`
		} `json:"computed"`
	}
	var first, second up
	for _, c := range []*up{&first, &second} {
		r := e.call("nsip_flock_summary", map[string]any{"flock_id": "640557"}).mustOK(t)
		if err := json.Unmarshal([]byte(r.text), c); err != nil {
			t.Fatal(err)
		}
	}
	if u := first.Computed.Upstream; u.Cached != 0 || u.CachedNote != "" {
		t.Errorf("first call: %+v; want nothing cached and no note", u)
	}
	u := second.Computed.Upstream
	want := fmt.Sprintf("the %d cached are up to 1h old: an NSIP evaluation published since is not in them", u.Lookups)
	if u.Cached != u.Lookups || u.Lookups == 0 || len(u.CachedNote) < len(want) || u.CachedNote[:len(want)] != want {
		t.Errorf("second call: %+v; want every lookup cached and the note %q", u, want)
	}
}
