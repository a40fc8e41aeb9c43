package gateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

type rankAnswer struct {
	Columns  []string `json:"columns"`
	Rows     [][]any  `json:"top"`
	Top      []rankRow
	Unranked string   `json:"unranked"`
	Warnings []string `json:"warnings"`
	Computed struct {
		Exact       bool   `json:"exact"`
		Stopped     string `json:"stopped"`
		AnimalsRead int    `json:"animals_read"`
		Population  int    `json:"population"`
		Method      string `json:"method"`
	} `json:"computed"`
}

// rankHerd is 350 Katahdins with WWT spread over 0..10 and BWT over -1..1,
// five of them without BWT, plus 20 animals of another breed with higher
// WWT that must not appear.
func rankHerd(desc bool) (*herd, map[string][2]float64) {
	h := newHerd()
	h.sortDesc = desc
	r := rand.New(rand.NewPCG(3, 9))
	all := map[string][2]float64{}
	for i := range 350 {
		b := h.get(fmt.Sprintf("640R%04d", i))
		wwt, bwt := math.Round(r.Float64()*1e4)/1e3, math.Round((r.Float64()*2-1)*1e3)/1e3
		b.ebv = map[string][2]float64{"WWT": {wwt, 0.7}, "BWT": {bwt, 0.8}}
		if i%70 == 0 {
			delete(b.ebv, "BWT")
			continue
		}
		all[b.id] = [2]float64{wwt, bwt}
	}
	for i := range 20 {
		b := h.get(fmt.Sprintf("641X%04d", i))
		b.breed, b.ebv = 641, map[string][2]float64{"WWT": {50, 0.9}, "BWT": {0, 0.9}}
	}
	return h, all
}

// The expected top ten is brute force: every indexed animal's
// WWT - 0.5 BWT, sorted, first ten.
func TestRankAnimalsExactTopN(t *testing.T) {
	for _, desc := range []bool{true, false} {
		t.Run(fmt.Sprintf("NSIP sorts descending=%v", desc), func(t *testing.T) {
			h, all := rankHerd(desc)
			type s struct {
				id string
				v  float64
			}
			var want []s
			for id, e := range all {
				want = append(want, s{id, e[0] - 0.5*e[1]})
			}
			slices.SortFunc(want, func(a, b s) int {
				if a.v != b.v {
					if a.v > b.v {
						return -1
					}
					return 1
				}
				return strings.Compare(a.id, b.id)
			})
			e := herdEnv(t, h)
			r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"wwt": 1, "BWT": -0.5}}).mustOK(t)
			a := decodeRank(t, r.text)
			if len(a.Top) != 10 {
				t.Fatalf("%d rows, want 10: %s", len(a.Top), r.text)
			}
			for i, row := range a.Top {
				if row.LPNID != want[i].id || math.Abs(row.Index-want[i].v) > 1e-4 || row.Rank != i+1 {
					t.Errorf("rank %d: %s %v, brute force %s %v", i+1, row.LPNID, row.Index, want[i].id, want[i].v)
				}
			}
			if param.JSONText(a.Columns) != `["rank","lpn_id","index","sex","status","birth_year","genotyped","WWT","WWT_acc","BWT","BWT_acc"]` {
				t.Errorf("columns %v", a.Columns)
			}
			if ebv := a.Top[0].EBV["WWT"]; ebv[0] != all[a.Top[0].LPNID][0] || ebv[1] != 70 {
				t.Errorf("top row's WWT %v, want value %v accuracy 70", ebv, all[a.Top[0].LPNID][0])
			}
			// WWT's spread dwarfs BWT's, so the bound stops after the first
			// useful page; with NSIP ascending, the first page was the wrong
			// end and the reversed one is read as well.
			wantReqs := map[bool]int{true: 1, false: 2}[desc]
			if !a.Computed.Exact || a.Computed.Stopped != "bound" || h.count("search/getPageOfSearchResults") != wantReqs || a.Computed.AnimalsRead != 100 {
				t.Errorf("computed %+v after %d search requests; want exact by the bound after %d", a.Computed, h.count("search/getPageOfSearchResults"), wantReqs)
			}
			if a.Computed.Population != 350 {
				t.Errorf("population %d, want 350 Katahdins", a.Computed.Population)
			}
		})
	}
}

