package gateway

import (
	"os"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
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
	{"nsip_flock_summary", map[string]any{"progeny_of": param.ExampleLPN, "breed_id": 640}},
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
