package gateway

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

var wantTools = []string{
	"nsip_get_last_update", "nsip_list_breeds", "nsip_get_statuses", "nsip_get_trait_ranges",
	"nsip_search_animals", "nsip_get_animal", "nsip_get_lineage", "nsip_get_progeny", "nsip_search_by_lpn",
	"nsip_check_mating", "nsip_compare_animals", "nsip_rank_animals", "nsip_flock_summary", "nsip_plan_matings",
	"nsip_breed_diversity",
}

// listTools returns tools/list as the wire carries it.
func listTools(t *testing.T, e *env) []map[string]any {
	t.Helper()
	res, err := e.client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []map[string]any
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestToolsListHasTheNineToolsWithAllHints(t *testing.T) {
	e := newEnv(t)
	tools := listTools(t, e)
	var names []string
	for _, tool := range tools {
		name := tool["name"].(string)
		names = append(names, name)
		t.Run(name, func(t *testing.T) {
			if title, _ := tool["title"].(string); title == "" {
				t.Error("no title")
			}
			ann, ok := tool["annotations"].(map[string]any)
			if !ok {
				t.Fatal("no annotations")
			}
			want := map[string]bool{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}
			for hint, v := range want {
				got, ok := ann[hint].(bool)
				if !ok {
					t.Errorf("%s missing", hint)
				} else if got != v {
					t.Errorf("%s = %v, want %v", hint, got, v)
				}
			}
			if ann["readOnlyHint"] == true && ann["destructiveHint"] == true {
				t.Error("read-only and destructive at once")
			}
			if ann["title"] != tool["title"] {
				t.Errorf("annotation title %q differs from title %q", ann["title"], tool["title"])
			}
			schema := tool["inputSchema"].(map[string]any)
			if schema["type"] != "object" || schema["additionalProperties"] != false {
				t.Errorf("input schema must be a closed object: %v", schema)
			}
			desc, _ := tool["description"].(string)
			if desc == "" || len(desc) > 1200 {
				t.Errorf("description of %d bytes; want a short manual", len(desc))
			}
			for prop := range schema["properties"].(map[string]any) {
				// Every tool takes max_tokens, which the server's
				// instructions say once rather than fifteen descriptions.
				if !strings.Contains(desc, prop) && prop != argMaxTokens {
					t.Errorf("description does not mention argument %s", prop)
				}
			}
		})
	}
	slices.Sort(names)
	want := slices.Clone(wantTools)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
}

// TestSnapshot compares each tool's tools/list entry with its contract under
// specs/contracts/tools. Run with -update to rewrite them after a deliberate
// change.
func TestSnapshot(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join("..", "specs", "contracts", "tools")
	res, err := e.client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			// The output schema has a contract of its own, as the server
			// writes it (TestOutputSchemaSnapshot): mcp-go's client keeps
			// only part of it.
			tool.OutputSchema = mcp.ToolOutputSchema{}
			snapshot.Check(t, filepath.Join(dir, tool.Name+".json"), snapshot.Indented(t, tool), snapshot.JSON,
				"go test ./gateway -run Snapshot -update")
		})
	}
	// A snapshot without a live tool is a removed tool: also a contract change.
	snapshot.Orphans(t, dir, func(name string) bool { return slices.Contains(wantTools, name) })
}