// Whatever page the bound stops at, the answer must be brute force's, for
// several indexes and sizes; a weight against a trait's usual direction is
// allowed and warned about.
func TestRankAnimalsMatchesBruteForceAcrossIndexes(t *testing.T) {
	h, all := rankHerd(true)
	e := herdEnv(t, h)
	for _, c := range []struct {
		wwt, bwt float64
		n        int
	}{{1, 2, 3}, {0.2, -1, 25}, {1, -4, 50}, {-1, 0.1, 5}} {
		r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "top_n": c.n, "weights": map[string]any{"BWT": c.bwt, "WWT": c.wwt}}).mustOK(t)
		a := decodeRank(t, r.text)
		var want []float64
		for _, v := range all {
			want = append(want, c.wwt*v[0]+c.bwt*v[1])
		}
		slices.Sort(want)
		slices.Reverse(want)
		if len(a.Top) != c.n || !a.Computed.Exact {
			t.Fatalf("%+v: %d rows, exact %v: %s", c, len(a.Top), a.Computed.Exact, r.text)
		}
		for i, row := range a.Top {
			got := c.wwt*all[row.LPNID][0] + c.bwt*all[row.LPNID][1]
			if math.Abs(got-want[i]) > 1e-9 || math.Abs(row.Index-want[i]) > 1e-4 {
				t.Errorf("%+v rank %d: %s index %v, brute force %v", c, i+1, row.LPNID, row.Index, want[i])
			}
		}
		wantWarn := 0
		if c.bwt > 0 {
			wantWarn++ // lower BWT is preferred
		}
		if c.wwt < 0 {
			wantWarn++ // higher WWT is preferred
		}
		if len(a.Warnings) != wantWarn {
			t.Errorf("%+v: warnings %q, want %d", c, a.Warnings, wantWarn)
		}
		if r.meta["summarized"] != false {
			t.Errorf("%+v: a top %d was summarized (%v tokens)", c, c.n, r.meta["original_tokens"])
		}
		t.Logf("%+v: stopped %s after %d animals", c, a.Computed.Stopped, a.Computed.AnimalsRead)
	}
}

func TestRankAnimalsRefusesTraitsItCannotUse(t *testing.T) {
	h, _ := rankHerd(true)
	e := herdEnv(t, h)
	te := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWTT": 1}}).errorBody(t)
	if te.Field != "weights.WWTT" || !strings.Contains(te.Problem, `did you mean "WWT"`) {
		t.Errorf("misspelt trait: %+v", te)
	}
	te = e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"YWT": 1}}).errorBody(t)
	if te.Field != "weights.YWT" || !strings.Contains(te.Problem, "breed 640 has no EBV for YWT") || !strings.Contains(te.Expected, "BWT, WWT") {
		t.Errorf("trait the breed lacks: %+v", te)
	}
	// The weight goes to the breed's trait nearest in meaning, in the
	// did-you-mean and in the example, which never repeats YWT.
	if !strings.HasSuffix(te.Problem, `did you mean "WWT" (weaning weight (direct))?`) || param.JSONText(exampleOf(te.Example)["weights"]) != `{"WWT":1}` {
		t.Errorf("trait the breed lacks: problem %q, example %s", te.Problem, param.JSONText(te.Example))
	}
	// A weight of 0 adds nothing to the index yet would leave out every
	// animal without that EBV (five of rankHerd's lack BWT), so it is
	// refused before any lookup rather than taken as "ignore this trait".
	searches := h.count("search/getPageOfSearchResults")
	te = e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1, "BWT": 0}}).errorBody(t)
	if te.Field != "weights.BWT" || !strings.Contains(te.Problem, "weight of 0") || h.count("search/getPageOfSearchResults") != searches {
		t.Errorf("zero weight: %+v", te)
	}
}

