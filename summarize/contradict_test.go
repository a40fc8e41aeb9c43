package summarize

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// searchForRams is a page of 60 rows answering a search for Katahdin rams
// (breed 640) with WWT at most 1.5, in which NSIP ignored part of it: odd
// rows are ewes, every third row is breed 641, and some WWTs pass 1.5.
func searchForRams() (*nsip.SearchResults, map[string]any) {
	g := newGen(5)
	v := g.search(60, 240, 0, 60)
	withIdentity(v, "640", "640", "641") // sexes alternate Male, Female, …
	args := map[string]any{"page": 0, "page_size": 60, "breed_id": 640,
		"search_criteria": map[string]any{"gender": "Male", "trait_ranges": map[string]any{"WWT": map[string]any{"min": -1e6, "max": 1.5}}}}
	return v, args
}

// wantKept lists the rows of v that are Katahdin rams with a WWT of at
// most 1.5, and counts the others by the first criterion each breaks,
// checked in the order breed, gender, trait.
func wantKept(v *nsip.SearchResults) ([]string, map[string]int) {
	var kept []string
	by := map[string]int{}
	for _, r := range v.Results {
		wwt, has := findTrait(r.Traits, "WWT")
		switch {
		case r.BreedID != 640:
			by["breed_id"]++
		case nsip.NormalizeSex(r.Sex) != "Male":
			by["gender"]++
		case has && wwt.Value > 1.5:
			by["trait_ranges.WWT"]++
		default:
			kept = append(kept, r.LPNID)
		}
	}
	return kept, by
}

// TestSearchSummaryLeavesOutRowsThatContradictTheCriteria: a summarized
// search shows only rows consistent with what was asked; the ewes, the
// other breed and the WWTs past the asked max are counted by criterion and
// named, in the text and in Paging for _meta; and following the summary's
// own next calls through the page reaches every consistent row once.
func TestSearchSummaryLeavesOutRowsThatContradictTheCriteria(t *testing.T) {
	s, c := newTestSummarizer(t)
	v, args := searchForRams()
	kept, by := wantKept(v)
	if by["breed_id"] == 0 || by["gender"] == 0 || by["trait_ranges.WWT"] == 0 || len(kept) == 0 {
		t.Fatalf("test page does not break every criterion: %v, %d kept", by, len(kept))
	}
	var seen []string
	skip, calls := 0, 0
	for ; ; calls++ {
		if calls > 60 {
			t.Fatal("the page's next calls never left it")
		}
		req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args, Budget: 1200, Requested: true, Skip: skip}
		r := s.Fit(req)
		checkResult(t, c, req, r)
		p := decode[pageOut](t, r.Text)
		for _, row := range p.Rows {
			seen = append(seen, str(t, row[0]))
		}
		if calls == 0 {
			ct := p.Contradicting
			if ct == nil || ct.Count != 60-len(kept) || !maps.Equal(ct.ByCriterion, by) || len(ct.Rows) != min(ct.Count, 20) ||
				ct.NotNamed != ct.Count-len(ct.Rows) || !strings.Contains(ct.Effect, "left out") {
				t.Fatalf("contradicting_criteria %+v; want %d rows by %v, left out", ct, 60-len(kept), by)
			}
			if !strings.Contains(strings.Join(ct.Rows, ";"), "gender Male asked") {
				t.Errorf("rows named %q do not say what was asked", ct.Rows)
			}
			if r.Paging == nil || r.Paging.Contradicting == nil || r.Paging.Contradicting.Count != ct.Count || !strings.Contains(r.Paging.Contradicting.Effect, "left out") {
				t.Errorf("Paging.Contradicting %+v, want the text's count and effect", r.Paging)
			}
		}
		if p.Next == nil || argInt(p.Next.Arguments, "page", 0) != 0 {
			break
		}
		skip = argInt(p.Next.Arguments, "skip", 0)
	}
	if calls == 0 {
		t.Error("the page fitted in one summary: the next calls past left-out rows were not exercised")
	}
	if !slices.Equal(seen, kept) {
		t.Errorf("rows shown across the page %v\nwant the consistent rows %v", seen, kept)
	}
}

