package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestTraitCodesCheckedAgainstTheBreed: with a breed, sorted_trait and
// trait_ranges take exactly the codes of that breed's trait ranges (the
// stand-in gives Katahdins MWWT, NLW, WFEC and PFEC beyond the thirteen,
// and wool breeds YGFW, YFD, YSL); without one, any well-formed code goes to
// NSIP. The breed's ranges are fetched once and then come from the cache.
func TestTraitCodesCheckedAgainstTheBreed(t *testing.T) {
	e := newEnv(t)
	search := func(args map[string]any) reply { return e.call("nsip_search_animals", args) }

	// A Katahdin sort by fecal egg count, a code beyond the thirteen.
	r := search(map[string]any{"breed_id": 640, "sorted_trait": "wfec", "page_size": 3}).mustOK(t)
	var page struct {
		Records []map[string]any `json:"records"`
	}
	if err := json.Unmarshal([]byte(r.text), &page); err != nil || len(page.Records) != 3 {
		t.Fatalf("sorted by WFEC: %v %.200s", err, r.text)
	}
	for i := 1; i < len(page.Records); i++ {
		if page.Records[i-1]["wfec"].(float64) < page.Records[i]["wfec"].(float64) {
			t.Errorf("records not sorted by wfec, highest first: %v", page.Records)
		}
	}
	search(map[string]any{"breed_id": 640, "search_criteria": map[string]any{
		"trait_ranges": map[string]any{"MWWT": map[string]any{"min": -10, "max": 10}}}}).mustOK(t)
	if n := e.up.Requests(nsiptest.EndpointTraitRanges); n != 1 {
		t.Errorf("breed 640's trait ranges fetched %d times, want once (then cached)", n)
	}

	// A wool breed's trait is not a Katahdin's; a slip gets the closest code.
	before := e.up.Requests(nsiptest.EndpointSearch)
	b := search(map[string]any{"breed_id": 640, "sorted_trait": "ygfw"}).errorBody(t)
	if b.Code != toolerr.CodeInvalidArgument || b.Field != "sorted_trait" || !strings.HasPrefix(b.Problem, `sorted_trait "YGFW" is not a trait of breed 640`) ||
		!strings.Contains(b.Expected, "MWWT") || !strings.Contains(b.Expected, "WFEC") || strings.Contains(b.Expected, "YGFW") {
		t.Errorf("YGFW for Katahdins: %+v", b)
	}
	if got, _ := exampleOf(b.Example)["sorted_trait"].(string); got == "YGFW" || got == "" {
		t.Errorf("example %v keeps the unknown code", b.Example)
	}
	b = search(map[string]any{"search_criteria": map[string]any{"breed_id": 640,
		"trait_ranges": map[string]any{"PFCE": map[string]any{"min": 0, "max": 1}}}}).errorBody(t)
	if b.Field != "search_criteria.trait_ranges.PFCE" || b.Problem != `search_criteria.trait_ranges.PFCE is not a trait of breed 640; its nearest code is "PFEC"` {
		t.Errorf("PFCE for Katahdins: %+v", b)
	}
	// The example is a call that works: the nearest code in place of the unknown one.
	ex := param.JSONText(b.Example)
	if !strings.Contains(ex, `"trait_ranges":{"PFEC":{"max":1,"min":0}}`) || strings.Contains(ex, "PFCE") {
		t.Errorf("example %s, want the range under PFEC", ex)
	}

	if n := e.up.Requests(nsiptest.EndpointSearch) - before; n != 0 {
		t.Errorf("%d searches reached NSIP with codes the breed does not have", n)
	}
	if r := search(exampleOf(b.Example)); r.isError {
		t.Errorf("the example call fails: %s", r.text)
	}

	// No breed: NSIP judges. A wool trait is fine across breeds.
	search(map[string]any{"sorted_trait": "YGFW", "page_size": 2}).mustOK(t)

	// A breed without trait data: no list to check against, so NSIP judges.
	search(map[string]any{"breed_id": nsiptest.NoTraitDataBreed, "sorted_trait": "WFEC", "page_size": 2}).mustOK(t)
}

// TestTraitRangesWithoutDataIsNoData: NSIP's 400 for a breed with too few
// evaluated animals is not a bad breed_id.
func TestTraitRangesWithoutDataIsNoData(t *testing.T) {
	e := newEnv(t)
	b := e.call("nsip_get_trait_ranges", map[string]any{"breed_id": nsiptest.NoTraitDataBreed}).errorBody(t)
	if b.Code != toolerr.CodeNoData || b.Field != "breed_id" || !strings.Contains(b.Problem, "NSIP has no trait data for breed 641") ||
		strings.Contains(b.Problem, "rejected") || !strings.Contains(b.Next, "breed ID is valid") {
		t.Errorf("error %+v, want no_data for breed 641", b)
	}
	if got := e.gw.Health().ErrorsByCode[toolerr.CodeNoData]; got != 1 {
		t.Errorf("errors_by_code[no_data] = %d, want 1", got)
	}
	if h := e.gw.Health().Breaker; h.ConsecutiveFailures != 0 {
		t.Errorf("no data counted as %d breaker failures", h.ConsecutiveFailures)
	}
}