type rankRow struct {
	Rank  int
	LPNID string
	Index float64
	EBV   map[string][2]float64
}

// decodeRank reads the answer's rows through its column header.
func decodeRank(t *testing.T, text string) rankAnswer {
	t.Helper()
	var a rankAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil || len(a.Columns) < 3 {
		t.Fatalf("not a ranking (%v): %.500s", err, text)
	}
	for _, r := range a.Rows {
		row := rankRow{Rank: int(r[0].(float64)), LPNID: r[1].(string), Index: r[2].(float64), EBV: map[string][2]float64{}}
		for i := 7; i+1 < len(r); i += 2 {
			v, _ := r[i].(float64)
			acc, _ := r[i+1].(float64)
			row.EBV[a.Columns[i]] = [2]float64{v, acc}
		}
		a.Top = append(a.Top, row)
	}
	return a
}

func TestRankAnimalsUnknownBreed(t *testing.T) {
	h, _ := rankHerd(true)
	e := herdEnv(t, h)
	te := e.call("nsip_rank_animals", map[string]any{"breed_id": 999, "weights": map[string]any{"WWT": 1}}).errorBody(t)
	if te.Field != "breed_id" || !strings.Contains(te.Problem, "no trait ranges for breed 999") {
		t.Errorf("breed without animals: %+v", te)
	}
	if n := h.count("search/getPageOfSearchResults"); n != 0 {
		t.Errorf("%d searches for a breed that cannot be ranked", n)
	}
}

// A first page whose sort values are all equal shows no order; when the
// next page shows NSIP going the wrong way, the ranking starts again
// reversed (the reverse was never tried) and still stops by the bound.
// Worked by hand: 150 animals share WWT 0, so NSIP's ascending first page
// is flat and its second rises; the 200 others have WWT in 1..10 and BWT in
// -1..1, so the best index WWT - 0.5 BWT is near 10 while the 100th WWT of
// the reversed first page (about 5.5) plus 0.5 leaves the rest out.
func TestRankAnimalsReversesAfterAFlatFirstPage(t *testing.T) {
	h := newHerd()
	r := rand.New(rand.NewPCG(21, 4))
	all := map[string]float64{}
	for i := range 350 {
		b := h.get(fmt.Sprintf("640F%04d", i))
		wwt, bwt := 0.0, math.Round((r.Float64()*2-1)*1e3)/1e3
		if i >= 150 {
			wwt = 1 + math.Round(r.Float64()*9e3)/1e3
		}
		b.ebv = map[string][2]float64{"WWT": {wwt, 0.7}, "BWT": {bwt, 0.8}}
		all[b.id] = wwt - 0.5*bwt
	}
	e := herdEnv(t, h)
	res := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "top_n": 5, "weights": map[string]any{"WWT": 1, "BWT": -0.5}}).mustOK(t)
	a := decodeRank(t, res.text)
	if len(a.Top) != 5 {
		t.Fatalf("%d rows, want 5: %s", len(a.Top), res.text)
	}
	ids := slices.Collect(maps.Keys(all))
	slices.SortFunc(ids, func(x, y string) int { return cmp.Compare(all[y], all[x]) })
	for i, row := range a.Top {
		if row.LPNID != ids[i] || math.Abs(row.Index-all[ids[i]]) > 1e-4 {
			t.Errorf("rank %d: %s %v, brute force %s %v", i+1, row.LPNID, row.Index, ids[i], all[ids[i]])
		}
	}
	// Two ascending pages, then the reversed first page.
	if n := h.count("search/getPageOfSearchResults"); !a.Computed.Exact || a.Computed.Stopped != "bound" || n != 3 ||
		!strings.Contains(a.Computed.Method, "observed descending") {
		t.Errorf("computed %+v after %d search requests; want exact by the bound after 3, observed descending", a.Computed, n)
	}
}

