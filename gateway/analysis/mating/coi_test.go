package mating

import (
	"context"
	"errors"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"

	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// AssessCOI passes cancellation on rather than computing on.
func TestAssessCOIHonoursCancellation(t *testing.T) {
	p := breeding.NewPedigree()
	for _, r := range [][3]string{{"S", "X", "A"}, {"D", "X", "B"}} {
		if err := p.Add(r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pedigree.AssessCOI(ctx, p, "S", "D"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	mc, err := pedigree.AssessCOI(context.Background(), p, "S", "D")
	if err != nil || mc.COI == nil || *mc.COI != 0.125 || !mc.Itemised {
		t.Errorf("half-sibs: %+v %v, want an itemised 0.125", mc, err)
	}
}
