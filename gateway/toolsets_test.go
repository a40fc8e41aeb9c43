package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

func withToolsets(names ...string) envOption {
	return withConfig(func(c *Config) { c.Toolsets = names })
}

func toolNames(t *testing.T, e *env) []string {
	t.Helper()
	var names []string
	for _, tool := range listTools(t, e) {
		names = append(names, tool["name"].(string))
	}
	return names
}

// initializeAs opens a second session on e's server speaking version and
// returns what it was told on connecting (initialize, or server/discover
// from 2026-07-28 on).
func initializeAs(t *testing.T, srv *server.MCPServer, version string) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	return rpctest.Connect(t, srv, version)
}

var bothProtocols = []string{mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION}

func TestToolsetsChooseWhatIsListedAndCallable(t *testing.T) {
	cases := []struct {
		toolsets []string
		want     []string
	}{
		{nil, wantTools},
		{[]string{toolsets.Lookup, toolsets.Analysis}, wantTools},
		{[]string{toolsets.Analysis, toolsets.Lookup}, wantTools}, // the table's order whatever the setting's
		{[]string{toolsets.Lookup}, lookupTools},
		{[]string{toolsets.Analysis}, analysisTools},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.toolsets, ","), func(t *testing.T) {
			e := newEnv(t, withToolsets(tc.toolsets...))
			if got := toolNames(t, e); !slices.Equal(got, tc.want) {
				t.Fatalf("tools/list %v, want %v", got, tc.want)
			}
			for _, name := range wantTools {
				if slices.Contains(tc.want, name) {
					continue
				}
				req := mcp.CallToolRequest{}
				req.Params.Name = name
				req.Params.Arguments = map[string]any{}
				res, err := e.client.CallTool(context.Background(), req)
				if err != nil || !res.IsError {
					t.Fatalf("calling %s, which is not offered: %v, want an error result", name, err)
				}
				text := res.Content[0].(mcp.TextContent).Text
				if !strings.Contains(text, "this server does not offer "+name+": the server's NSIP_TOOLSETS setting leaves out its toolset") {
					t.Errorf("calling %s, which is not offered: %s", name, text)
				}
			}
			if e.up.TotalRequests() != 0 {
				t.Errorf("tools not offered reached NSIP %d times", e.up.TotalRequests())
			}
		})
	}
}

// The instructions name the tools offered and no other, over initialize
// and server/discover alike, date or no date.
func TestInstructionsNameOnlyTheToolsOffered(t *testing.T) {
	for _, sets := range [][]string{{toolsets.Lookup}, {toolsets.Analysis}, {toolsets.Lookup, toolsets.Analysis}} {
		t.Run(strings.Join(sets, ","), func(t *testing.T) {
			e := newEnv(t, withToolsets(sets...))
			offered := toolNames(t, e)
			// Once the date is known, its sentence points at
			// nsip_get_last_update only when that is offered. Resources read
			// through the lookups whatever the toolsets, as this does.
			if res := (featureTools{e.gw}).Call(context.Background(), "nsip_get_last_update", param.SentOf(map[string]any{})); res.IsError {
				t.Fatalf("last update: %+v", res.Content)
			}
			for _, v := range bothProtocols {
				_, res := initializeAs(t, e.srv, v)
				text := res.Instructions
				if !strings.Contains(text, "evaluation of "+e.up.Data().LastUpdated()) {
					t.Errorf("%s: the evaluation date is missing: %s", v, text)
				}
				for _, name := range wantTools {
					if got, want := strings.Contains(text, name), slices.Contains(offered, name); got != want {
						t.Errorf("%s: instructions name %s: %v, want %v\n%s", v, name, got, want, text)
					}
				}
				if got, want := strings.Contains(text, "Prompts start"), slices.Contains(sets, toolsets.Lookup); got != want {
					t.Errorf("%s: instructions offer prompts: %v, want %v", v, got, want)
				}
				if !strings.Contains(text, "nsip://traits") {
					t.Errorf("%s: the resources, offered whatever the toolsets, are not described", v)
				}
			}
		})
	}
}

