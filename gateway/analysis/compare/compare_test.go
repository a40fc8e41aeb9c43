// Tests of nsip_compare_animals (compare.go) as a client calls it: its
// published contract and how a call's arguments are read. Its runs are in
// run_test.go.

package compare

import (
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

func TestCompareContract(t *testing.T) { analysistest.CheckContract(t, Compare, SchemaNames()) }

// LPN IDs and trait codes are upper-cased in the order given; the same
// animal twice, in any case, is refused at its second entry, and a lone
// animal for want of a second.
func TestCompareArguments(t *testing.T) {
	a := analysistest.Decoded[Args](t, Compare, map[string]any{"lpn_ids": []any{"6402382024ncs310", "6402382022NCS087"}, "traits": []any{"wwt", "bwt"}})
	if !slices.Equal(a.LPNIDs, []string{"6402382024NCS310", "6402382022NCS087"}) || !slices.Equal(a.Traits, []string{"WWT", "BWT"}) || a.Percentiles {
		t.Errorf("read as %+v", a)
	}
	if fe := analysistest.Invalid(t, Compare, map[string]any{"lpn_ids": []any{"6402382024NCS310", "6402382024ncs310"}}); fe.Field != "lpn_ids[1]" ||
		fe.Problem != "6402382024NCS310 is listed twice" {
		t.Errorf("one animal twice: %+v", fe)
	}
	if fe := analysistest.Invalid(t, Compare, map[string]any{"lpn_ids": []any{"6402382024NCS310"}}); fe.Field != "lpn_ids" || fe.Problem != "has 1 items; give 2..20" {
		t.Errorf("one animal: %+v", fe)
	}
}
