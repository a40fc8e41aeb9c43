package structured

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// titles are the titles of a schema's anyOf branches.
func titles(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var doc struct {
		AnyOf []struct {
			Title string `json:"title"`
		} `json:"anyOf"`
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	var out []string
	for _, b := range doc.AnyOf {
		out = append(out, b.Title)
	}
	for name := range doc.Defs {
		if strings.Contains(name, ".") {
			t.Errorf("$defs key %q names a Go package", name)
		}
	}
	return out
}

func has(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}

// A lookup's schema offers NSIP's own object first, then its decoded model,
// then its kind's summaries; with percentiles, the percentile analysis's
// answer too.
func TestLookupSchema(t *testing.T) {
	plain := titles(t, Lookup(reflect.TypeFor[nsip.Lineage](), summarize.KindLineage, false))
	if len(plain) < 3 || plain[0] != PassThroughTitle || plain[1] != "NSIP answer, decoded" {
		t.Fatalf("branches %q: want NSIP's own answer, the decoded model, then summaries", plain)
	}
	for _, s := range summarize.Shapes(summarize.KindLineage) {
		if !has(plain, s.Name) {
			t.Errorf("no branch for the summary %q in %q", s.Name, plain)
		}
	}
	pct := titles(t, Lookup(reflect.TypeFor[nsip.AnimalProfile](), summarize.KindProfile, true))
	if len(pct) <= len(titles(t, Lookup(reflect.TypeFor[nsip.AnimalProfile](), summarize.KindProfile, false))) {
		t.Errorf("with percentiles, branches %q add nothing", pct)
	}
	for _, ty := range percentile.AnimalPercentiles.Answers {
		if name := schemaNames[ty]; !has(pct, name) {
			t.Errorf("no branch %q for the percentile answer in %q", name, pct)
		}
	}
}

// An analysis's schema is its answers then the generic summaries; one that
// names no answer is a mistake caught at once.
func TestAnalysisSchema(t *testing.T) {
	got := titles(t, Analysis(percentile.AnimalPercentiles))
	if len(got) < len(percentile.AnimalPercentiles.Answers)+1 {
		t.Errorf("branches %q", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "bare") {
			t.Errorf("an analysis with no answer type: %v, want a panic naming it", r)
		}
	}()
	Analysis(&analysis.Def{Def: tooldef.Def{Name: "bare"}})
}

// The copy of an object is its text, byte for byte; a bare list is its
// model's JSON, or the generic form without one; a text that is no JSON at
// all has no copy.
func TestCopy(t *testing.T) {
	text := `{"b": 1,  "a":[2]}`
	if got := Copy(summarize.KindGeneric, text, true, nil); string(got) != text {
		t.Errorf("object copied as %s, want the text's bytes", got)
	}
	model := []nsip.Breed{{ID: 640, Name: "Katahdin"}}
	want, _ := nsip.PlainJSON(model)
	if got := Copy(summarize.KindGeneric, `[{"breedId":640}]`, false, model); string(got) != string(want) {
		t.Errorf("bare list with a model copied as %s, want %s", got, want)
	}
	got := Copy(summarize.KindSearch, `[1,2]`, false, nil)
	var g map[string]any
	if err := json.Unmarshal(got, &g); err != nil || g["of"] != string(summarize.KindSearch) {
		t.Errorf("bare list without a model copied as %s, want the generic form of search_results", got)
	}
	if got := Copy(summarize.KindGeneric, `[1,2]`, false, make(chan int)); !strings.Contains(string(got), `[1,2]`) {
		t.Errorf("a model that cannot be written: copy %s, want the generic form", got)
	}
	if got := Copy(summarize.KindGeneric, `not json`, false, nil); got != nil {
		t.Errorf("a text that is not JSON copied as %s, want none", got)
	}
}

// Strip takes the output schema off each tool and structuredContent off
// each result, and leaves the text and errors as they were.
func TestStrip(t *testing.T) {
	tool := mcp.NewTool("t")
	tool.RawOutputSchema = json.RawMessage(`{"type":"object"}`)
	calls := 0
	tools := Strip([]server.ServerTool{{Tool: tool, Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		if calls == 2 {
			return nil, context.Canceled
		}
		res := mcp.NewToolResultText(`{"a":1}`)
		res.RawStructuredContent = json.RawMessage(`{"a":1}`)
		res.StructuredContent = map[string]any{"a": 1}
		return res, nil
	}}})
	if tools[0].Tool.RawOutputSchema != nil {
		t.Error("the output schema is still declared")
	}
	res, err := tools[0].Handler(context.Background(), mcp.CallToolRequest{})
	if err != nil || res.RawStructuredContent != nil || res.StructuredContent != nil {
		t.Errorf("result %+v, %v: want no structured copy", res, err)
	}
	if text := res.Content[0].(mcp.TextContent).Text; text != `{"a":1}` {
		t.Errorf("text %q changed", text)
	}
	if res, err := tools[0].Handler(context.Background(), mcp.CallToolRequest{}); res != nil || err != context.Canceled {
		t.Errorf("a failing handler: %v, %v; want its error as it was", res, err)
	}
}
