package gateway

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// Every conversation pays for tools/list before its first question, so
// each group of tools has a ceiling in tokens: the nine lookups, and the
// analyses (measured at 2,053 when they were added, 1,379 once their schemas
// stopped repeating what the descriptions say and validation enforces, 1,634
// once rank took NSIP's indexes and a flock's ewes and compare showed the
// indexes, and both took breed percentiles).
// The ceilings count each tool as a host hands it to its model; the icons,
// which hosts display rather than pass on, have a ceiling of their own
// (iconBudget a tool), and TestToolsListTokensPerToolset measures the wire.
var toolsListBudgets = []struct {
	group  string
	tools  []string
	budget int
}{
	{"the nine tools", lookupTools, 1850}, // 1,826 once nsip_get_animal took percentiles
	{"the analysis tools", analysisTools, 1650},
}

// iconBudget bounds the tokens of one tool's icons in tools/list: every tool
// repeats its icon.
const iconBudget = 125

// lookupTools are the nine tools that each answer one NSIP lookup.
var lookupTools = []string{
	"nsip_get_last_update", "nsip_list_breeds", "nsip_get_statuses", "nsip_get_trait_ranges",
	"nsip_search_animals", "nsip_get_animal", "nsip_get_lineage", "nsip_get_progeny", "nsip_search_by_lpn",
}

// analysisTools compute on the server from many lookups.
var analysisTools = []string{
	"nsip_check_mating", "nsip_compare_animals", "nsip_rank_animals", "nsip_flock_summary", "nsip_plan_matings",
}

// TestToolsListCost counts, with the server's own cl100k_base counter,
// what each group of tools costs in tools/list as the wire carries them.
func TestToolsListCost(t *testing.T) {
	e := newEnv(t)
	_, c := summarizer(t)
	listed := listTools(t, e)
	for _, g := range toolsListBudgets {
		checkToolsCost(t, c, listed, g.group, g.tools, g.budget)
	}
	if n := len(lookupTools) + len(analysisTools); n != len(listed) {
		t.Errorf("the groups name %d tools, tools/list has %d: put each new tool in a group", n, len(listed))
	}
}

func checkToolsCost(t *testing.T, c interface{ Count(string) int }, listed []map[string]any, group string, names []string, budget int) {
	t.Helper()
	total, seen := 0, 0
	for _, tool := range listed {
		name := tool["name"].(string)
		if !slices.Contains(names, name) {
			continue
		}
		icons, _ := json.Marshal(tool["icons"])
		if n := c.Count(`"icons":` + string(icons)); n > iconBudget {
			t.Errorf("%s: icons cost %d tokens, over %d", name, n, iconBudget)
		}
		bare := maps.Clone(tool)
		delete(bare, "icons")
		// Hosts hand their model a tool's name, description and input
		// schema; the output schema is for the client that checks and
		// renders results (its wire cost: TestOutputSchemaCost).
		delete(bare, "outputSchema")
		// _meta (the tool's view) is for the host, which renders the view
		// beside the answer; hosts do not pass it to their model.
		delete(bare, "_meta")
		b, err := json.Marshal(bare)
		if err != nil {
			t.Fatal(err)
		}
		n := c.Count(string(b))
		t.Logf("%-24s %4d tokens", name, n)
		total += n
		seen++
	}
	if seen != len(names) {
		t.Fatalf("%s: counted %d of %d", group, seen, len(names))
	}
	t.Logf("%s: %d tokens", group, total)
	if total > budget {
		t.Errorf("%s cost %d tokens in tools/list, over %d", group, total, budget)
	}
}
