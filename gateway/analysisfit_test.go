package gateway

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nsip-tools/nsip-mcp/summarize"
)

// TestAnalysisWithinBudgetIsFittedOnce: an analysis checks its answer
// against the budget before answering; the answer it then gives is that
// same text, so its tokens are not counted a second time.
func TestAnalysisWithinBudgetIsFittedOnce(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"A S1 D1", "B S1 D2"})...)
	h.get(lpn("A")).ebv = map[string][2]float64{"BWT": {0.2, 0.81}, "WWT": {2.5, 0.7}}
	h.get(lpn("B")).ebv = map[string][2]float64{"BWT": {-0.3, 0.55}, "WWT": {1.0, 0.6}}
	e := herdEnv(t, h)
	var analysisFits atomic.Int64
	inner := e.gw.fitFunc
	e.gw.fitFunc = func(r summarize.Request) summarize.Result {
		if r.Tool == "nsip_compare_animals" {
			analysisFits.Add(1)
		}
		return inner(r)
	}
	r := e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A"), lpn("B")}}).mustOK(t)
	if !strings.Contains(r.text, lpn("B")) {
		t.Fatalf("the comparison does not name %s: %s", lpn("B"), r.text)
	}
	if n := analysisFits.Load(); n != 1 {
		t.Errorf("the comparison was fitted %d times, want once", n)
	}
}
