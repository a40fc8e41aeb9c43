package analysis

import (
	"context"
	"encoding/json"
	"slices"
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

// An animal's percentiles of different traits are looked up at once: as
// many searches under way together as the call may have, never more, and
// the answer and its lookups those of one lookup at a time.
func TestAnimalPercentilesLookUpTraitsAtOnce(t *testing.T) {
	var id any // an animal with all four EBVs: the first alone, three at once
	for _, c := range pick(population(7, 700), 7, 20) {
		if len(population(7, 700).animals[c.(string)].EBV) == 4 {
			id = c
			break
		}
	}
	sent := map[string]any{"search_string": id, "percentiles": true}
	one := population(7, 700)
	want := runGated(t, AnimalPercentiles, &onlyOne{one}, sent)
	for _, width := range []int{2, 3} {
		f := population(7, 700)
		first := slices.Sorted(func(yield func(string) bool) {
			for c := range f.animals[id.(string)].EBV {
				if !yield(c) {
					return
				}
			}
		})[0]
		g := newGated(f, width, first)
		got := runGated(t, AnimalPercentiles, g, sent)
		if g.stuck || g.peak != width {
			t.Errorf("width %d: at most %d searches under way at once (stuck waiting for more: %v), want %d", width, g.peak, g.stuck, width)
		}
		if string(got) != string(want) {
			t.Errorf("width %d: answer\n%s\nwant, as one lookup at a time,\n%s", width, got, want)
		}
		if f.lookups != one.lookups {
			t.Errorf("width %d: %d lookups, one at a time %d", width, f.lookups, one.lookups)
		}
	}
}

// onlyOne is the fake source allowing one lookup under way at a time.
type onlyOne struct{ *fakeSource }

func (onlyOne) Parallel() int { return 1 }

// When the lookups for percentiles run out, the values left without one
// are those left one lookup at a time, however many run at once.
func TestPercentilesAtTheirLimitAsOneAtATime(t *testing.T) {
	ids := pick(population(9, 6000), 9, 20)
	sent := map[string]any{"lpn_ids": ids, "percentiles": true}
	one := population(9, 6000)
	want := runGated(t, Compare, &onlyOne{one}, sent)
	var a pctAnswer
	decode(t, json.RawMessage(want), &a)
	short := 0
	for _, row := range a.Animals {
		for _, p := range row.TopPercent {
			if p == nil {
				short++
			}
		}
	}
	if short == 0 || a.Percentiles.Lookups != pctLookups {
		t.Fatalf("one at a time: %d values without a percentile, %d lookups; the test wants the limit of %d reached", short, a.Percentiles.Lookups, pctLookups)
	}
	for range 3 {
		f := population(9, 6000)
		got := runGated(t, Compare, f, sent)
		if string(got) != string(want) {
			t.Fatalf("answer at 4 at once (the default)\n%s\nwant, as one lookup at a time,\n%s", got, want)
		}
		if f.lookups != one.lookups {
			t.Errorf("%d lookups, one at a time %d", f.lookups, one.lookups)
		}
	}
}
