package gateway

import (
	"context"
	"regexp"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// requestsOf returns the debug records of the NSIP requests made for call.
func requestsOf(t *testing.T, logs *logbuf.Buffer, call string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rec := range logs.Messages(t, "nsip request") {
		if rec["call_id"] == call {
			out = append(out, rec)
		}
	}
	return out
}

var callIDShape = regexp.MustCompile(`^[0-9a-f]{16}$`)

// One line per call names the call, the session, the cache outcome and what
// NSIP was asked; the requests behind it carry the same call ID.
func TestCallLogLineNamesCallSessionAndUpstream(t *testing.T) {
	e := newEnv(t)
	lpn := e.up.Data().AnimalIDs()[0]
	e.call("nsip_get_animal", map[string]any{"search_string": lpn}).mustOK(t)
	e.call("nsip_get_animal", map[string]any{"search_string": lpn}).mustOK(t)

	calls := e.logs.Messages(t, "tool call")
	if len(calls) != 2 {
		t.Fatalf("%d tool call lines; want 2", len(calls))
	}
	miss, hit := calls[0], calls[1]
	id, _ := miss["call_id"].(string)
	if !callIDShape.MatchString(id) || hit["call_id"] == id || !callIDShape.MatchString(hit["call_id"].(string)) {
		t.Errorf("call IDs %q and %q; want two distinct 16-hex-digit IDs", id, hit["call_id"])
	}
	opened := e.logs.Messages(t, "session opened")
	if len(opened) != 1 || opened[0]["session"] == "" || miss["session"] != opened[0]["session"] {
		t.Errorf("session opened %v, call's session %q; want the call to name the session that opened", opened, miss["session"])
	}
	if miss["cache"] != cacheMiss || miss["upstream_attempts"] != 1.0 || miss["upstream_status"] != 200.0 || miss["upstream_ms"] == nil {
		t.Errorf("miss line = %v; want cache miss, 1 upstream attempt, status 200 and its time", miss)
	}
	if tok, _ := miss["tokens"].(float64); tok <= 0 {
		t.Errorf("miss line tokens = %v; want the answer's tokens", miss["tokens"])
	}
	if hit["cache"] != cacheHit || hit["upstream_attempts"] != 0.0 || hit["upstream_status"] != nil {
		t.Errorf("hit line = %v; want cache hit and no upstream request", hit)
	}

	reqs := requestsOf(t, e.logs, id)
	if len(reqs) != 1 {
		t.Fatalf("%d nsip request lines for call %s; want 1", len(reqs), id)
	}
	r := reqs[0]
	if r["level"] != "DEBUG" || r["endpoint"] != "get_animal_details" || r["status"] != 200.0 || r["attempt"] != 1.0 || r["latency_ms"] == nil {
		t.Errorf("request line = %v; want debug, the details endpoint, status 200, attempt 1 and its latency", r)
	}
	if n := len(requestsOf(t, e.logs, hit["call_id"].(string))); n != 0 {
		t.Errorf("the cache hit logged %d requests", n)
	}
}

// An analysis's line counts the lookups its _meta reports, and the upstream
// requests its lookups made.
func TestAnalysisLogLineCountsLookups(t *testing.T) {
	e := newEnv(t)
	ids := e.up.Data().AnimalIDs()
	// One animal already cached: the analysis fetches the other.
	e.call("nsip_get_animal", map[string]any{"search_string": ids[0]}).mustOK(t)
	r := e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{ids[0], ids[1]}}).mustOK(t)
	up, _ := r.meta["upstream"].(map[string]any)
	if up == nil {
		t.Fatalf("no _meta.upstream: %v", r.meta)
	}
	calls := e.logs.Messages(t, "tool call")
	line := calls[len(calls)-1]
	if line["tool"] != "nsip_compare_animals" {
		t.Fatalf("last call line is %v", line)
	}
	for _, k := range []string{"lookups", "fetched", "cached"} {
		if line[k] != up[k] {
			t.Errorf("log %s = %v; _meta.upstream says %v", k, line[k], up[k])
		}
	}
	if up["lookups"] != 2.0 || up["fetched"] != 1.0 || up["cached"] != 1.0 {
		t.Errorf("_meta.upstream = %v; want 2 lookups, 1 fetched, 1 cached", up)
	}
	reqs := requestsOf(t, e.logs, line["call_id"].(string))
	if len(reqs) == 0 || line["upstream_attempts"] != float64(len(reqs)) {
		t.Errorf("upstream_attempts = %v, %d request lines carry the call's ID; want them equal and non-zero", line["upstream_attempts"], len(reqs))
	}
}

// A failed call logs its error under "error", with the upstream status that
// caused it.
func TestFailedCallLogsErrorAndUpstreamStatus(t *testing.T) {
	e := newEnv(t)
	e.call("nsip_get_animal", map[string]any{"search_string": "9999999999ZZZ999"}).errorBody(t)
	calls := e.logs.Messages(t, "tool call")
	line := calls[len(calls)-1]
	if line["status"] != toolerr.CodeNotFound || line["error"] == nil || line["upstream_status"] != 404.0 {
		t.Errorf("line = %v; want not_found, its problem under error, upstream status 404", line)
	}
}

// A call outside any session (a stateless HTTP server's) names the caller
// its transport recorded; one through no transport is local.
func TestCallWithoutSessionNamesItsCaller(t *testing.T) {
	e := newEnv(t)
	req := mcp.CallToolRequest{}
	req.Params.Name = lookup.ListBreeds.Name
	req.Params.Arguments = map[string]any{}
	for _, ctx := range []context.Context{caller.WithRequest(context.Background(), caller.Address("192.0.2.7")), context.Background()} {
		if res := e.gw.call(ctx, toolOf(lookup.ListBreeds), req); res.IsError {
			t.Fatalf("call failed: %v", res.Content)
		}
	}
	calls := e.logs.Messages(t, "tool call")
	for i, want := range []string{"addr:192.0.2.7", "local"} {
		line := calls[len(calls)-2+i]
		if line["client"] != want || line["session"] != nil {
			t.Errorf("line = %v; want client %s and no session", line, want)
		}
	}
}
