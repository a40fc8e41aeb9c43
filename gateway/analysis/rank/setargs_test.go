package rank

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
)

// The arguments a call for the rest of an answer sets are spelt as the
// tools take them, and written in the order of their names, as when they
// were a map.
func TestSetArgsAreTheToolsArguments(t *testing.T) {
	coi := 0.25
	b, err := json.Marshal(analysis.SetArgs{MaxCOI: &coi, MaxTokens: 8000, Weights: map[string]float64{"WWT": 1}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{plan.Params.Name("MaxCOI"), plan.Params.Name("MaxTokens"), plan.Params.Name("Weights")}
	if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, want) || pedigree.COILimitField.Name != want[0] ||
		rankParams.Name("Weights") != want[2] || rankParams.Name("MaxTokens") != want[1] {
		t.Errorf("set's members %v, want the tools' %v", got, want)
	}
	if again, _ := json.Marshal(m); string(again) != string(b) {
		t.Errorf("set is written %s, a map of it %s", b, again)
	}
}
