package gateway

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestSortedBoundedSearchWithholdsNext: NSIP ignores a WWT bound on a
// search sorted by WWT. Once a page's rows, in the order they show, pass
// the bound, _meta offers no next call and says why; the same search
// without the bound still offers the next page.
func TestSortedBoundedSearchWithholdsNext(t *testing.T) {
	e := newEnv(t)
	e.up.SetIrregular(nsiptest.Irregular{IgnoreCriteria: []string{"traitRanges"}})
	ids, err := e.up.Data().Search(640, nsiptest.Criteria{}, "WWT", false)
	if err != nil || len(ids) < 200 {
		t.Fatalf("%d Katahdins sorted by WWT (%v); the test needs two pages", len(ids), err)
	}
	wwt := func(i int) float64 {
		a, _ := e.up.Data().Animal(ids[i])
		tr, _ := a.Trait("WWT")
		return tr.Value
	}
	// The 30th row's WWT as the bound on the side the order runs to.
	bound := map[string]any{"min": wwt(29)}
	if wwt(0) < wwt(99) {
		bound = map[string]any{"max": wwt(29)}
	}
	args := map[string]any{"breed_id": 640, "sorted_trait": "WWT", "page_size": 100,
		"search_criteria": map[string]any{"trait_ranges": map[string]any{"WWT": bound}}}
	// Follow the next calls, which finish the first page (skip) and stop.
	call, calls := args, 0
	for {
		if calls++; calls > 10 {
			t.Fatal("next calls never stopped")
		}
		r := e.call("nsip_search_animals", call).mustOK(t)
		next, _ := r.meta["next"].(map[string]any)
		if next == nil {
			why, _ := r.meta["next_withheld"].(string)
			if !strings.Contains(why, "no next call: this page shows NSIP's rows sorted by WWT") {
				t.Errorf("_meta next_withheld %q: want why there is no next call", why)
			}
			if strings.Contains(r.text, `"summary":true`) && !strings.Contains(r.text, `"next_withheld"`) {
				t.Errorf("the summary does not say why it offers no next call: %.300s", r.text)
			}
			break
		}
		call, _ = next["arguments"].(map[string]any)
		if p, _ := call["page"].(float64); p != 0 {
			t.Fatalf("next call %v asks for a later page, though page 0 passed the bound", call)
		}
	}
	delete(args, "search_criteria")
	r := e.call("nsip_search_animals", args).mustOK(t)
	if r.meta["next"] == nil || r.meta["next_withheld"] != nil {
		t.Errorf("without the bound: _meta next %v, next_withheld %v; want the next page", r.meta["next"], r.meta["next_withheld"])
	}
}
