package summarize

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// withIdentity gives generated search rows the sex, birth date and breed
// NSIP sends, in the spellings it uses (the summary writes M or F).
func withIdentity(v *nsip.SearchResults, breeds ...string) {
	sexes := []string{"Male", "Female", "1", "2", "M", "F"}
	for i := range v.Results {
		id, err := strconv.Atoi(breeds[i%len(breeds)])
		if err != nil {
			panic(err)
		}
		v.Results[i].Sex, v.Results[i].DateOfBirth, v.Results[i].BreedID = sexes[i%len(sexes)], "2/13/2024", id
	}
}

// TestSearchRowsCarryTheCallsTraits: without being asked, every row of a
// summarized search carries the sort trait and the trait_ranges traits
// (value and accuracy, null when NSIP gave none), sex as M or F whichever
// way NSIP spelled it, birth date, status, and breed when the page spans
// breeds.
func TestSearchRowsCarryTheCallsTraits(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(21)
	g.sparse = true
	v := g.search(60, 900, 0, 60)
	withIdentity(v, "640", "641")
	args := map[string]any{"page": 0, "page_size": 60, "sorted_trait": "WWT",
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"NLB": map[string]any{"min": -1e6, "max": 1e6}, "FEC": map[string]any{"min": -1e6, "max": 1e6}}}}
	req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}
	r, ok := fitCase(t, s, c, req, true)
	if !ok {
		t.Fatal("not summarized")
	}
	p := checkSearch(t, r.Text, v)
	for _, col := range []string{"breed", "WWT", "NLB", "FEC"} {
		if !slices.Contains(p.Columns, col) {
			t.Errorf("columns %v lack %s", p.Columns, col)
		}
	}
	if i := slices.Index(p.Columns, "WWT"); i > slices.Index(p.Columns, "NLB") {
		t.Errorf("the sort trait comes after the criteria: %v", p.Columns)
	}
	for i, row := range p.Rows {
		cells := byColumn(t, p, row)
		if want := []string{"M", "F"}[i%2]; str(t, cells["sex"]) != want {
			t.Errorf("row %d sex %s, want %s", i, cells["sex"], want)
		}
		if want := []string{"640", "641"}[i%2]; str(t, cells["breed"]) != want {
			t.Errorf("row %d breed %s, want %s", i, cells["breed"], want)
		}
	}
	if p.Shown < 10 {
		t.Errorf("only %d rows shown", p.Shown)
	}

	// One breed on the page: named once, no column.
	withIdentity(v, "640")
	r = s.Fit(req)
	p = checkSearch(t, r.Text, v)
	if slices.Contains(p.Columns, "breed") || p.Breed != "640" {
		t.Errorf("single-breed page: columns %v breed %q", p.Columns, p.Breed)
	}
}

// TestSearchRowsSayWhetherGenotyped: a page whose rows state it has a
// genotyped column, a row that does not is explained as not stated (never
// "not genotyped"), and a page that states it for none says so once.
func TestSearchRowsSayWhetherGenotyped(t *testing.T) {
	s, c := newTestSummarizer(t)
	v := newGen(22).search(60, 900, 0, 60)
	for i := range v.Results {
		v.Results[i].Genotyped = []string{"50K Genotyped", "", "HD Genotyped"}[i%3]
	}
	req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: map[string]any{"page": 0, "page_size": 60}}
	r, ok := fitCase(t, s, c, req, true)
	if !ok {
		t.Fatal("not summarized")
	}
	p := checkSearch(t, r.Text, v) // checks each cell against its row
	if !slices.Contains(p.Columns, "genotyped") || !strings.Contains(p.Genotyped, "not genotyped") {
		t.Errorf("columns %v, note %q: want a genotyped column and its empty cells explained", p.Columns, p.Genotyped)
	}
	for i := range v.Results {
		v.Results[i].Genotyped = ""
	}
	p = checkSearch(t, s.Fit(req).Text, v)
	if slices.Contains(p.Columns, "genotyped") || !strings.Contains(p.Genotyped, "not stated") {
		t.Errorf("columns %v, note %q: want no column and the absence said", p.Columns, p.Genotyped)
	}
}

