package analysis

import (
	"context"
	"strings"
	"testing"
)

// taskFake reads passes in the background as the caller's task, and
// answers each request with fill.
type taskFake struct {
	passFake
	fill PassFill
}

func (f taskFake) FillPassFor(_ context.Context, breed int, eval string) PassFill {
	f.memPasses.mu.Lock()
	defer f.memPasses.mu.Unlock()
	f.fills = append(f.fills, PassKey(breed, eval))
	return f.fill
}

// A breed too large for the call is answered by the binary search; the
// answer names the task reading its pass, or says why the read cannot be
// followed, or why it is not read at all.
func TestBreedPassFillNamesItsTask(t *testing.T) {
	for _, c := range []struct {
		name string
		fill PassFill
		task string
		want string
	}{
		{"followed", PassFill{TaskID: "t-1"}, "t-1", "being read in the background as task t-1 (task_id), since its 25 pages take more lookups than this call has left; follow it with tasks/get"},
		{"unfollowed", PassFill{Follow: "the client did not declare tasks support"}, "", "a later call uses it; the read cannot be followed as a task: the client did not declare tasks support"},
		{"under way", PassFill{}, "", "being read in the background, since its 25 pages take more lookups than this call has left; a later call uses it"},
		{"refused", PassFill{Why: "the server is shutting down"}, "", "not read: its 25 pages take more lookups than this call has left; nor in the background: the server is shutting down"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := population(6, 2500)
			src := taskFake{passFake{f, &memPasses{}}, c.fill}
			f.ceiling = f.lookups + 20 // fewer than the pass's 25 pages
			var a struct {
				Percentiles struct {
					Via       string            `json:"via"`
					BreedPass map[string]string `json:"breed_pass"`
					TaskID    string            `json:"task_id"`
				} `json:"percentiles"`
			}
			mustRunSource(t, Compare, src, map[string]any{"lpn_ids": pick(f, 7, 6), "traits": []any{"BWT", "WWT", "YWT", "FAT"}, "percentiles": true}, &a)
			note := a.Percentiles.BreedPass["640"]
			if a.Percentiles.TaskID != c.task || !strings.Contains(note, c.want) || a.Percentiles.Via != "binary search" || len(src.fills) != 1 {
				t.Errorf("task_id %q, via %q, breed_pass %q, fills %v; want task %q and %q", a.Percentiles.TaskID, a.Percentiles.Via, note, src.fills, c.task, c.want)
			}
		})
	}
}
