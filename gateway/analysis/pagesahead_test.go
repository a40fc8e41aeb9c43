package analysis

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// pageGate is the fake source holding pages at a lookupGate: the first
// page of a listing is read alone (it gives NSIP's count), later pages
// wait until width of them are under way together.
type pageGate struct {
	*fakeSource
	*lookupGate
}

func newPageGate(f *fakeSource, width int) *pageGate {
	return &pageGate{fakeSource: f, lookupGate: newLookupGate(width)}
}

func (g *pageGate) Parallel() int { return g.width }

func (g *pageGate) Search(ctx context.Context, q Query) (*nsip.SearchResults, error) {
	defer g.enter(q.Page > 0)()
	return g.fakeSource.Search(ctx, q)
}

func (g *pageGate) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	defer g.enter(page > 0)()
	return g.fakeSource.Progeny(ctx, id, page, size)
}

// A group's pages after the first are read at once, as many under way as
// the call may have and never more, and the answer and the pages read are
// those of one page at a time: a flock, a search of the breed and a ram's
// progeny, each of seven pages or more.
func TestGroupPagesReadAtOnce(t *testing.T) {
	ram := &fakeAnimal{ID: "6402382015RAM001", Sex: "Male", Flock: "640238", EBV: map[string]float64{"BWT": 0.1}}
	build := func() *fakeSource {
		f := flockOf(43, 650)
		for _, a := range f.animals {
			if a.Flock == "640238" {
				a.Sire = ram.ID // seven pages of progeny
			}
		}
		f.add(ram)
		return f
	}
	cases := []map[string]any{
		{"flock_id": "640238"},
		{"search": map[string]any{"breed_id": 640}},
		{"progeny_of": ram.ID},
	}
	for _, sent := range cases {
		one := build()
		want := runGated(t, FlockSummary, &onlyOne{one}, sent)
		var a flockAnswer
		if err := json.Unmarshal(want, &a); err != nil || a.Computed.Pages < 7 {
			t.Fatalf("%v: %d pages (%v), want a listing of several", sent, a.Computed.Pages, err)
		}
		for _, width := range []int{2, 4} {
			f := build()
			g := newPageGate(f, width)
			got := runGated(t, FlockSummary, g, sent)
			if g.stuck || g.peak != width {
				t.Errorf("%v width %d: at most %d pages under way at once (stuck waiting for more: %v), want %d", sent, width, g.peak, g.stuck, width)
			}
			if string(got) != string(want) {
				t.Errorf("%v width %d: answer\n%s\nwant, as one page at a time,\n%s", sent, width, got, want)
			}
			if f.lookups != one.lookups {
				t.Errorf("%v width %d: %d lookups, one page at a time %d", sent, width, f.lookups, one.lookups)
			}
		}
	}
}

// A listing whose pages run out before NSIP's count (an empty page) ends
// the scan as one page at a time would, and reads ahead no page the count
// does not hold.
func TestGroupPagesAheadWithinTheCount(t *testing.T) {
	build := func() *fakeSource {
		f := flockOf(44, 420) // five pages
		f.pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
			if page == 2 {
				return nil
			}
			return rows
		}
		return f
	}
	sent := map[string]any{"flock_id": "640238"}
	one := build()
	want := runGated(t, FlockSummary, &onlyOne{one}, sent)
	f := build()
	got := runGated(t, FlockSummary, &onlyOne{f}, sent) // sanity: deterministic
	if string(got) != string(want) {
		t.Fatal("one page at a time gives two answers")
	}
	wide := build()
	got = runGated(t, FlockSummary, wideSource{wide, 8}, sent)
	// The same answer but for the lookups it counts.
	if a, b := withoutUpstream(t, got), withoutUpstream(t, want); a != b {
		t.Errorf("answer\n%s\nwant, as one page at a time,\n%s", a, b)
	}
	// Pages 3 and 4 (of five by the count) were read ahead before page 2
	// showed empty: no more than the count holds.
	if wide.lookups > 5 || one.lookups != 3 {
		t.Errorf("%d pages read at once, %d one at a time; want at most the 5 of the count, and 3", wide.lookups, one.lookups)
	}
}

// wideSource lets the call have n lookups under way.
type wideSource struct {
	*fakeSource
	n int
}

func (w wideSource) Parallel() int { return w.n }

// withoutUpstream is a flock answer's JSON less its lookup counts.
func withoutUpstream(t *testing.T, b []byte) string {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	delete(a["computed"].(map[string]any), "upstream")
	out, _ := json.Marshal(a)
	return string(out)
}

// A ranking by NSIP's index reads every page up to the count, so the pages
// after the first are read at once, and the answer and the pages read are
// those of one page at a time: a breed of seven pages, and one past the
// scan limit, whose pages ahead stop at the limit.
func TestIndexRankingPagesReadAtOnce(t *testing.T) {
	for _, n := range []int{650, 3500} {
		sent := map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 5}
		one := indexed(6, n)
		want := runGated(t, Rank, &onlyOne{one}, sent)
		for _, width := range []int{2, 4} {
			f := indexed(6, n)
			g := newPageGate(f, width)
			got := runGated(t, Rank, g, sent)
			if g.stuck || g.peak != width {
				t.Errorf("%d animals, width %d: at most %d pages under way at once (stuck waiting for more: %v), want %d", n, width, g.peak, g.stuck, width)
			}
			if string(got) != string(want) {
				t.Errorf("%d animals, width %d: answer\n%s\nwant, as one page at a time,\n%s", n, width, got, want)
			}
			if f.lookups != one.lookups || f.callsOf("search") != one.callsOf("search") {
				t.Errorf("%d animals, width %d: %d lookups (%d searches), one page at a time %d (%d)", n, width, f.lookups, f.callsOf("search"), one.lookups, one.callsOf("search"))
			}
		}
	}
}
