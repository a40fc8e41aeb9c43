package toolcall

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// metaJSON is the _meta of r as a client reads it.
func metaJSON(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	b, err := json.Marshal(r.Meta.AdditionalFields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A plain hit reports its source and its fit; a page, a stale answer, words
// read, notes, an unrecognized shape and a summary's links each add their
// members, and only when they apply. The text comes first, then more.
func TestFittedWritesWhatTheAnswerReports(t *testing.T) {
	plain := Fitted(summarize.Result{Text: "{}", Tokens: 1, OriginalTokens: 1}, 2000, &Meta{Cache: "hit"})
	if got, want := metaJSON(t, plain), `{"budget":2000,"cache":"hit","original_tokens":1,"summarized":false,"tokens":1}`; got != want {
		t.Errorf("a plain hit's _meta:\n%s\nwant\n%s", got, want)
	}
	if len(plain.Content) != 1 || plain.Content[0].(mcp.TextContent).Text != "{}" {
		t.Errorf("content %+v", plain.Content)
	}
	m := &Meta{
		Cache: "stale", Upstream: map[string]int{"requests": 2}, Read: []string{`"living" read as every status but DEAD and CULL`},
		Notes: []string{"ZZZ is no trait of the glossary"}, Stale: true, StaleAge: 90, Why: "upstream_unavailable", Format: "an unknown member",
		Full: &full.Meta{JSON: "nsip://full/1.json"},
		Paging: &summarize.Paging{Page: 0, PageSize: 10, TotalCount: 40, TotalCountNote: "bounded", Next: &summarize.NextCall{Tool: "nsip_search_animals", Arguments: map[string]any{"page": 1}},
			NextWithheld: "none can meet the bound", Contradicting: &summarize.Contradicting{Count: 1},
			StatusHeld: &summarize.StatusHeld{Read: "living", LeftOut: 3}},
	}
	r := Fitted(summarize.Result{Text: "rows", Tokens: 5, OriginalTokens: 900, Summarized: true}, 500, m, mcp.NewTextContent("more"))
	var got map[string]any
	if err := json.Unmarshal([]byte(metaJSON(t, r)), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"cache", "upstream", "page", "page_size", "total_count", "next", "total_count_note", "next_withheld",
		"status_held", "contradicting_criteria", "read", "notes", "stale_age_seconds", "stale_reason", "shape_recognized", "format_note",
		"full", "tokens", "original_tokens", "summarized", "budget"} {
		if _, ok := got[k]; !ok {
			t.Errorf("_meta lacks %s: %v", k, got)
		}
	}
	// A status word's count stands for total_count: null unless proven.
	if got["total_count"] != nil || got["stale_age_seconds"] != float64(90) || got["shape_recognized"] != false || got["budget"] != float64(500) {
		t.Errorf("_meta %v", got)
	}
	if len(r.Content) != 2 || r.Content[1].(mcp.TextContent).Text != "more" {
		t.Errorf("content %+v", r.Content)
	}
}
