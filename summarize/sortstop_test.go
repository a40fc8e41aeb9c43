package summarize

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// wwtPage is page `page` of 100 rows of a search sorted by WWT with WWT at
// least 1.5, NSIP counting 1000 rows: the WWTs fall by 0.01 a row from
// start, so which rows meet the bound depends on where the page sits.
func wwtPage(start float64, page int, reverse bool) (*nsip.SearchResults, map[string]any) {
	g := newGen(9)
	v := g.search(100, 1000, page, 100)
	for i := range v.Results {
		w := start - 0.01*float64(i)
		if reverse {
			w = start + 0.01*float64(i)
		}
		v.Results[i].Traits = []nsip.Trait{{Code: "WWT", Value: w, Accuracy: 70, HasAccuracy: true}}
	}
	v.Raw = g.searchRaw(v)
	bound := map[string]any{"min": 1.5}
	if reverse {
		bound = map[string]any{"max": 1.5}
	}
	args := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "reverse": reverse, "page": page, "page_size": 100,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": bound}}}
	return v, args
}

// TestSortedBoundedSearchStopsOfferingNext: a page sorted by WWT highest
// first whose rows fall below the asked minimum WWT 1.5 offers no next
// call, in the summary and in Paging (what _meta reports), and says why,
// naming the first row past the bound; a page whose last row still meets
// it offers the next page as before, and so does a page sorted lowest
// first against a maximum until it passes it.
func TestSortedBoundedSearchStopsOfferingNext(t *testing.T) {
	s, c := newTestSummarizer(t)
	// Page 1: positions 101-200, WWT 2.0 down to 1.01; position 151 has 1.5,
	// 152 has 1.49.
	v, args := wwtPage(2.0, 1, false)
	req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 8000, Requested: true, Traits: []string{"WWT"}}
	r := s.Fit(req)
	checkResult(t, c, req, r)
	p := decode[pageOut](t, r.Text)
	if p.Next != nil || r.Paging == nil || r.Paging.Next != nil {
		t.Fatalf("next %+v, Paging %+v: want none, no row after 1.49 can reach 1.5", p.Next, r.Paging)
	}
	for _, why := range []string{p.NextWithheld, r.Paging.NextWithheld} {
		if !strings.Contains(why, "sorted by WWT highest first") || !strings.Contains(why, "row 152 ("+v.Results[51].LPNID+") has WWT 1.49, below the minimum 1.5") {
			t.Errorf("next_withheld %q: want the order and the first row past the bound", why)
		}
	}
	if p.Shown != 51 || p.Contradicting == nil || p.Contradicting.Count != 49 {
		t.Errorf("shown %d, contradicting %+v: want the 51 rows meeting the bound and 49 left out", p.Shown, p.Contradicting)
	}

	// The same page small enough to pass through: _meta withholds next too.
	small, sargs := wwtPage(1.52, 0, false)
	small.Results, small.TotalCount = small.Results[:4], 1000
	small.Raw = newGen(9).searchRaw(small)
	sargs["page_size"] = 4
	r = s.Fit(Request{Kind: KindSearch, Value: small, Raw: small.Raw, Args: sargs})
	// 1.52, 1.51 and 1.5 meet the bound; row 4's 1.49 is the first past it.
	if r.Summarized || r.Paging.Next != nil || !strings.Contains(r.Paging.NextWithheld, "row 4 ("+small.Results[3].LPNID+") has WWT 1.49") {
		t.Errorf("pass-through: summarized %v, Paging %+v: want no next, row 4 named", r.Summarized, r.Paging)
	}

	// Every row meets the bound: the next page is offered, nothing withheld.
	v, args = wwtPage(3.0, 0, false)
	r = s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 8000, Requested: true, Traits: []string{"WWT"}})
	if r.Paging.Next == nil || argInt(r.Paging.Next.Arguments, "page", -1) != 1 || r.Paging.NextWithheld != "" {
		t.Errorf("page of WWT 3.0 to 2.01: Paging %+v, want page 1 offered", r.Paging)
	}

	// Lowest first against a maximum of 1.5: rows from 1.51 on cannot match.
	v, args = wwtPage(1.0, 0, true)
	r = s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 8000, Requested: true, Traits: []string{"WWT"}})
	if r.Paging.Next != nil || !strings.Contains(r.Paging.NextWithheld, "lowest first, and row 52 ("+v.Results[51].LPNID+") has WWT 1.51, above the maximum 1.5") {
		t.Errorf("ascending past the maximum: Paging %+v", r.Paging)
	}

	// Unsorted values prove nothing: the next page stays.
	v, args = wwtPage(2.0, 1, false)
	v.Results[0].Traits[0].Value, v.Results[1].Traits[0].Value = 1.0, 1.9
	v.Raw = newGen(9).searchRaw(v)
	r = s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 8000, Requested: true, Traits: []string{"WWT"}})
	if r.Paging.Next == nil || r.Paging.NextWithheld != "" {
		t.Errorf("page in no order: Paging %+v, want the next page offered", r.Paging)
	}
}

