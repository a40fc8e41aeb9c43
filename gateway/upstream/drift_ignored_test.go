package upstream

import (
	"testing"
	"time"
)

// TestNoteIgnoredKeepsOneEntryPerCriterion: an ignored criterion is its own
// entry beside the endpoint's shapes, new once per endpoint and criterion,
// counted on every sighting and keeping the first example.
func TestNoteIgnoredKeepsOneEntryPerCriterion(t *testing.T) {
	var d Drift
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	const ep = "search/getPageOfSearchResults"
	steps := []struct {
		criterion string
		new       bool
	}{{"gender", true}, {"gender", false}, {"trait_ranges.WWT", true}}
	for i, s := range steps {
		if got := d.NoteIgnored(ep, s.criterion, "A (sex Female, gender Male asked)", t0.Add(time.Duration(i)*time.Minute)); got != s.new {
			t.Errorf("step %d (%s): new = %v, want %v", i, s.criterion, got, s.new)
		}
	}
	if !d.Note(ep, "{records:[]}", "no records", t0) {
		t.Error("a shape of the same endpoint is not new")
	}
	snap := d.Snapshot()
	if len(snap) != 3 {
		t.Fatalf("entries %+v, want gender, trait_ranges.WWT and the shape", snap)
	}
	for _, e := range snap {
		if e.Criterion == "gender" && (e.Count != 2 || !e.LastSeen.Equal(t0.Add(time.Minute)) || e.Signature != "" || e.Reason != "A (sex Female, gender Male asked)") {
			t.Errorf("gender entry %+v, want 2 sightings, the example, no signature", e)
		}
	}
}
