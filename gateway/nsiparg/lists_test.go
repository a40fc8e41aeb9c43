package nsiparg

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// A list of LPN IDs reads each as lpn_id is read, upper case, and
// refuses one given twice; a list of traits takes codes and breeders'
// words alike.
func TestListsOfLPNsAndTraits(t *testing.T) {
	ids := param.List{Name: "lpn_ids", MinItems: 2, MaxItems: 20, Item: LPNs, Example: []string{ExampleLPN, ExampleEwe}}
	if want := `array of 2..20 distinct LPN IDs, e.g. ["6402382024NCS310","6402382022NCS120"]`; ids.Expected() != want {
		t.Errorf("expected %q, want %q", ids.Expected(), want)
	}
	if v, errs := ids.Validate([]any{strings.ToLower(ExampleLPN), ExampleEwe}); errs != nil || !reflect.DeepEqual(v, []string{ExampleLPN, ExampleEwe}) {
		t.Errorf("two IDs: %v %+v", v, errs)
	}
	_, errs := ids.Validate([]any{ExampleLPN, strings.ToLower(ExampleLPN), "not an id!"})
	if len(errs) != 2 || errs[0].Field != "lpn_ids[1]" || errs[0].Problem != ExampleLPN+" is listed twice" || errs[1].Field != "lpn_ids[2]" {
		t.Errorf("a repeat and a bad ID: %+v", errs)
	}
	traits := param.List{Name: "traits", MinItems: 1, MaxItems: 30, Item: Traits, Example: []string{"BWT", "WWT"}}
	if v, errs := traits.Validate([]any{"weaning weight", "nlb"}); errs != nil || !reflect.DeepEqual(v, []string{"WWT", "NLB"}) {
		t.Errorf("a word and a code: %v %+v", v, errs)
	}
	_, errs = traits.Validate([]any{3, "WWTT"})
	if len(errs) != 2 || errs[0].Problem != "must be a trait code string, got integer 3" || errs[0].Expected != traits.Expected() ||
		errs[1].Problem != `"WWTT" is not a known trait code or name; did you mean "WWT"?` || errs[1].Expected != "WWT" {
		t.Errorf("a number and a slip: %+v", errs)
	}
	if (Traits).Keyed() || !Weights.Keyed() {
		t.Error("only weights are keyed")
	}
}

// Weights are codes of the glossary to finite numbers other than 0, each
// code once however it is spelt.
func TestWeightsRefuseWhatNoIndexCanUse(t *testing.T) {
	l := param.List{Name: "weights", MaxItems: 20, Item: Weights, Example: map[string]any{"WWT": 1.0}}
	if !strings.HasPrefix(l.Expected(), `object of 1..20 trait codes to numbers, e.g. {"WWT":1}; codes from the trait glossary (`) {
		t.Errorf("expected %q", l.Expected())
	}
	if v, errs := l.Validate(map[string]any{"weaning weight": 2.0, "bwt": -1.0}); errs != nil || !reflect.DeepEqual(v, map[string]float64{"WWT": 2, "BWT": -1}) {
		t.Errorf("good weights: %v %+v", v, errs)
	}
	if _, errs := l.Validate([]any{"WWT"}); len(errs) != 1 || errs[0].Problem != `must be an object, got array ["WWT"]` {
		t.Errorf("an array: %+v", errs)
	}
	_, errs := l.Validate(map[string]any{"WWT": 1.0, "wwt": 2.0, "YWT": "heavy", "NLB": 0.0})
	want := []string{
		"weights.NLB: has a weight of 0, which would leave out every animal without a NLB EBV; leave NLB out of weights to ignore it",
		"weights.YWT: must be a number, got string \"heavy\"",
		"weights.wwt: trait WWT is weighted more than once",
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+": "+e.Problem)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems\n%q\nwant\n%q", got, want)
	}
}

// The ranges of a search's criteria are refused naming each bad range, as
// the caller spelt its code.
func TestTraitRangesRefuseEachBadRange(t *testing.T) {
	_, errs := SearchCriteria.Validate("search_criteria", map[string]any{"trait_ranges": map[string]any{
		"WWT": map[string]any{"min": 5, "max": 1}, "BWT": map[string]any{}, "w w": 3, "nlb": []any{}}})
	want := []string{
		"search_criteria.trait_ranges.BWT: gives neither min nor max",
		"search_criteria.trait_ranges.WWT: min 5 is greater than max 1",
		`search_criteria.trait_ranges.nlb: must be an object {"min": number, "max": number} (either may be left out), got array []`,
		`search_criteria.trait_ranges."w w": is not a trait code (1 to 16 letters) nor a trait's name; did you mean "WWT"?`,
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+": "+e.Problem)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems\n%q\nwant\n%q", got, want)
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{"WWT", `must be an object, got string "WWT"`},
		{map[string]any{"WWT": map[string]any{"min": 1}, "wwt": map[string]any{"max": 2}}, "trait WWT is given more than once"},
		{map[string]any{"WWT": map[string]any{"min": math.NaN()}}, "min and max must be finite numbers"},
	} {
		if _, errs := TraitRanges.Validate("trait_ranges", c.in); len(errs) != 1 || errs[0].Problem != c.want {
			t.Errorf("%v: %+v, want %q", c.in, errs, c.want)
		}
	}
	if v, errs := TraitRanges.Validate("trait_ranges", map[string]any{}); v != nil || errs != nil {
		t.Errorf("no ranges filter nothing: %v %+v", v, errs)
	}
	if !strings.HasSuffix(TraitRanges.Expected(), `, e.g. {"WWT":{"max":5,"min":1}}`) {
		t.Errorf("expected %q", TraitRanges.Expected())
	}
}
