package nsiparg

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

func TestTraitRangesMayBeOneSided(t *testing.T) {
	tr := TraitRanges
	tests := []struct {
		name string
		in   map[string]any
		want string // the normalised value as JSON, or a fragment of the problem
	}{
		{"min only", map[string]any{"wwt": map[string]any{"min": 1.5}}, `{"WWT":{"max":1000000,"min":1.5}}`},
		{"max only", map[string]any{"BWT": map[string]any{"max": 0}}, `{"BWT":{"max":0,"min":-1000000}}`},
		{"both", map[string]any{"BWT": map[string]any{"min": -1, "max": 0.5}}, `{"BWT":{"max":0.5,"min":-1}}`},
		{"open side spelled out", map[string]any{"WWT": map[string]any{"min": 1.5, "max": OpenBound}}, `{"WWT":{"max":1000000,"min":1.5}}`},
		{"min beyond the open bound", map[string]any{"WWT": map[string]any{"min": 2e6}}, `{"WWT":{"max":2000000,"min":2000000}}`},
		{"neither", map[string]any{"WWT": map[string]any{}}, "gives neither min nor max"},
		{"min above max", map[string]any{"WWT": map[string]any{"min": 3, "max": 1}}, "min 3 is greater than max 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, errs := tr.Validate("trait_ranges", tt.in)
			if strings.HasPrefix(tt.want, "{") {
				if len(errs) > 0 {
					t.Fatalf("refused: %+v", errs)
				}
				if got := param.JSONText(v); got != tt.want {
					t.Errorf("normalised to %s, want %s", got, tt.want)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Problem, tt.want) {
				t.Errorf("errors = %+v, want one containing %q", errs, tt.want)
			}
		})
	}
}

func TestTraitRangesAreBounded(t *testing.T) {
	tr := TraitRanges
	many := map[string]any{}
	for i := range 100_000 {
		many[fmt.Sprintf("T%d", i)] = map[string]any{"minn": 1}
	}
	_, errs := tr.Validate("trait_ranges", many)
	if len(errs) != 1 || !strings.Contains(errs[0].Problem, "names 100,000 traits; at most 64 allowed") {
		t.Errorf("100,000 codes: %+v", errs[:min(len(errs), 3)])
	}
	// Within the bound, every range misspelt: did-you-mean for the listed few.
	some := map[string]any{}
	for _, c := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"} {
		some[c] = map[string]any{"minn": 1}
	}
	_, errs = tr.Validate("trait_ranges", some)
	if len(errs) != param.MaxProblems+1 || param.More(errs) <= 0 {
		t.Errorf("10 misspelt ranges: %d entries, %d more", len(errs), param.More(errs))
	}
	if !strings.Contains(errs[0].Problem, `did you mean "min"`) {
		t.Errorf("first problem = %q, want a did-you-mean", errs[0].Problem)
	}
}

// Weights held as numbers (a form's answers) are checked as the weights
// argument is: codes normalised, 0 refused naming the trait, none refused.
func TestValidateWeightsAsNumbers(t *testing.T) {
	weights := param.List{Name: "weights", Required: true, MaxItems: 20, Item: Weights, Example: map[string]any{"WWT": 1.0}}
	if w, errs := ValidateWeights(&weights, map[string]float64{"wwt": 1, "BWT": -0.5}); errs != nil || len(w) != 2 || w["WWT"] != 1 || w["BWT"] != -0.5 {
		t.Errorf("good weights: %v %+v", w, errs)
	}
	if _, errs := ValidateWeights(&weights, map[string]float64{"WWT": 1, "BWT": 0}); len(errs) != 1 || errs[0].Field != "weights.BWT" || !strings.HasPrefix(errs[0].Problem, "has a weight of 0") {
		t.Errorf("a weight of 0: %+v", errs)
	}
	if w, errs := ValidateWeights(&weights, nil); w != nil || len(errs) != 1 || errs[0].Field != "weights" || errs[0].Problem != "has 0 traits; give 1..20" {
		t.Errorf("no weights: %v %+v", w, errs)
	}
}

// A trait argument of the glossary: a code in any case or a trait's name;
// a slip named with the code meant.
func TestTraitCode(t *testing.T) {
	if code, fe := TraitCode("trait", "wwt"); fe != nil || code != "WWT" {
		t.Errorf("TraitCode(wwt) = %q %+v; want WWT", code, fe)
	}
	if code, fe := TraitCode("trait", "weaning weight"); fe != nil || code != "WWT" {
		t.Errorf("TraitCode(weaning weight) = %q %+v; want WWT", code, fe)
	}
	if _, fe := TraitCode("trait", "WWTT"); fe == nil || fe.Expected != "WWT" ||
		fe.Problem != `"WWTT" is not a known trait code or name; did you mean "WWT"?` {
		t.Errorf("TraitCode(WWTT) = %+v; want refused naming WWT", fe)
	}
	if _, fe := TraitCode("trait", "XQZT"); fe == nil || fe.Problem != `"XQZT" is not a known trait code or name` {
		t.Errorf("TraitCode(XQZT) = %+v", fe)
	}
}
