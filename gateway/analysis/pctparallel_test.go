package analysis

import (
	"encoding/json"
	"slices"
	"testing"
)

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