// TestPassThroughKeepsContradictingRowsAndSaysSo: a page small enough to
// pass through is NSIP's answer byte for byte, ewe and all; Paging (what
// _meta reports) counts the ewe under gender and says the text shows it.
func TestPassThroughKeepsContradictingRowsAndSaysSo(t *testing.T) {
	s, c := newTestSummarizer(t)
	g := newGen(6)
	v := g.search(4, 4, 0, 10)
	withIdentity(v, "640") // Male, Female, 1, 2
	args := map[string]any{"page": 0, "page_size": 10, "search_criteria": map[string]any{"gender": "Male"}}
	req := Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}
	r := s.Fit(req)
	checkResult(t, c, req, r)
	if r.Summarized || r.Text != compactOf(t, v.Raw) {
		t.Fatalf("summarized %v; want NSIP's answer unchanged", r.Summarized)
	}
	ct := r.Paging.Contradicting
	if ct == nil || ct.Count != 2 || ct.ByCriterion["gender"] != 2 || !strings.Contains(ct.Effect, "shown as NSIP sent them") ||
		!strings.HasPrefix(ct.Rows[0], v.Results[1].LPNID+" (sex Female") {
		t.Errorf("Paging.Contradicting %+v; want the two ewes under gender, shown as sent", ct)
	}
	// A consistent page says nothing.
	args["search_criteria"] = map[string]any{"gender": "Both"}
	if r := s.Fit(Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}); r.Paging.Contradicting != nil {
		t.Errorf("gender Both: %+v", r.Paging.Contradicting)
	}
}

// TestProgenyStatisticsSayTheyCountOnePage: beside total_count 240, the
// sex split and trait statistics of page 0 say they count its 100
// offspring only; a page holding every offspring says all. A row that is
// the parent itself is no offspring: left out, and not counted.
func TestProgenyStatisticsSayTheyCountOnePage(t *testing.T) {
	s, c := newTestSummarizer(t)
	const parent = "6400012020ABC001"
	g := newGen(8)
	v := g.progeny(parent, 100, 240, 0, 100)
	v.Animals[7].LPNID, v.Animals[7].Sex = parent, "Male"
	v.Raw = g.progenyRaw(v)
	req := Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: map[string]any{"lpn_id": parent, "page": 0, "page_size": 100}}
	r := s.Fit(req)
	checkResult(t, c, req, r)
	var p struct {
		TotalCount    int            `json:"total_count"`
		StatsOver     string         `json:"stats_over"`
		Sex           sexSplit       `json:"sex"`
		Contradicting *Contradicting `json:"contradicting_criteria"`
		Rows          [][]json.RawMessage
	}
	if err := json.Unmarshal([]byte(r.Text), &p); err != nil {
		t.Fatal(err)
	}
	want := *sexOf(slices.Delete(slices.Clone(v.Animals), 7, 8))
	if p.TotalCount != 240 || p.StatsOver != "sex and trait_stats: this page only, 99 offspring at 1-100 of 240, not all 240" || p.Sex != want {
		t.Errorf("total %d, stats_over %q, sex %+v; want 240, this page's 99 offspring, %+v", p.TotalCount, p.StatsOver, p.Sex, want)
	}
	if p.Contradicting == nil || p.Contradicting.Count != 1 || p.Contradicting.ByCriterion["lpn_id"] != 1 {
		t.Errorf("contradicting_criteria %+v, want the parent listed as its own offspring", p.Contradicting)
	}
	for _, row := range p.Rows {
		if str(t, row[0]) == parent {
			t.Error("the parent is shown as its own offspring")
		}
	}

	whole := g.progeny(parent, 25, 25, 0, 100)
	req = Request{Kind: KindProgeny, Value: whole, Raw: whole.Raw, Args: map[string]any{"lpn_id": parent, "page": 0, "page_size": 100}, Budget: 1000, Requested: true}
	r = s.Fit(req)
	if err := json.Unmarshal([]byte(r.Text), &p); err != nil || !r.Summarized || p.StatsOver != "sex and trait_stats: all 25 offspring" {
		t.Errorf("stats_over %q for a page holding every offspring (summarized %v)", p.StatsOver, r.Summarized)
	}
}
