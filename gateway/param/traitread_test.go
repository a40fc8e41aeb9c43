package param

import (
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

// A bounded number is judged by its bounds: a COI limit is a fraction, so
// a percent sent for it is refused saying so.
func TestNumberBounds(t *testing.T) {
	coi := Spec{Name: "max_coi", Kind: Number, Min: Bound(0), Max: Bound(1)}
	if _, errs := coi.Validate("max_coi", 6.25); len(errs) != 1 || errs[0].Problem != "must be a fraction from 0 to 1, got 6.25" {
		t.Errorf("6.25: %+v", errs)
	}
	if v, errs := coi.Validate("max_coi", 0.0625); errs != nil || v != 0.0625 {
		t.Errorf("0.0625: %v %+v", v, errs)
	}
	w := Spec{Name: "w", Kind: Number, Min: Bound(-2), Max: Bound(2)}
	if _, errs := w.Validate("w", -3.0); len(errs) != 1 || errs[0].Problem != "must be from -2 to 2, got -3" {
		t.Errorf("-3: %+v", errs)
	}
}
