package analysis

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// lookupGate counts the lookups under way at once. A lookup that waits
// at it waits until width are under way together, which only lookups made
// at once can reach: one at a time, they would wait for ever, so after a
// minute the gate opens, marked stuck, and the test fails.
type lookupGate struct {
	width int

	mu             sync.Mutex
	inflight, peak int
	open           chan struct{}
	opened, stuck  bool
}

func newLookupGate(width int) *lookupGate {
	return &lookupGate{width: width, open: make(chan struct{})}
}

// enter counts one lookup under way and, when wait, holds it at the gate;
// the returned func counts it done.
func (g *lookupGate) enter(wait bool) func() {
	g.mu.Lock()
	g.inflight++
	g.peak = max(g.peak, g.inflight)
	if g.inflight >= g.width && !g.opened {
		g.opened = true
		close(g.open)
	}
	g.mu.Unlock()
	if wait {
		select {
		case <-g.open:
		case <-time.After(time.Minute):
			g.mu.Lock()
			g.stuck = true
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
// have under way (Parallel) and holding its searches at a lookupGate, but
// for those of free, the first trait asked (whose first value is computed
// alone, before a page shows how large the breed is).
type gatedSource struct {
	*fakeSource
	*lookupGate
	free string
}

func newGated(f *fakeSource, width int, free string) *gatedSource {
	return &gatedSource{fakeSource: f, lookupGate: newLookupGate(width), free: free}
}

func (g *gatedSource) Parallel() int { return g.width }

func (g *gatedSource) Search(ctx context.Context, q Query) (*nsip.SearchResults, error) {
	defer g.enter(q.SortedTrait != g.free)()
	return g.fakeSource.Search(ctx, q)
}

// runGated runs d over src as run does over a fakeSource.
func runGated(t *testing.T, d *Def, src Source, sent map[string]any) []byte {
	t.Helper()
	v, err := Run(t.Context(), d, src, discard(), param.SentOf(sent), valid(t, d, sent))
	if err != nil {
		t.Fatalf("%s(%v): %v", d.Name, sent, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyOne is the fake source allowing one lookup under way at a time.
type onlyOne struct{ *fakeSource }

func (onlyOne) Parallel() int { return 1 }
