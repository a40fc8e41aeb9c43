package percentile_test

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
)

// A breed too large for the call is answered by the binary search; the
// answer names the task reading its pass, or says why the read cannot be
// followed, or why it is not read at all.
func TestBreedPassFillNamesItsTask(t *testing.T) {
	for _, c := range []struct {
		name string
		fill analysis.PassFill
		task string
		want string
	}{
		{"followed", analysis.PassFill{TaskID: "t-1"}, "t-1", "being read in the background as task t-1 (task_id), since its 25 pages take more lookups than this call has left; follow it with tasks/get"},
		{"unfollowed", analysis.PassFill{Follow: "the client did not declare tasks support"}, "", "a later call uses it; the read cannot be followed as a task: the client did not declare tasks support"},
		{"under way", analysis.PassFill{}, "", "being read in the background, since its 25 pages take more lookups than this call has left; a later call uses it"},
		{"refused", analysis.PassFill{Why: "the server is shutting down"}, "", "not read: its 25 pages take more lookups than this call has left; nor in the background: the server is shutting down"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := analysistest.Population(6, 2500)
			kept := &analysistest.MemPasses{}
			f.Store = analysistest.TaskPasses{MemPasses: kept, Answer: c.fill}
			f.Ceiling = f.Lookups + 20 // fewer than the pass's 25 pages
			var a struct {
				Percentiles struct {
					Via       string            `json:"via"`
					BreedPass map[string]string `json:"breed_pass"`
					TaskID    string            `json:"task_id"`
				} `json:"percentiles"`
			}
			analysistest.MustRunSource(t, compare.Compare, f, map[string]any{"lpn_ids": analysistest.Pick(f, 7, 6), "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}, &a)
			note := a.Percentiles.BreedPass["640"]
			if a.Percentiles.TaskID != c.task || !strings.Contains(note, c.want) || a.Percentiles.Via != "binary search" || len(kept.Fills) != 1 {
				t.Errorf("task_id %q, via %q, breed_pass %q, fills %v; want task %q and %q", a.Percentiles.TaskID, a.Percentiles.Via, note, kept.Fills, c.task, c.want)
			}
		})
	}
}
