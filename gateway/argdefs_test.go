package gateway

import (
	"encoding/json"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
)

// nsip_get_animal takes the percentile path from its validated arguments:
// percentiles true is the analysis, false the record, and a value that is
// not a boolean is refused by the tool's validation naming the argument.
func TestAnimalPercentilesChosenByValidatedArguments(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().AnimalIDs()[0]
	on := e.call("nsip_get_animal", map[string]any{"search_string": " " + id + " ", "percentiles": true}).mustOK(t)
	var a struct {
		LPNID string `json:"lpn_id"`
	}
	if err := json.Unmarshal([]byte(on.text), &a); err != nil || a.LPNID != id {
		t.Errorf("percentiles true: %v %.300s", err, on.text)
	}
	// Every argument the tool takes reaches the analysis's own struct:
	// max_tokens with percentiles is an answer, not an arguments mismatch.
	budget := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": true, "max_tokens": 4000}).mustOK(t)
	if err := json.Unmarshal([]byte(budget.text), &a); err != nil || a.LPNID != id {
		t.Errorf("percentiles with max_tokens: %v %.300s", err, budget.text)
	}
	bad := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": "yes"}).errorBody(t)
	if bad.Field != "percentiles" || bad.Problem != `percentiles must be true or false, got string "yes"` {
		t.Errorf("percentiles \"yes\": field %q problem %q", bad.Field, bad.Problem)
	}
}

// skip is checked against the page of either paged tool, and a busy
// summarizer suggests a smaller page, by one name: both structs must give
// their PageSize that name.
func TestPagedToolsNamePageSizeAlike(t *testing.T) {
	for _, d := range []*lookup.Def{lookup.SearchAnimals, lookup.Progeny} {
		if n := d.Args.Name("PageSize"); n != argPageSize || !d.Takes(argPageSize) {
			t.Errorf("%s names its page size %q, the view checks %q", d.Name, n, argPageSize)
		}
	}
	g := &Gateway{cfg: Config{MaxBudget: 8000}}
	args, errs := lookup.SearchAnimals.Args.Validate(param.SentOf(map[string]any{argSkip: 10, argPageSize: 10}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	errs = g.checkView(toolcall.Call{Args: args})
	if len(errs) != 1 || errs[0].Field != "skip" || errs[0].Expected != "integer 0..9 (less than page_size)" {
		t.Errorf("skip 10 of a page of 10: %v", errs)
	}
}

// A view is read from the view arguments the tool declares: the traits a
// search shows are a view, the traits a comparison compares are its own
// argument and shape no view of its answer.
func TestViewIsTheToolsOwnViewArguments(t *testing.T) {
	search, errs := lookup.SearchAnimals.Args.Validate(param.SentOf(map[string]any{argTraits: []any{"WWT"}, argMaxTokens: 3000}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if v := viewOf(&lookup.SearchAnimals.Args, search); len(v.Traits) != 1 || v.Traits[0] != "WWT" || v.Budget != 3000 {
		t.Errorf("a search's view %+v, want traits [WWT] at 3000 tokens", v)
	}
	compared, errs := compare.Compare.Args.Validate(param.SentOf(map[string]any{"lpn_ids": []any{"6402382024NCS310", "6402382022NCS087"}, argTraits: []any{"WWT"}, argMaxTokens: 3000}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if v := viewOf(&compare.Compare.Args, compared); len(v.Traits) != 0 || v.Budget != 3000 {
		t.Errorf("a comparison's view %+v, want its budget alone: traits are what it compares", v)
	}
}