// Prompts are offered only when the tools they need are, and name only
// the tools offered: the mating check falls back to pedigrees without
// nsip_check_mating; with the analyses alone no prompt can be followed.
func TestPromptsFollowTheToolsets(t *testing.T) {
	list := func(e *env) []mcp.Prompt {
		res, err := e.client.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Prompts
	}
	e := newEnv(t, withToolsets(toolsets.Lookup))
	prompts := list(e)
	if len(prompts) != 5 {
		t.Errorf("lookups alone: %d prompts, want all 5", len(prompts))
	}
	for _, p := range prompts {
		tools := promptTools(t, p)
		for _, tool := range tools {
			if !slices.Contains(lookupTools, tool) {
				t.Errorf("%s names %s, which is not offered", p.Name, tool)
			}
		}
		if strings.Contains(p.Description, "nsip_check_mating") {
			t.Errorf("%s: description names nsip_check_mating, which is not offered: %s", p.Name, p.Description)
		}
		if p.Name == "check_planned_mating" && !slices.Equal(tools, []string{"nsip_get_lineage", "nsip_get_animal"}) {
			t.Errorf("check_planned_mating uses %v, want the pedigrees and records", tools)
		}
	}

	mating := func(e *env) string {
		res, err := e.getPrompt("check_planned_mating", map[string]string{"ram_lpn_id": "6402382024NCS310", "ewe_lpn_id": "6402382022ABC001"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Messages[0].Content.(mcp.TextContent).Text
	}
	if text := mating(e); strings.Contains(text, "nsip_check_mating") || !strings.Contains(text, "1. Fetch both pedigrees with nsip_get_lineage") {
		t.Errorf("lookups alone: the mating check points at a tool not offered, or not at the pedigrees:\n%s", text)
	}
	if text := mating(newEnv(t)); !strings.Contains(text, "1. Use nsip_check_mating") {
		t.Errorf("with the analyses: the mating check does not use nsip_check_mating:\n%s", text)
	}

	e = newEnv(t, withToolsets(toolsets.Analysis))
	if prompts := list(e); len(prompts) != 0 {
		t.Errorf("analyses alone: prompts %v, want none (each needs a lookup)", prompts)
	}
	if _, err := e.getPrompt("explain_animal_ebvs", map[string]string{"lpn_id": "6402382024NCS310"}); err == nil {
		t.Error("a prompt left out can still be fetched")
	}
}

// mcp-go sorts tools/list by name; the server lists them in the table's
// order instead, the same on every start.
func TestToolsListIsInTableOrderOnEveryStart(t *testing.T) {
	e := newEnv(t)
	for i := range 5 {
		srv := e.gw.NewMCPServer("nsip-mcp-test", "0.0.0")
		c := connect(t, srv)
		res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Equal(names, wantTools) {
			t.Fatalf("start %d: tools/list %v, want %v", i, names, wantTools)
		}
	}
}

// Lists depend only on the configuration, so a 2026-07-28 client is told it
// may reuse them for an hour, shared caches included; older protocols have
// no such fields and get none.
func TestListsCarryCacheHints(t *testing.T) {
	e := newEnv(t)
	for _, v := range bothProtocols {
		c, _ := initializeAs(t, e.srv, v)
		ctx := context.Background()
		tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		f := rpctest.ListFeatures(t, ctx, c)
		for method, r := range map[string]mcp.CacheableResult{
			"tools/list": tools.CacheableResult, "prompts/list": f.Prompts.CacheableResult,
			"resources/list": f.Resources.CacheableResult, "resources/templates/list": f.Templates.CacheableResult,
		} {
			ttl, ok := r.TTL()
			if !mcp.IsModernProtocol(v) {
				if ok || r.CacheScope != "" {
					t.Errorf("%s %s: hints %d %q on a protocol without them", v, method, ttl, r.CacheScope)
				}
				continue
			}
			if !ok || ttl != 3_600_000 || r.CacheScope != mcp.CacheScopePublic {
				t.Errorf("%s %s: ttlMs %d (set %v), scope %q; want 3600000, public", v, method, ttl, ok, r.CacheScope)
			}
		}
		if !mcp.IsModernProtocol(v) {
			continue
		}
		// A resource is NSIP data; it keeps mcp-go's private, revalidate default.
		read, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "nsip://traits"}})
		if err != nil {
			t.Fatal(err)
		}
		if ttl, _ := read.TTL(); ttl != 0 || read.CacheScope != mcp.CacheScopePrivate {
			t.Errorf("resources/read: ttlMs %d, scope %q; want 0, private", ttl, read.CacheScope)
		}
	}
}

// The server and each tool carry their toolset's icon (gateway/toolsets):
// lookups one, analyses another.
func TestServerAndToolsCarryIcons(t *testing.T) {
	e := newEnv(t)
	for _, v := range bothProtocols {
		_, res := initializeAs(t, e.srv, v)
		if len(res.ServerInfo.Icons) != 1 || res.ServerInfo.Icons[0].Src != toolsets.ServerIcon().Src {
			t.Errorf("%s: server icons %+v, want the sheep", v, res.ServerInfo.Icons)
		}
	}
	res, err := e.client.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		want := toolsets.Icon(toolsets.Lookup)
		if slices.Contains(analysisTools, tool.Name) {
			want = toolsets.Icon(toolsets.Analysis)
		}
		if len(tool.Icons) != 1 || tool.Icons[0].Src != want.Src {
			t.Errorf("%s: icons %+v, want %s", tool.Name, tool.Icons, want.Src)
		}
	}
}

// TestToolsListTokensPerToolset measures, with the server's cl100k_base
// counter, the whole tools/list result each toolset puts on the wire
// (recorded in specs/spec.md), and checks that the parts add up to the whole.
func TestToolsListTokensPerToolset(t *testing.T) {
	_, c := summarizer(t)
	// The tools as the server writes them: mcp-go's client keeps only part
	// of an output schema.
	count := func(sets ...string) (wire, bare, model int) {
		e := newEnv(t, withToolsets(sets...))
		var tools []mcp.Tool
		for _, st := range e.gw.Tools() {
			tools = append(tools, st.Tool)
		}
		b, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tools {
			tools[i].Icons = nil
		}
		nb, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tools {
			tools[i].RawOutputSchema = nil
		}
		mb, err := json.Marshal(tools)
		if err != nil {
			t.Fatal(err)
		}
		return c.Count(string(b)), c.Count(string(nb)), c.Count(string(mb))
	}
	all, allBare, allModel := count()
	lookup, lookupBare, lookupModel := count(toolsets.Lookup)
	analysis, analysisBare, analysisModel := count(toolsets.Analysis)
	t.Logf("tools/list tokens, with icons (without; without output schemas too): all %d (%d; %d), lookup %d (%d; %d), analysis %d (%d; %d)",
		all, allBare, allModel, lookup, lookupBare, lookupModel, analysis, analysisBare, analysisModel)
	if d := lookup + analysis - all; d < -10 || d > 10 {
		t.Errorf("lookup %d + analysis %d is %d tokens off all %d", lookup, analysis, d, all)
	}
	if lookup >= all || analysis >= all || lookupBare >= lookup {
		t.Errorf("a toolset costs as much as the whole list: all %d, lookup %d, analysis %d", all, lookup, analysis)
	}
}
