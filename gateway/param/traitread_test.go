package param

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A word for several traits is refused naming each candidate with its
// direction, and what it expects names their codes.
func TestTraitWordRefusesAWordForSeveral(t *testing.T) {
	for _, s := range []string{"weight", "depth", "fat and muscle", "yearling depth"} {
		_, want := nsip.ReadTrait(s)
		if len(want) < 2 {
			t.Fatalf("%q: candidates %v", s, want)
		}
		_, _, fe := TraitArg{AnyCode: true, Expect: sortedExpect}.Read("sorted_trait", s, true)
		if fe == nil {
			t.Fatalf("%q accepted", s)
		}
		for _, c := range want {
			if !strings.Contains(fe.Problem, nsip.TraitMeaning(c)) || !strings.Contains(fe.Expected, c) {
				t.Errorf("%q: %+v lacks %s with its direction", s, fe, c)
			}
		}
	}
}

// Trait words in every place a trait is taken validate to their codes.
func TestTraitWordsValidateToCodes(t *testing.T) {
	sent := SentOf(map[string]any{
		"lpn_id":       ExampleLPN,
		"sorted_trait": "weaning weight",
		"traits":       []any{"birth weight", "nlb"},
		"weights":      map[string]any{"parasite resistance": -1.0, "WWT": 1.0},
		"search_criteria": map[string]any{"gender": "female",
			"trait_ranges": map[string]any{"loin depth": map[string]any{"min": 1.0}}},
	})
	args, errs := penArgs.Validate(sent)
	if errs != nil {
		t.Fatal(errs)
	}
	if got := JSONText(args.Members()); !strings.Contains(got, `"sorted_trait":"WWT"`) || !strings.Contains(got, `"traits":["BWT","NLB"]`) ||
		!strings.Contains(got, `"trait_ranges":{"EMD":{"max":1000000,"min":1}}`) {
		t.Errorf("validated %s", got)
	}
	if w, _ := args.Value("weights"); !reflect.DeepEqual(w, map[string]float64{"FEC": -1, "WWT": 1}) {
		t.Errorf("weights = %v", w)
	}
}
