package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// A pedigree too large to compute from is NSIP's data, not the caller's
// mistake: the plan fails as an unexpected response that says so and
// points to check_mating, never as an internal error.
func TestTooComplexPedigreeIsAnHonestError(t *testing.T) {
	e := newEnv(t)
	err := fmt.Errorf("breeding: %w: more than %d steps", breeding.ErrTooComplex, breeding.MaxSteps)
	te := e.gw.analysisError(planDef, map[string]any{}, err)
	if te.Code != CodeUnexpectedResponse || !strings.Contains(te.Problem, "too large to compute inbreeding") ||
		!strings.Contains(te.Problem, fmt.Sprint(breeding.MaxSteps)) || !strings.Contains(te.Next, "nsip_check_mating") {
		t.Errorf("mapped to %+v", te)
	}
}

// assessCOI passes cancellation on rather than computing on.
func TestAssessCOIHonoursCancellation(t *testing.T) {
	p := breeding.NewPedigree()
	for _, r := range [][3]string{{"S", "X", "A"}, {"D", "X", "B"}} {
		if err := p.Add(r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := assessCOI(ctx, p, "S", "D"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	mc, err := assessCOI(context.Background(), p, "S", "D")
	if err != nil || mc.COI == nil || *mc.COI != 0.125 || !mc.Itemised {
		t.Errorf("half-sibs: %+v %v, want an itemised 0.125", mc, err)
	}
}