// TestRequestedTraitsAreExactlyTheColumns: with traits asked for, rows
// carry those and no others, and shrink so that more of them fit.
func TestRequestedTraitsAreExactlyTheColumns(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(22)
	v := g.search(100, 1523, 0, 100)
	withIdentity(v, "640")
	auto := decode[pageOut](t, s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw}).Text)
	req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Traits: []string{"NLB", "WWT", "XYZ"}}
	r, _ := fitCase(t, s, c, req, true)
	p := checkSearch(t, r.Text, v)
	if got := strings.Join(p.Columns, ","); got != "lpn_id,sex,dob,status,NLB,WWT,XYZ" {
		t.Errorf("columns %s", got)
	}
	one := checkSearch(t, s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw, Traits: []string{"NLB"}}).Text, v)
	if one.Shown <= auto.Shown {
		t.Errorf("%d rows with one trait, %d with the default; rows should shrink", one.Shown, auto.Shown)
	}

	// Progeny: the same, and the statistics cover only those traits.
	pv := g.progeny("6400012020ABC001", 40, 40, 0, 40)
	r, _ = fitCase(t, s, c, Request{Kind: KindProgeny, Value: pv, Raw: pv.Raw, Traits: []string{"PWWT"}}, true)
	pp := decode[pageOut](t, r.Text)
	if got := strings.Join(pp.Columns, ","); got != "lpn_id,sex,dob,PWWT" || pp.Shown != 40 {
		t.Errorf("columns %s, %d rows shown of 40", got, pp.Shown)
	}
	if pp.TraitStats == nil || len(pp.TraitStats.Rows) != 1 || pp.TraitStats.Rows[0][0] != "PWWT" {
		t.Errorf("statistics %+v, want PWWT alone", pp.TraitStats)
	}
	// A page too long to show whole gives up rows, never requested traits.
	asked := []string{"BWT", "WWT", "PWWT", "NLB", "FEC"}
	big := g.progeny("6400012020ABC001", 100, 100, 0, 100)
	r, _ = fitCase(t, s, c, Request{Kind: KindProgeny, Value: big, Raw: big.Raw, Traits: asked}, true)
	pp = checkProgeny(t, r.Text, big, false)
	if got := strings.Join(pp.Columns[3:], ","); got != strings.Join(asked, ",") || pp.Shown == 0 || pp.Shown == 100 {
		t.Errorf("100 offspring with five traits asked: columns %v, %d shown", pp.Columns, pp.Shown)
	}
}

// TestProgenyCarriesEveryEBVThatFits: a page the budget holds whole with
// every trait shows them all; one it does not keeps every row and drops
// the least accurate traits first.
func TestProgenyCarriesEveryEBVThatFits(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(23)
	v := g.progeny("6400012020ABC001", 10, 25, 0, 10)
	r, _ := fitCase(t, s, c, Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Budget: 2000, Requested: true}, false)
	p := checkProgeny(t, r.Text, v, false)
	if len(p.Columns) != 3+len(nsip.TraitCodes) {
		t.Errorf("with room for everything: columns %v", p.Columns)
	}
	// The automatic path: 30% of the page, every row still shown.
	r, _ = fitCase(t, s, c, Request{Kind: KindProgeny, Value: v, Raw: v.Raw}, true)
	p = checkProgeny(t, r.Text, v, false)
	if p.Shown != 10 || len(p.Columns) == 3 {
		t.Fatalf("default page: %d rows shown, columns %v", p.Shown, p.Columns)
	}
	kept := p.Columns[3:]
	acc := map[string]float64{}
	for _, a := range v.Animals {
		for _, tr := range a.Traits {
			acc[tr.Code] += tr.Accuracy
		}
	}
	for code, sum := range acc {
		if slices.Contains(kept, code) {
			continue
		}
		for _, k := range kept {
			if acc[k] < sum {
				t.Errorf("%s (accuracy sum %v) dropped while %s (%v) kept", code, sum, k, acc[k])
			}
		}
	}
}

