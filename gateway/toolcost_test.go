package gateway

import (
	"encoding/json"
	"slices"
	"testing"
)

// toolsListBudget is the most tokens the nine tools may cost in
// tools/list: every conversation pays it before its first question.
const toolsListBudget = 1800

// TestToolsListCost counts, with the server's own cl100k_base counter,
// what the nine tools of wantTools cost in tools/list as the wire carries
// them. It counts those nine by name, so tools added beside them are
// measured on their own terms rather than pushing these over.
func TestToolsListCost(t *testing.T) {
	e := newEnv(t)
	_, c := summarizer(t)
	total, seen := 0, 0
	for _, tool := range listTools(t, e) {
		name := tool["name"].(string)
		if !slices.Contains(wantTools, name) {
			continue
		}
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		n := c.Count(string(b))
		t.Logf("%-24s %4d tokens", name, n)
		total += n
		seen++
	}
	if seen != len(wantTools) {
		t.Fatalf("counted %d of the %d tools", seen, len(wantTools))
	}
	t.Logf("the nine tools: %d tokens", total)
	if total > toolsListBudget {
		t.Errorf("the nine tools cost %d tokens in tools/list, over %d", total, toolsListBudget)
	}
}