// TestSortStopKeepsTheRestOfAPageShownInPart: a summary too small for the
// page's matching rows still offers the rest of the page (skip); only a
// call that would start past the bound is withheld.
func TestSortStopKeepsTheRestOfAPageShownInPart(t *testing.T) {
	s, c := newTestSummarizer(t)
	v, args := wwtPage(2.0, 1, false)
	skip, calls := 0, 0
	for {
		req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 1200, Requested: true, Traits: []string{"WWT"}, Skip: skip}
		r := s.Fit(req)
		checkResult(t, c, req, r)
		p := decode[pageOut](t, r.Text)
		if calls++; calls > 60 {
			t.Fatal("the page's next calls never ended")
		}
		if p.Next == nil {
			if p.ShownTo != 151 || !strings.Contains(p.NextWithheld, "row 152") {
				t.Errorf("last summary shows to %d, withheld %q: want to 151, then no next", p.ShownTo, p.NextWithheld)
			}
			break
		}
		if p.NextWithheld != "" || argInt(p.Next.Arguments, "page", -1) != 1 {
			t.Fatalf("next %+v beside next_withheld %q", p.Next, p.NextWithheld)
		}
		skip = argInt(p.Next.Arguments, "skip", 0)
	}
	if calls < 2 {
		t.Error("the page fitted in one summary: the calls within the page were not exercised")
	}
}

// TestSortedBoundedSearchCountsWhatItProves: NSIP counts 1000 rows, those
// it did not filter by the WWT bound included. Page 0 (WWT 3.0 down to
// 2.01, all within) proves at least 100; page 1 (2.0 down to 1.01, the
// first below 1.5 at position 152) proves 151, the count itself; a page
// in no order proves nothing and keeps NSIP's count, saying what it is;
// a search without the bound keeps NSIP's count, unremarked. In the
// summary and in Paging alike.
func TestSortedBoundedSearchCountsWhatItProves(t *testing.T) {
	s, _ := newTestSummarizer(t)
	shuffled := func(v *nsip.SearchResults) {
		v.Results[0].Traits, v.Results[50].Traits = v.Results[50].Traits, v.Results[0].Traits
	}
	cases := []struct {
		name    string
		start   float64
		page    int
		mix     func(*nsip.SearchResults)
		bounded bool
		total   int
		note    string
	}{
		{"first page", 3.0, 0, nil, true, 100, "at least: rows 1 to 100 meet the WWT bound"},
		{"page past the bound", 2.0, 1, nil, true, 151, "the rows that meet the WWT bound"},
		{"no order", 3.0, 0, shuffled, true, 1000, "NSIP's count, which includes any rows it did not filter"},
		{"no bound", 3.0, 0, nil, false, 1000, ""},
	}
	for _, c := range cases {
		v, args := wwtPage(c.start, c.page, false)
		if c.mix != nil {
			c.mix(v)
			v.Raw = newGen(9).searchRaw(v)
		}
		if !c.bounded {
			delete(args, "search_criteria")
		}
		// Summarized as asked (traits), and passed through whole.
		for _, req := range []Request{
			{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 8000, Requested: true, Traits: []string{"WWT"}},
			{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 25000},
		} {
			r, budget := s.Fit(req), req.Budget
			if r.Paging == nil || r.Paging.TotalCount != c.total || !strings.HasPrefix(r.Paging.TotalCountNote, c.note) || (c.note == "") != (r.Paging.TotalCountNote == "") {
				t.Errorf("%s, budget %d: Paging %+v; want total_count %d, note %q", c.name, budget, r.Paging, c.total, c.note)
			}
			if r.Summarized != (len(req.Traits) > 0) {
				t.Errorf("%s, budget %d: summarized %v", c.name, budget, r.Summarized)
			}
			if r.Summarized {
				p := decode[struct {
					TotalCount int    `json:"total_count"`
					Note       string `json:"total_count_note"`
				}](t, r.Text)
				if p.TotalCount != c.total || p.Note != r.Paging.TotalCountNote {
					t.Errorf("%s, budget %d: summary's total_count %d, note %q; want Paging's", c.name, budget, p.TotalCount, p.Note)
				}
			}
		}
	}
}
