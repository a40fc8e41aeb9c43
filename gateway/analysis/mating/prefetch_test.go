package mating

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// recordGate is the fake source holding records and lineages at a
// LookupGate until width are under way together, which a mating reaches
// only by asking its parents' lineages beside their records.
type recordGate struct {
	*analysistest.FakeSource
	*analysistest.LookupGate
}

func (g *recordGate) Limits() analysis.Limits {
	return analysistest.WithParallel(g.FakeSource, g.LookupGate.Width)
}

func (g *recordGate) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	defer g.Enter(true)()
	return g.FakeSource.Details(ctx, id)
}

func (g *recordGate) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	defer g.Enter(true)()
	return g.FakeSource.Lineage(ctx, id)
}

// A mating's parents' lineages are asked beside their records, all four
// under way at once, and the answer and its lookups are those of one
// lookup at a time.
func TestMatingAsksLineagesBesideRecords(t *testing.T) {
	sent := map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}
	one := analysistest.Herd(analysistest.MatingCases[1].Herd...)
	want := analysistest.RunGated(t, CheckMating, &analysistest.OnlyOne{FakeSource: one}, sent)
	f := analysistest.Herd(analysistest.MatingCases[1].Herd...)
	g := &recordGate{FakeSource: f, LookupGate: analysistest.NewLookupGate(4)}
	got := analysistest.RunGated(t, CheckMating, g, sent)
	if g.Stuck || g.Peak != 4 {
		t.Errorf("at most %d lookups under way at once (stuck waiting for more: %v), want the 2 records and 2 lineages", g.Peak, g.Stuck)
	}
	if string(got) != string(want) {
		t.Errorf("answer\n%s\nwant, as one lookup at a time,\n%s", got, want)
	}
	if f.Lookups != one.Lookups || f.CallsOf("lineage") != one.CallsOf("lineage") {
		t.Errorf("%d lookups (%d lineages), one at a time %d (%d)", f.Lookups, f.CallsOf("lineage"), one.Lookups, one.CallsOf("lineage"))
	}
}

// heldLineages answers records at once and holds every lineage until its
// context ends, counting the lineages asked, cancelled and under way; a
// lineage nobody cancels is let go after 30 s and marked stuck.
type heldLineages struct {
	*analysistest.FakeSource
	mu                         sync.Mutex
	asked, cancelled, inflight int
	stuck                      bool
}

func (h *heldLineages) Limits() analysis.Limits { return analysistest.WithParallel(h.FakeSource, 4) }

func (h *heldLineages) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	h.mu.Lock()
	h.asked++
	h.inflight++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.inflight--
		h.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		h.mu.Lock()
		h.cancelled++
		h.mu.Unlock()
		return nil, ctx.Err()
	case <-time.After(30 * time.Second):
		h.mu.Lock()
		h.stuck = true
		h.mu.Unlock()
		return h.FakeSource.Lineage(ctx, id)
	}
}

// An unknown parent ends the mating with its error, and the lineages asked
// ahead of the records are cancelled and have ended when it does.
func TestMatingAskedAheadSettlesOnError(t *testing.T) {
	h := &heldLineages{FakeSource: analysistest.Herd(analysistest.MatingCases[1].Herd...)}
	sent := map[string]any{"sire_lpn_id": "NOSUCH1", "dam_lpn_id": "DAM01"}
	_, err := analysis.Run(t.Context(), CheckMating, h, analysistest.Discard(), param.SentOf(sent), analysistest.Valid(t, CheckMating, sent))
	if err == nil {
		t.Fatal("a mating with an unknown sire answered")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.asked != 2 || h.cancelled != 2 || h.inflight != 0 || h.stuck {
		t.Errorf("lineages asked ahead %d, cancelled %d, under way after the call %d, stuck %v; want 2, 2, 0, false",
			h.asked, h.cancelled, h.inflight, h.stuck)
	}
}
