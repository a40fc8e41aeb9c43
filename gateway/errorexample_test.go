package gateway

import (
	"os"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// exampleCalls are calls whose errors carry an example built, corrected
// (one group of a flock) or fixed (by the data, by the server's limits,
// by NSIP's lists) on the way, or none.
var exampleCalls = []struct {
	tool string
	args map[string]any
}{
	{"nsip_search_animals", map[string]any{"page_size": 500, "sorted_trait": "bwt", "reverse": true, "colour": "red",
		"search_criteria": map[string]any{"gender": "female", "born_after": "yesterday", "breed_id": 640}}},
	{"nsip_search_animals", map[string]any{"colour": "red"}},
	{"nsip_search_animals", map[string]any{"page_size": 10, "skip": 10}},
	{"nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "ygfw", "search_criteria": map[string]any{"trait_ranges": map[string]any{"PFCE": map[string]any{"min": 0, "max": 1}}}}},
	{"nsip_search_animals", map[string]any{"search_criteria": map[string]any{"breed_id": 99999, "gender": "Male"}, "page_size": 2}},
	{"nsip_get_trait_ranges", map[string]any{"breed_id": 99999}},
	{"nsip_get_last_update", map[string]any{"max_tokens": 1000000}},
	{"nsip_get_animal", map[string]any{"search_string": "6402382024NCS310", "percentiles": "yes", "max_tokens": 5}},
	{"nsip_flock_summary", map[string]any{}},
	{"nsip_flock_summary", map[string]any{"flock_id": "640238", "search": map[string]any{"breed_id": 640}, "breed_id": "x"}},
	{"nsip_flock_summary", map[string]any{"progeny_of": nsiparg.ExampleLPN, "breed_id": 640}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "index": "lambing index", "top_n": 2}},
	{"nsip_rank_animals", map[string]any{"breed_id": 99999, "weights": map[string]any{"WWT": 1}}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"weaning": 1, "BWT": "x"}, "top_n": 500}},
	{"nsip_compare_animals", map[string]any{"lpn_ids": []any{"6402382024NCS310"}, "traits": []any{"BWT", "eye muscle"}}},
	{"nsip_plan_matings", map[string]any{"rams": []any{"6402382024NCS310"}, "ewes": "none", "max_coi": 2}},
	{"nsip_check_mating", map[string]any{"sire_lpn_id": "6402382024NCS310", "dam_lpn_id": "A&B<1>"}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "index": "A&B <x>", "top_n": 500}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"YGFW": 1, "BWT": -1}, "top_n": 2}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"YGFW": 1}, "top_n": 2}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWTT": 2, "BWT": -1}, "top_n": 2}},
	{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"MWWT": 0.25, "WWT": 1.5e-7, "NLB": 1e21}, "top_n": 0}},
}

// Each error's text, its example included, is byte for byte the text
// in testdata/error_examples.txt, one line per call of exampleCalls: the
// example is written as the object of its arguments always was.
func TestErrorExamplesByteForByte(t *testing.T) {
	b, err := os.ReadFile("testdata/error_examples.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(want) != len(exampleCalls) {
		t.Fatalf("%d texts for %d calls", len(want), len(exampleCalls))
	}
	e := newEnv(t)
	for i, c := range exampleCalls {
		r := e.call(c.tool, c.args)
		if !r.isError || r.text != want[i] {
			t.Errorf("%s %s:\n got %s\nwant %s", c.tool, param.JSONText(c.args), r.text, want[i])
		}
	}
}