// Ranked by NSIP's own index through the whole call path against the
// stand-in, whose rows carry usHairIndex and genotyped: the top five rams
// are those of a brute-force reading of its data.
func TestRankByNSIPIndexThroughTheStandIn(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 5,
		"search_criteria": map[string]any{"gender": "Male"}}).mustOK(t)
	var a struct {
		Index    string  `json:"index"`
		Top      [][]any `json:"top"`
		Computed struct {
			Exact bool `json:"exact"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	type s struct {
		id, geno string
		v        float64
	}
	var want []s
	d := e.up.Data()
	for _, id := range d.AnimalIDs() {
		an, _ := d.Animal(id)
		if an.BreedID != 640 || an.Gender != "Male" || unusable(an.Status) {
			continue
		}
		for _, ix := range an.Indexes {
			if ix.Name == "US Hair Index" {
				want = append(want, s{id, an.Genotyped, ix.Value})
			}
		}
	}
	slices.SortFunc(want, func(x, y s) int { return cmp.Or(cmp.Compare(y.v, x.v), strings.Compare(x.id, y.id)) })
	if !a.Computed.Exact || a.Index != "US Hair Index" || len(a.Top) != 5 {
		t.Fatalf("index %q exact %v, %d rows: %.400s", a.Index, a.Computed.Exact, len(a.Top), r.text)
	}
	for i, row := range a.Top {
		var geno any
		if want[i].geno != "" {
			geno = want[i].geno
		}
		if row[1] != want[i].id || row[2] != want[i].v || row[3] != "Male" || row[4] != "CURRENT" || row[6] != geno {
			t.Errorf("rank %d = %v, want %s %v genotyped %v", i+1, row, want[i].id, want[i].v, geno)
		}
	}
}

// Search rows that do not state genotyped (NSIP's live rows carry it in
// details only): ranked rows show each animal's record's status and say
// so, and a summarized search page says once that its rows do not state
// it, rather than "not genotyped".
func TestGenotypedUnstatedInSearchRows(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 3}).mustOK(t)
	var a struct {
		Top         [][]any `json:"top"`
		Genotyped   string  `json:"genotyped"`
		FromRecords string  `json:"from_records"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || len(a.Top) != 3 {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	for _, row := range a.Top {
		an, _ := e.up.Data().Animal(row[1].(string))
		var want any = an.Genotyped
		if an.Genotyped == "" {
			want = nil
		}
		if row[6] != want || row[3] != an.Gender {
			t.Errorf("row %v: sex %v, genotyped %v; the record says %s, %q", row, row[3], row[6], an.Gender, an.Genotyped)
		}
	}
	if !strings.Contains(a.FromRecords, "3 of the 3 ranked animals read from each one's record") {
		t.Errorf("from_records %q", a.FromRecords)
	}
	s := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 100}).mustOK(t)
	var p struct {
		Columns   []string `json:"columns"`
		Genotyped string   `json:"genotyped"`
	}
	if err := json.Unmarshal([]byte(s.text), &p); err != nil || slices.Contains(p.Columns, "genotyped") || !strings.Contains(p.Genotyped, "not stated") {
		t.Errorf("search summary: columns %v, genotyped %q (%v)", p.Columns, p.Genotyped, err)
	}
	e.up.SetRichRows(true) // rows that state it, on a page not yet cached
	s = e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 90, "page": 1}).mustOK(t)
	if err := json.Unmarshal([]byte(s.text), &p); err != nil || !slices.Contains(p.Columns, "genotyped") {
		t.Errorf("rows stating it: columns %v (%v)", p.Columns, err)
	}
}
