package gateway

import (
	"encoding/json"
	"slices"
	"testing"
)

// Every conversation pays for tools/list before its first question: what
// a host hands its model of every tool, its name, description and input
// schema, has one ceiling for all the tools together. Measured at 2,988
// cl100k_base tokens for the fifteen tools once nsip_breed_diversity was
// added and the descriptions stopped naming max_tokens, which the
// server's instructions name once, and the lookups' the ranges and
// defaults their schemas give (3,054 before). The icons, which hosts display rather than
// pass on, have a ceiling of their own (iconBudget a tool), and
// TestToolsListTokensPerToolset measures the wire.
const toolsListBudget = 3000

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
	"nsip_breed_diversity",
}

// TestToolsListCost counts, with the server's own cl100k_base counter,
// what the tools cost a model in tools/list, all of them together.
func TestToolsListCost(t *testing.T) {
	e := newEnv(t)
	_, c := summarizer(t)
	listed := listTools(t, e)
	if n := len(lookupTools) + len(analysisTools); n != len(listed) {
		t.Errorf("the groups name %d tools, tools/list has %d: put each new tool in a group", n, len(listed))
	}
	total := 0
	for _, tool := range listed {
		name := tool["name"].(string)
		if !slices.Contains(lookupTools, name) && !slices.Contains(analysisTools, name) {
			t.Errorf("%s is in no group", name)
		}
		icons, _ := json.Marshal(tool["icons"])
		if n := c.Count(`"icons":` + string(icons)); n > iconBudget {
			t.Errorf("%s: icons cost %d tokens, over %d", name, n, iconBudget)
		}
		// Hosts hand their model a tool's name, description and input
		// schema. The title and annotations are for the host's display
		// and consent, the output schema for the client that checks and
		// renders results (its wire cost: TestOutputSchemaCost), _meta
		// (the tool's view) for the host that renders it.
		b, err := json.Marshal(map[string]any{"name": name, "description": tool["description"], "inputSchema": tool["inputSchema"]})
		if err != nil {
			t.Fatal(err)
		}
		n := c.Count(string(b))
		t.Logf("%-24s %4d tokens", name, n)
		total += n
	}
	t.Logf("all %d tools: %d tokens", len(listed), total)
	if total > toolsListBudget {
		t.Errorf("the tools cost %d tokens in tools/list, over %d", total, toolsListBudget)
	}
}
