package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
)

// The same argument text sent again is not read again when its reading
// depended on the text alone, and is answered as before; a text whose
// reading asked NSIP something (a breed's name, a status) is read anew
// every time, since NSIP may answer otherwise later.
func TestArgumentsReadOnceOnlyFromTheirText(t *testing.T) {
	e := newEnv(t)
	lpn := e.up.Data().MostProgeny()
	held := func(d *lookup.Def, args map[string]any) bool {
		raw, err := json.Marshal(args) // as the client sends them
		if err != nil {
			t.Fatal(err)
		}
		return e.gw.memos[toolOf(d).index].Get(raw) != nil
	}
	args := map[string]any{"search_string": lpn}
	first := e.call("nsip_get_animal", args).mustOK(t)
	if !held(lookup.Animal, args) {
		t.Fatal("an animal's arguments were not kept")
	}
	again := e.call("nsip_get_animal", args).mustOK(t)
	if again.text != first.text || again.meta["cache"] != "hit" {
		t.Errorf("the kept arguments answered %.200s (%v), want %.200s from the cache", again.text, again.meta["cache"], first.text)
	}
	byName := map[string]any{"breed_id": "Katahdin", "page_size": 3}
	e.call("nsip_search_animals", byName).mustOK(t)
	if held(lookup.SearchAnimals, byName) {
		t.Error("a search naming its breed in words was kept")
	}
	byStatus := map[string]any{"breed_id": 640, "page_size": 3, "search_criteria": map[string]any{"status": "CURRENT"}}
	e.call("nsip_search_animals", byStatus).mustOK(t)
	if held(lookup.SearchAnimals, byStatus) {
		t.Error("a search naming a status was kept")
	}
	wrong := map[string]any{"search_string": "x"}
	e.call("nsip_get_animal", wrong).errorBody(t)
	if held(lookup.Animal, wrong) {
		t.Error("arguments refused were kept")
	}
	plainLineage := map[string]any{"lpn_id": lpn}
	e.call("nsip_get_lineage", plainLineage).mustOK(t)
	if !held(lookup.Lineage, plainLineage) {
		t.Error("a lineage's arguments were not kept")
	}
}

// A call read from a cached answer alone is answered again from what it
// rendered, while the cache holds that answer: the same text and _meta,
// counted as a cache hit, with no request. Once the cache's answer is
// another (here the first expired and was fetched again), the call is read
// and rendered anew.
func TestTheSameCallIsAnsweredAgainWhileItsAnswerIsCached(t *testing.T) {
	e := newEnv(t)
	lpn := e.up.Data().MostProgeny()
	args := map[string]any{"search_string": lpn}
	raw, _ := json.Marshal(args)
	kept := func() *toolcall.Kept { return e.gw.memos[toolOf(lookup.Animal).index].Get(raw) }
	miss := e.call("nsip_get_animal", args).mustOK(t)
	if miss.meta["cache"] != "miss" || kept().Answered() != nil {
		t.Fatalf("a miss: cache %v, answer kept %v", miss.meta["cache"], kept().Answered() != nil)
	}
	hit := e.call("nsip_get_animal", args).mustOK(t)
	first := kept().Answered()
	if hit.meta["cache"] != "hit" || first == nil {
		t.Fatalf("a hit: cache %v, answer kept %v", hit.meta["cache"], first != nil)
	}
	requests, hits := e.up.TotalRequests(), e.gw.cache.Stats().Hits
	again := e.call("nsip_get_animal", args).mustOK(t)
	if again.text != hit.text || !reflect.DeepEqual(again.meta, hit.meta) || !bytes.Equal(again.structured, hit.structured) {
		t.Errorf("answered again:\n%.200s %v\nwant\n%.200s %v", again.text, again.meta, hit.text, hit.meta)
	}
	if e.up.TotalRequests() != requests || e.gw.cache.Stats().Hits != hits+1 || kept().Answered() != first {
		t.Errorf("answered again: %d requests, %d hits, kept answer replaced %v; want none, one, no",
			e.up.TotalRequests()-requests, e.gw.cache.Stats().Hits-hits, kept().Answered() != first)
	}
	e.clock.Advance(DefaultConfig().CacheTTL + time.Second)
	fetched := e.call("nsip_get_animal", args).mustOK(t)
	if fetched.meta["cache"] != "miss" || fetched.text != hit.text || e.up.TotalRequests() != requests+1 {
		t.Errorf("after the cached answer expired: cache %v, %d requests", fetched.meta["cache"], e.up.TotalRequests()-requests)
	}
	e.call("nsip_get_animal", args).mustOK(t)
	if a := kept().Answered(); a == nil || a == first || a.From.Answer == first.From.Answer {
		t.Error("the answer kept is still the one read from the expired answer")
	}
}

