package flock

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// pageGate is the fake source holding pages at a LookupGate: the first
// page of a listing is read alone (it gives NSIP's count), later pages
// wait until width of them are under way together.
type pageGate struct {
	*analysistest.FakeSource
	*analysistest.LookupGate
}

func newPageGate(f *analysistest.FakeSource, width int) *pageGate {
	return &pageGate{FakeSource: f, LookupGate: analysistest.NewLookupGate(width)}
}

func (g *pageGate) Limits() analysis.Limits {
	return analysistest.WithParallel(g.FakeSource, g.LookupGate.Width)
}

func (g *pageGate) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	defer g.Enter(q.Page > 0)()
	return g.FakeSource.Search(ctx, q)
}

func (g *pageGate) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	defer g.Enter(page > 0)()
	return g.FakeSource.Progeny(ctx, id, page, size)
}

// A group's pages after the first are read at once, as many under way as
// the call may have and never more, and the answer and the pages read are
// those of one page at a time: a flock, a search of the breed and a ram's
// progeny, each of seven pages or more.
func TestGroupPagesReadAtOnce(t *testing.T) {
	ram := &analysistest.FakeAnimal{ID: "6402382015RAM001", Sex: "Male", Flock: "640238", EBV: map[string]float64{"BWT": 0.1}}
	build := func() *analysistest.FakeSource {
		f := analysistest.FlockOf(43, 650)
		for _, a := range f.Animals {
			if a.Flock == "640238" {
				a.Sire = ram.ID // seven pages of progeny
			}
		}
		f.Add(ram)
		return f
	}
	cases := []map[string]any{
		{"flock_id": "640238"},
		{"search": map[string]any{"breed_id": 640}},
		{"progeny_of": ram.ID},
	}
	for _, sent := range cases {
		one := build()
		want := analysistest.RunGated(t, FlockSummary, &analysistest.OnlyOne{FakeSource: one}, sent)
		var a analysistest.FlockAnswer
		if err := json.Unmarshal(want, &a); err != nil || a.Computed.Pages < 7 {
			t.Fatalf("%v: %d pages (%v), want a listing of several", sent, a.Computed.Pages, err)
		}
		for _, width := range []int{2, 4} {
			f := build()
			g := newPageGate(f, width)
			got := analysistest.RunGated(t, FlockSummary, g, sent)
			if g.Stuck || g.Peak != width {
				t.Errorf("%v width %d: at most %d pages under way at once (stuck waiting for more: %v), want %d", sent, width, g.Peak, g.Stuck, width)
			}
			if string(got) != string(want) {
				t.Errorf("%v width %d: answer\n%s\nwant, as one page at a time,\n%s", sent, width, got, want)
			}
			if f.Lookups != one.Lookups {
				t.Errorf("%v width %d: %d lookups, one page at a time %d", sent, width, f.Lookups, one.Lookups)
			}
		}
	}
}

// A listing whose pages run out before NSIP's count (an empty page) ends
// the scan as one page at a time would, and reads ahead no page the count
// does not hold.
func TestGroupPagesAheadWithinTheCount(t *testing.T) {
	build := func() *analysistest.FakeSource {
		f := analysistest.FlockOf(44, 420) // five pages
		f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
			if page == 2 {
				return nil
			}
			return rows
		}
		return f
	}
	sent := map[string]any{"flock_id": "640238"}
	one := build()
	want := analysistest.RunGated(t, FlockSummary, &analysistest.OnlyOne{FakeSource: one}, sent)
	f := build()
	got := analysistest.RunGated(t, FlockSummary, &analysistest.OnlyOne{FakeSource: f}, sent) // sanity: deterministic
	if string(got) != string(want) {
		t.Fatal("one page at a time gives two answers")
	}
	wide := build()
	got = analysistest.RunGated(t, FlockSummary, wideSource{wide, 8}, sent)
	// The same answer but for the lookups it counts.
	if a, b := withoutUpstream(t, got), withoutUpstream(t, want); a != b {
		t.Errorf("answer\n%s\nwant, as one page at a time,\n%s", a, b)
	}
	// Pages 3 and 4 (of five by the count) were read ahead before page 2
	// showed empty: no more than the count holds.
	if wide.Lookups > 5 || one.Lookups != 3 {
		t.Errorf("%d pages read at once, %d one at a time; want at most the 5 of the count, and 3", wide.Lookups, one.Lookups)
	}
}

// wideSource lets the call have n lookups under way.
type wideSource struct {
	*analysistest.FakeSource
	n int
}

func (w wideSource) Limits() analysis.Limits { return analysistest.WithParallel(w.FakeSource, w.n) }

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
		one := analysistest.Indexed(6, n)
		want := analysistest.RunGated(t, rank.Rank, &analysistest.OnlyOne{FakeSource: one}, sent)
		for _, width := range []int{2, 4} {
			f := analysistest.Indexed(6, n)
			g := newPageGate(f, width)
			got := analysistest.RunGated(t, rank.Rank, g, sent)
			if g.Stuck || g.Peak != width {
				t.Errorf("%d animals, width %d: at most %d pages under way at once (stuck waiting for more: %v), want %d", n, width, g.Peak, g.Stuck, width)
			}
			if string(got) != string(want) {
				t.Errorf("%d animals, width %d: answer\n%s\nwant, as one page at a time,\n%s", n, width, got, want)
			}
			if f.Lookups != one.Lookups || f.CallsOf("search") != one.CallsOf("search") {
				t.Errorf("%d animals, width %d: %d lookups (%d searches), one page at a time %d (%d)", n, width, f.Lookups, f.CallsOf("search"), one.Lookups, one.CallsOf("search"))
			}
		}
	}
}
