package percentile_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
)

// An animal's percentiles of different traits are looked up at once: as
// many searches under way together as the call may have, never more, and
// the answer and its lookups those of one lookup at a time.
func TestAnimalPercentilesLookUpTraitsAtOnce(t *testing.T) {
	var id any // an animal with all four EBVs: the first alone, three at once
	for _, c := range analysistest.Pick(analysistest.Population(7, 700), 7, 20) {
		if len(analysistest.Population(7, 700).Animals[c.(string)].EBV) == 4 {
			id = c
			break
		}
	}
	sent := map[string]any{"search_string": id, "percentiles": true}
	one := analysistest.Population(7, 700)
	want := analysistest.RunGated(t, percentile.AnimalPercentiles, &analysistest.OnlyOne{FakeSource: one}, sent)
	for _, width := range []int{2, 3} {
		f := analysistest.Population(7, 700)
		first := slices.Sorted(func(yield func(string) bool) {
			for c := range f.Animals[id.(string)].EBV {
				if !yield(c) {
					return
				}
			}
		})[0]
		g := analysistest.NewGated(f, width, first)
		got := analysistest.RunGated(t, percentile.AnimalPercentiles, g, sent)
		if g.Stuck || g.Peak != width {
			t.Errorf("width %d: at most %d searches under way at once (stuck waiting for more: %v), want %d", width, g.Peak, g.Stuck, width)
		}
		if string(got) != string(want) {
			t.Errorf("width %d: answer\n%s\nwant, as one lookup at a time,\n%s", width, got, want)
		}
		if f.Lookups != one.Lookups {
			t.Errorf("width %d: %d lookups, one at a time %d", width, f.Lookups, one.Lookups)
		}
	}
}

// When the lookups for percentiles run out, the values left without one
// are those left one lookup at a time, however many run at once.
func TestPercentilesAtTheirLimitAsOneAtATime(t *testing.T) {
	ids := analysistest.Pick(analysistest.Population(9, 6000), 9, 20)
	sent := map[string]any{"lpn_ids": ids, "percentiles": true}
	one := analysistest.Population(9, 6000)
	want := analysistest.RunGated(t, compare.Compare, &analysistest.OnlyOne{FakeSource: one}, sent)
	var a analysistest.PctAnswer
	analysistest.Decode(t, json.RawMessage(want), &a)
	short := 0
	for _, row := range a.Animals {
		for _, p := range row.TopPercent {
			if p == nil {
				short++
			}
		}
	}
	if short == 0 || a.Percentiles.Lookups != percentile.Lookups {
		t.Fatalf("one at a time: %d values without a percentile, %d lookups; the test wants the limit of %d reached", short, a.Percentiles.Lookups, percentile.Lookups)
	}
	for range 3 {
		f := analysistest.Population(9, 6000)
		got := analysistest.RunGated(t, compare.Compare, f, sent)
		if string(got) != string(want) {
			t.Fatalf("answer at 4 at once (the default)\n%s\nwant, as one lookup at a time,\n%s", got, want)
		}
		if f.Lookups != one.Lookups {
			t.Errorf("%d lookups, one at a time %d", f.Lookups, one.Lookups)
		}
	}
}
