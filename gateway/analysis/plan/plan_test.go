// Tests of nsip_plan_matings (plan.go) as a client calls it: its published
// contract and how a call's arguments are read. Its runs, and the
// arguments only a run can judge (a ewe that is also a ram, max_coi over
// 1), are in run_test.go.

package plan

import (
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

func TestPlanMatingsContract(t *testing.T) { analysistest.CheckContract(t, PlanMatings, SchemaNames()) }

// LPN IDs and weights' trait codes are upper-cased, and max_coi and
// max_ewes_per_ram take their defaults; a ram limit under 1 is refused by
// its name.
func TestPlanMatingsArguments(t *testing.T) {
	a := analysistest.Decoded[Args](t, PlanMatings, map[string]any{"ram_lpn_ids": []any{"6402382024ncs310"}, "ewe_lpn_ids": []any{"6402382022ncs087"}, "weights": map[string]any{"wwt": 1, "bwt": -0.5}})
	if !slices.Equal(a.Rams, []string{"6402382024NCS310"}) || !slices.Equal(a.Ewes, []string{"6402382022NCS087"}) ||
		len(a.Weights) != 2 || a.Weights["WWT"] != 1 || a.Weights["BWT"] != -0.5 || a.MaxCOI != 0.0625 || a.MaxPerRam != 50 {
		t.Errorf("read as %+v", a)
	}
	if fe := analysistest.Invalid(t, PlanMatings, map[string]any{"ram_lpn_ids": []any{"6402382024NCS310"}, "ewe_lpn_ids": []any{"6402382022NCS087"},
		"weights": map[string]any{"WWT": 1}, "max_ewes_per_ram": 0}); fe.Field != "max_ewes_per_ram" || fe.Problem != "must be at least 1, got 0" {
		t.Errorf("no ewes a ram: %+v", fe)
	}
}
