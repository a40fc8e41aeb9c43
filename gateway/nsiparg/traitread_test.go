package nsiparg

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
