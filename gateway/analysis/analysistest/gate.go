package analysistest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// LookupGate counts the lookups under way at once. A lookup that waits
// at it waits until width are under way together, which only lookups made
// at once can reach: one at a time, they would wait for ever, so after a
// minute the gate opens, marked stuck, and the test fails.
type LookupGate struct {
	Width int

	mu             sync.Mutex
	inflight, Peak int
	open           chan struct{}
	opened, Stuck  bool
}

func NewLookupGate(width int) *LookupGate {
	return &LookupGate{Width: width, open: make(chan struct{})}
}

// Enter counts one lookup under way and, when wait, holds it at the gate;
// the returned func counts it done.
func (g *LookupGate) Enter(wait bool) func() {
	g.mu.Lock()
	g.inflight++
	g.Peak = max(g.Peak, g.inflight)
	if g.inflight >= g.Width && !g.opened {
		g.opened = true
		close(g.open)
	}
	g.mu.Unlock()
	if wait {
		select {
		case <-g.open:
		case <-time.After(time.Minute):
			g.mu.Lock()
			g.Stuck = true
			if !g.opened { // the rest need not wait a minute each
				g.opened = true
				close(g.open)
			}
			g.mu.Unlock()
		}
	}
	return func() {
		g.mu.Lock()
		g.inflight--
		g.mu.Unlock()
	}
}

// gatedSource is the fake source saying how many lookups the call may
// have under way (Limits.Parallel) and holding its searches at a LookupGate, but
// for those of free, the first trait asked (whose first value is computed
// alone, before a page shows how large the breed is).
type gatedSource struct {
	*FakeSource
	*LookupGate
	free string
}

func NewGated(f *FakeSource, width int, free string) *gatedSource {
	return &gatedSource{FakeSource: f, LookupGate: NewLookupGate(width), free: free}
}

func (g *gatedSource) Limits() analysis.Limits { return WithParallel(g.FakeSource, g.LookupGate.Width) }

func (g *gatedSource) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	defer g.Enter(q.SortedTrait != g.free)()
	return g.FakeSource.Search(ctx, q)
}

// RunGated runs d over src as run does over a FakeSource.
func RunGated(t *testing.T, d *analysis.Def, src analysis.Source, sent map[string]any) []byte {
	t.Helper()
	v, err := analysis.Run(t.Context(), d, src, Discard(), param.SentOf(sent), Valid(t, d, sent))
	if err != nil {
		t.Fatalf("%s(%v): %v", d.Name, sent, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// OnlyOne is the fake source allowing one lookup under way at a time.
type OnlyOne struct{ *FakeSource }

func (o OnlyOne) Limits() analysis.Limits { return WithParallel(o.FakeSource, 1) }

// WithParallel is f's limits with n lookups under way at once: a wrapper
// that holds or counts lookups says its own width and keeps the rest of
// what f says.
func WithParallel(f *FakeSource, n int) analysis.Limits {
	l := f.Limits()
	l.Parallel = n
	return l
}