// TestSkipShowsTheRestOfThePage: the hint after part of a page is the
// same page skipping what was shown, and following it shows the next rows.
func TestSkipShowsTheRestOfThePage(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(24)
	v := g.search(100, 1523, 3, 100)
	args := map[string]any{"page": 3, "page_size": 100, "breed_id": 640}
	r, _ := fitCase(t, s, c, Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}, true)
	p := checkSearch(t, r.Text, v)
	if p.Shown >= 100 || p.ShownFrom != 301 || p.PageTo != 400 || argInt(p.Next.Arguments, "skip", 0) != p.Shown {
		t.Fatalf("shown %d from %d, page_to %d, next %+v", p.Shown, p.ShownFrom, p.PageTo, p.Next)
	}
	if r.Paging == nil || r.Paging.Page != 3 || r.Paging.TotalCount != 1523 || !equalJSON(r.Paging.Next, p.Next) {
		t.Errorf("paging %+v, want the summary's next %+v", r.Paging, p.Next)
	}
	req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: p.Next.Arguments, Skip: p.Shown}
	r2, _ := fitCase(t, s, c, req, true)
	p2 := checkSearch(t, r2.Text, v)
	if p2.ShownFrom != 301+p.Shown || str(t, p2.Rows[0][0]) != v.Results[p.Shown].LPNID {
		t.Errorf("the rest starts at %d (%s), want %d", p2.ShownFrom, p2.Rows[0][0], 301+p.Shown)
	}
}

func equalJSON(a, b any) bool { return string(mustJSON(a)) == string(mustJSON(b)) }

// TestProfileSpendsItsBudget: the profile summary shows the animal's EBVs
// beyond its top traits, its indexes and grandparents when they fit, and
// names every part it leaves out with the call that returns it.
func TestProfileSpendsItsBudget(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(25)
	v := g.profile(10, 4)
	for _, budget := range []int{2000, 700} {
		req := Request{Kind: KindProfile, Value: v, Raw: v.Raw, Budget: budget}
		r, _ := fitCase(t, s, c, req, true)
		p := decode[profileOut](t, r.Text)
		var full struct {
			Indexes map[string]float64 `json:"indexes"`
			Grand   [][]string         `json:"grandparents"`
		}
		_ = json.Unmarshal([]byte(r.Text), &full)
		omitted := map[string]omission{}
		for _, o := range p.Omitted {
			if o.Call == nil || o.Call.Tool == "" {
				t.Errorf("budget %d: %s left out without a call", budget, o.Part)
			}
			omitted[o.Part] = o
		}
		shownEBVs := len(p.EBVs) + len(p.Animal.TopTraits)
		if o, ok := omitted["ebvs"]; shownEBVs+o.Count != len(v.Details.Traits) {
			t.Errorf("budget %d: %d EBVs shown, %d counted out (%v), of %d", budget, shownEBVs, o.Count, ok, len(v.Details.Traits))
		}
		if _, ok := omitted["grandparents"]; !ok && len(full.Grand) != 4 {
			t.Errorf("budget %d: %d grandparents and none counted out", budget, len(full.Grand))
		}
		if o, ok := omitted["offspring"]; (ok && o.Count+p.Progeny.Shown != 10) || (!ok && p.Progeny.Shown != 10) {
			t.Errorf("budget %d: %d offspring shown, %d counted out", budget, p.Progeny.Shown, o.Count)
		}
		if budget == 2000 && (len(omitted) > 1 || len(full.Indexes) != 2) {
			t.Errorf("a 2000-token profile leaves out %v, indexes %v", p.Omitted, full.Indexes)
		}
		if budget == 700 && len(omitted) == 0 {
			t.Errorf("a 700-token profile leaves nothing out")
		}
	}
}