// commonMistakes are calls each tool is commonly sent wrong: nothing, a
// name it does not take, a budget below the floor, and each tool's own.
var commonMistakes = map[string][]map[string]any{
	"nsip_get_trait_ranges": {{"breed_id": "Katahdn"}, {"breed_id": 0}, {"breed_id": "Do"}},
	"nsip_search_animals": {{"sorted_trait": "weight"}, {"page_size": 0}, {"breed_id": "nowhere"},
		{"search_criteria": map[string]any{"born_after": "2024-01-01", "born_before": "2020-01-01"}},
		{"search_criteria": map[string]any{"trait_ranges": map[string]any{"depth": map[string]any{"min": 1}}}}},
	"nsip_get_animal":      {{"search_string": "x"}, {"search_string": nsiparg.ExampleLPN, "traits": []any{"fat and muscle"}}},
	"nsip_get_lineage":     {{"lpn_id": "a b"}},
	"nsip_get_progeny":     {{"lpn_id": nsiparg.ExampleLPN, "page_size": 1000}},
	"nsip_search_by_lpn":   {{"lpn_id": ""}},
	"nsip_check_mating":    {{"sire_lpn_id": nsiparg.ExampleLPN, "dam_lpn_id": nsiparg.ExampleLPN}, {"sire_lpn_id": nsiparg.ExampleEwe, "dam_lpn_id": strings.ToLower(nsiparg.ExampleEwe)}, {"sire_lpn_id": nsiparg.ExampleLPN}},
	"nsip_compare_animals": {{"lpn_ids": []any{nsiparg.ExampleLPN, nsiparg.ExampleLPN}}, {"lpn_ids": []any{nsiparg.ExampleLPN, nsiparg.ExampleEwe}, "traits": []any{"weight"}}},
	"nsip_rank_animals": {{"breed_id": 640, "weights": map[string]any{"WWT": 0}}, {"breed_id": "So", "weights": map[string]any{"WWT": 1}},
		{"breed_id": 640, "index": "US Hair Index", "weights": map[string]any{"WWT": 1}}, {"breed_id": 640, "weights": map[string]any{"weight": 1}}},
	"nsip_flock_summary": {{"flock_id": "640238", "progeny_of": nsiparg.ExampleLPN}, {"search": map[string]any{"breed_id": "Katahdn"}}},
	"nsip_plan_matings":  {{"rams": []any{nsiparg.ExampleLPN}, "ewes": []any{nsiparg.ExampleLPN}}, {"rams": []any{}, "ewes": []any{nsiparg.ExampleEwe}}},
}

// Every error's example is a call the tool accepts: for each tool, its
// common mistakes (and the calls above) are refused, and the example each
// refusal offers, called in turn, is not refused as invalid.
func TestEveryErrorExampleIsAccepted(t *testing.T) {
	e := newEnv(t)
	type call struct {
		tool string
		args map[string]any
	}
	var calls []call
	for _, c := range exampleCalls {
		calls = append(calls, call{c.tool, c.args})
	}
	tried := map[string]int{}
	for _, tool := range toolname.All {
		for _, args := range append([]map[string]any{{}, {"colour": "red"}, {"max_tokens": 5}}, commonMistakes[tool]...) {
			calls = append(calls, call{tool, args})
		}
	}
	for _, c := range calls {
		r := e.call(c.tool, c.args)
		if !r.isError {
			continue // a tool that takes no arguments, or a call that is fine
		}
		b := r.errorBody(t)
		if b.Example == nil || b.Code != toolerr.CodeInvalidArgument {
			continue
		}
		tried[c.tool]++
		again := e.call(c.tool, exampleOf(b.Example))
		if again.isError {
			if b2 := again.errorBody(t); b2.Code == toolerr.CodeInvalidArgument {
				t.Errorf("%s %s: refused (%s %s), and its example %s is refused too: %s %s",
					c.tool, param.JSONText(c.args), b.Field, b.Problem, param.JSONText(b.Example), b2.Field, b2.Problem)
			}
		}
	}
	for _, tool := range toolname.All {
		if tried[tool] < 2 && tool != toolname.GetLastUpdate && tool != toolname.ListBreeds && tool != toolname.GetStatuses {
			t.Errorf("%s: %d refusals with an example tried; want its common mistakes", tool, tried[tool])
		}
	}
}
