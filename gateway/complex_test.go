package gateway

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// A pedigree too large to compute from is NSIP's data, not the caller's
// mistake: the plan fails as an unexpected response that says so and
// points to check_mating, never as an internal error.
func TestTooComplexPedigreeIsAnHonestError(t *testing.T) {
	e := newEnv(t)
	err := fmt.Errorf("breeding: %w: more than %d steps", breeding.ErrTooComplex, breeding.MaxSteps)
	te := e.gw.analysisError(analysisNamed(t, "nsip_plan_matings"), param.SentOf(map[string]any{}), err)
	if te.Code != toolerr.CodeUnexpectedResponse || !strings.Contains(te.Problem, "too large to compute inbreeding") ||
		!strings.Contains(te.Problem, fmt.Sprint(breeding.MaxSteps)) || !strings.Contains(te.Next, "nsip_check_mating") {
		t.Errorf("mapped to %+v", te)
	}
}

// A hostile upstream's deep pedigree: half-sibs S and D by X, with X and
// both dams each twelve generations of distinct ancestors deep (24,573
// animals). The tabular method this replaced kept a number for about every
// pair of S-side and D-side ancestors, 4^12 of them, and ran out of memory;
// the answer now comes whole, with memory counted, not timed.
func TestCheckMatingOnADeepHostilePedigree(t *testing.T) {
	h := newHerd()
	h.depth = 14
	var lines []string
	var grow func(id string, gen int)
	grow = func(id string, gen int) {
		if gen == 12 {
			return
		}
		lines = append(lines, id+" "+id+"S "+id+"D")
		grow(id+"S", gen+1)
		grow(id+"D", gen+1)
	}
	for _, root := range []string{"X", "M", "N"} {
		grow(root, 0)
	}
	lines = append(lines, "S X M", "D X N")
	h.pedigree(lpnLines(lines)...)
	e := herdEnv(t, h)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": lpn("S"), "dam_lpn_id": lpn("D")}).mustOK(t)
	runtime.ReadMemStats(&m1)
	var a struct {
		COI             float64        `json:"coi"`
		CommonAncestors map[string]any `json:"common_ancestors"`
		Computed        struct {
			Animals int `json:"pedigree_animals"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatal(err)
	}
	if a.COI != 0.125 || a.CommonAncestors["not_itemised"] == nil || a.Computed.Animals < 20000 {
		t.Errorf("coi %v over %d animals, common ancestors %v; want 0.125 over the whole pedigree, not itemised", a.COI, a.Computed.Animals, a.CommonAncestors)
	}
	// Reading the lineages dominates; the old method needed gigabytes.
	if got, limit := (m1.TotalAlloc-m0.TotalAlloc)>>20, uint64(1024); got > limit {
		t.Errorf("the call allocated %d MB, more than %d MB", got, limit)
	}
	t.Logf("%d animals, %d MB allocated", a.Computed.Animals, (m1.TotalAlloc-m0.TotalAlloc)>>20)
}
