package upstream

import (
	"log/slog"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/summarize"
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
		if got := d.noteIgnored(ep, s.criterion, "A (sex Female, gender Male asked)", t0.Add(time.Duration(i)*time.Minute)); got != s.new {
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

// The rows of an answer that contradict its criteria are noted per
// criterion, most rows first, each with a row that names it as example,
// and warned of once per endpoint and criterion.
func TestNoteIgnoredRowsWarnsOncePerCriterion(t *testing.T) {
	var d Drift
	var buf logbuf.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	c := &summarize.Contradicting{Count: 3, ByCriterion: map[string]int{"gender": 2, "trait_ranges.WWT": 1},
		Rows: []string{"A (sex Female, gender Male asked)", "B (WWT 1.9, asked at least 2)", "C (sex Female, gender Male asked)"}}
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	d.NoteIgnoredRows("get_page_of_search_results", c, now, log)
	d.NoteIgnoredRows("get_page_of_search_results", c, now.Add(time.Minute), log)
	d.NoteIgnoredRows("get_page_of_search_results", nil, now, log)
	warned := buf.Messages(t, "NSIP returned rows that contradict a criterion of the call, a sign it ignored it; they are left out of summaries and named in _meta")
	if len(warned) != 2 {
		t.Fatalf("%d warnings, want one per criterion: %v", len(warned), warned)
	}
	want := map[string]string{"gender": "A (sex Female, gender Male asked)", "trait_ranges.WWT": "B (WWT 1.9, asked at least 2)"}
	for i, crit := range []string{"gender", "trait_ranges.WWT"} {
		if w := warned[i]; w["criterion"] != crit || w["example"] != want[crit] || w["endpoint"] != "get_page_of_search_results" {
			t.Errorf("warning %d: %v, want %s with example %q", i, w, crit, want[crit])
		}
	}
	if got := exampleOf([]string{"X (status SOLD)"}, "flock_id"); got != "X (status SOLD)" {
		t.Errorf("a criterion no row names: example %q, want the first row", got)
	}
	if got := exampleOf(nil, "gender"); got != "" {
		t.Errorf("no rows: example %q", got)
	}
}