// TestPassThroughEqualsUpstreamJSON drives every tool whose answer fits the
// budget and checks the text is the upstream body, compacted, unmodified.
func TestPassThroughEqualsUpstreamJSON(t *testing.T) {
	e := newEnv(t)
	data := e.up.Data()
	id := data.NoProgeny()
	founder := data.Founder()
	parent := data.MostProgeny()
	tests := []struct {
		tool   string
		args   map[string]any
		method string
		path   string
		body   string
	}{
		{"nsip_get_last_update", nil, "GET", nsiptest.EndpointLastUpdated, ""},
		{"nsip_list_breeds", map[string]any{}, "GET", nsiptest.EndpointBreedGroups, ""},
		{"nsip_get_statuses", nil, "GET", nsiptest.EndpointStatuses, ""},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 640}, "GET", nsiptest.EndpointTraitRanges + "?breedId=640", ""},
		{"nsip_search_animals", map[string]any{"page_size": 2, "breed_id": 640},
			"POST", nsiptest.EndpointSearch + "?page=0&pageSize=2&breedId=640&reverse=false", "{}"},
		{"nsip_get_animal", map[string]any{"search_string": id}, "GET", nsiptest.EndpointDetails + "?searchString=" + url.QueryEscape(id), ""},
		{"nsip_get_lineage", map[string]any{"lpn_id": founder}, "GET", nsiptest.EndpointLineage + "?lpnId=" + url.QueryEscape(founder), ""},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 3}, "GET",
			nsiptest.EndpointProgeny + "?lpnId=" + url.QueryEscape(parent) + "&page=0&pageSize=3", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			want := e.upstreamBody(tt.method, tt.path, tt.body)
			r := e.call(tt.tool, tt.args).mustOK(t)
			if r.text != want {
				t.Errorf("text differs from the upstream JSON\n got %.400s\nwant %.400s", r.text, want)
			}
			if r.meta["summarized"] != false || r.meta["cache"] != "miss" {
				t.Errorf("_meta = %v, want summarized false, cache miss", r.meta)
			}
			if tok := r.metaInt(t, "tokens"); tok <= 0 || tok > 2000 || tok != r.metaInt(t, "original_tokens") {
				t.Errorf("_meta tokens = %v / original %v; a pass-through has equal counts within the budget", r.meta["tokens"], r.meta["original_tokens"])
			}
			if n := e.up.TotalRequests(); n != 1 {
				t.Errorf("upstream requests = %d, want 1", n)
			}
		})
	}
}

// TestLargeResultsAreSummarizedWithinBudget covers the tools whose answers
// outgrow the budget: a 100-row search page and a full profile.
func TestLargeResultsAreSummarizedWithinBudget(t *testing.T) {
	e := newEnv(t)
	_, counter := summarizer(t)
	parent := e.up.Data().MostProgeny()
	// A profile of NSIP's lean answers (ten progeny rows of three members,
	// four generations) is under the budget; a full lineage is over it.
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"nsip_search_animals", map[string]any{"page_size": 100}},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 100}},
		{"nsip_get_lineage", map[string]any{"lpn_id": e.up.Data().DeepPedigree()}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := e.call(tt.tool, tt.args).mustOK(t)
			if r.meta["summarized"] != true {
				t.Fatalf("_meta.summarized = %v, want true (original %v tokens)", r.meta["summarized"], r.meta["original_tokens"])
			}
			tokens, orig := r.metaInt(t, "tokens"), r.metaInt(t, "original_tokens")
			if got := counter.Count(r.text); got != tokens {
				t.Errorf("_meta.tokens = %d but the text has %d tokens", tokens, got)
			}
			if tokens > 2000 || orig <= 2000 || float64(tokens) > 0.3*float64(orig) {
				t.Errorf("tokens %d of original %d: want <= 2000 and <= 30%%", tokens, orig)
			}
			if !json.Valid([]byte(r.text)) {
				t.Errorf("summary is not JSON: %.200s", r.text)
			}
			if strings.Contains(r.text, `"tokens"`) || strings.Contains(r.text, `"cache"`) {
				t.Errorf("pipeline facts leaked into the payload: %.300s", r.text)
			}
			if r.metaInt(t, "budget") != 2000 {
				t.Errorf("_meta.budget = %v", r.meta["budget"])
			}
		})
	}
	if n := e.up.Requests(nsiptest.EndpointLineage); n != 1 {
		t.Errorf("lineage requests = %d, want 1", n)
	}
}