// An answer that links to its complete data (a summary) is rendered for
// each call, since each call offers its own link.
func TestSummariesAreRenderedForEachCall(t *testing.T) {
	e := newEnv(t, withSmallBudget())
	args := map[string]any{"lpn_id": e.up.Data().MostProgeny(), "page_size": 100}
	raw, _ := json.Marshal(args)
	for range 3 {
		if r := e.call("nsip_get_progeny", args).mustOK(t); r.meta["summarized"] != true || r.meta["full"] == nil {
			t.Fatalf("not summarized with a link: %v", r.meta)
		}
	}
	if k := e.gw.memos[toolOf(lookup.Progeny).index].Get(raw); k == nil || k.Answered() != nil {
		t.Errorf("kept %v, answered %v; want the call kept, no answer", k != nil, k != nil && k.Answered() != nil)
	}
}

// A call answered again from its kept result is answered by the
// outermost of the gateway's middlewares, so that the session's record of
// running calls, the forms and the progress notes, all of which it would
// finish at once, cost it nothing; every other call goes on to them.
func TestKeptResultsAreAnsweredBeforeTheOtherMiddlewares(t *testing.T) {
	e := newEnv(t)
	args := map[string]any{"search_string": e.up.Data().MostProgeny()}
	e.call("nsip_get_animal", args).mustOK(t)
	want := e.call("nsip_get_animal", args).mustOK(t)
	nexts := 0
	next := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		nexts++
		return mcp.NewToolResultText("from the handlers"), nil
	}
	req := func(name string, edit func(*mcp.CallToolRequest)) mcp.CallToolRequest {
		r := mcp.CallToolRequest{}
		r.Params.Name = name
		r.Params.RawArguments, _ = json.Marshal(args)
		r.Params.Arguments = args
		if edit != nil {
			edit(&r)
		}
		return r
	}
	mw := e.gw.answerKept(next)
	res, err := mw(context.Background(), req("nsip_get_animal", nil))
	if err != nil || nexts != 0 || len(res.Content) == 0 {
		t.Fatalf("a kept result: %v, %d calls of the handlers", err, nexts)
	}
	if text := res.Content[0].(mcp.TextContent).Text; text != want.text {
		t.Errorf("answered with\n%.200s\nwant\n%.200s", text, want.text)
	}
	for _, c := range []struct {
		what string
		req  mcp.CallToolRequest
	}{
		{"other arguments", req("nsip_get_animal", func(r *mcp.CallToolRequest) { r.Params.RawArguments = []byte(`{"search_string":"OTHER1"}`) })},
		{"another tool", req("nsip_get_lineage", nil)},
		{"an unknown tool", req("nsip_get_sheep", nil)},
		{"a task", req("nsip_get_animal", func(r *mcp.CallToolRequest) { r.Params.Task = &mcp.TaskParams{} })},
	} {
		before := nexts
		if _, err := mw(context.Background(), c.req); err != nil || nexts != before+1 {
			t.Errorf("%s: %v, handlers called %d times, want once", c.what, err, nexts-before)
		}
	}
	off := newEnv(t, withConfig(func(c *Config) { c.NoStructured = true }))
	for range 2 {
		// The gateway's own call: the handlers strip the structured copy
		// on the way out.
		if r := off.gw.call(context.Background(), toolOf(lookup.Animal), req("nsip_get_animal", nil)); r.IsError {
			t.Fatalf("without structured content: %v", r.Content)
		}
	}
	before := nexts
	if _, err := off.gw.answerKept(next)(context.Background(), req("nsip_get_animal", nil)); err != nil || nexts != before+1 {
		t.Errorf("without structured content a kept result went around the handlers that strip it")
	}
}
