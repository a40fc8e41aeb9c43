package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// rpc sends one JSON-RPC request to the server in ctx's session and
// returns its result as JSON.
func rpc(t *testing.T, e *env, ctx context.Context, method string, params any) map[string]any {
	t.Helper()
	p, _ := json.Marshal(params)
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, time.Now().UnixNano(), method, p)
	resp := e.srv.HandleMessage(ctx, json.RawMessage(msg))
	r, ok := resp.(mcp.JSONRPCResponse)
	if !ok {
		b, _ := json.Marshal(resp)
		t.Fatalf("%s: %s", method, b)
	}
	b, _ := json.Marshal(r.Result)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// taskSessions numbers the sessions taskSession opens.
var taskSessions atomic.Int64

// taskSession opens a new initialized session, each with its own ID.
func taskSession(t *testing.T, e *env) context.Context {
	t.Helper()
	session := server.NewInProcessSession(fmt.Sprintf("task-test-%d", taskSessions.Add(1)), nil)
	if err := e.srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	session.Initialize()
	return e.srv.WithContext(context.Background(), session)
}

// flockHerd is a flock of 230 whose searches wait until the test lets them
// go (and always by the test's end).
func flockHerd() *herd {
	h := newHerd()
	h.hold = make(chan struct{})
	for i := range 230 {
		b := h.get(fmt.Sprintf("640F%04d", i))
		b.flock, b.ebv = "640555", map[string][2]float64{"BWT": {float64(i % 5), 0.5}}
	}
	return h
}

// A flock summary asked for as a task answers with a working task at once,
// while NSIP has not yet answered, and its result is the same answer as a
// direct call's.
func TestAnalysisRunsAsATask(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	ctx := taskSession(t, e)
	args := map[string]any{"flock_id": "640555"}
	created := rpc(t, e, ctx, "tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": args, "task": map[string]any{}})
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" || task["status"] != "working" {
		t.Fatalf("created %v, want a working task", created)
	}
	if got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id}); got["status"] != "working" {
		t.Errorf("tasks/get while NSIP is held: %v", got)
	}
	h.release()
	res := rpc(t, e, ctx, "tasks/result", map[string]any{"taskId": id})
	content, _ := res["content"].([]any)
	// The answer, then the links to its every row as JSON and CSV.
	if len(content) != 3 || res["isError"] == true {
		t.Fatalf("task result %v", res)
	}
	text := content[0].(map[string]any)["text"].(string)
	// The same answer, but for where its data came from: NSIP for the
	// task, the cache for the direct call that follows it.
	direct := e.call("nsip_flock_summary", args).mustOK(t).text
	if withoutUpstream(t, text) != withoutUpstream(t, direct) {
		t.Errorf("task result differs from the direct answer:\n%s\n%s", text, direct)
	}
}

// A caller cancelling a direct call (notifications/cancelled, or a closed
// connection) ends the analysis: the page NSIP was answering is the only
// one requested, though the flock has three.
func TestCancelledAnalysisStopsReading(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for h.count("search/getPageOfSearchResults") == 0 {
			time.Sleep(time.Millisecond) // until the first page is being asked for
		}
		cancel()
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_flock_summary"
	req.Params.Arguments = map[string]any{"flock_id": "640555"}
	res := e.gw.call(ctx, toolNamed("nsip_flock_summary"), req)
	if te := (reply{text: res.Content[0].(mcp.TextContent).Text, isError: res.IsError}).errorBody(t); te.Code != toolerr.CodeCanceled {
		t.Errorf("cancelled call answered %+v", te)
	}
	h.release()
	// The held page's fetch completes for the cache; wait for it, then make
	// sure nothing followed it.
	for e.gw.Health().UpstreamRequests == 0 || e.gw.pool.InFlight() > 0 {
		time.Sleep(time.Millisecond)
	}
	if n := h.count("search/getPageOfSearchResults"); n != 1 {
		t.Errorf("%d pages requested after cancel, want only the one in flight", n)
	}
}

// tasks/cancel marks a running analysis task cancelled; its result is not
// delivered.
func TestAnalysisTaskCanBeCancelled(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	ctx := taskSession(t, e)
	created := rpc(t, e, ctx, "tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}})
	id := created["task"].(map[string]any)["taskId"].(string)
	if got := rpc(t, e, ctx, "tasks/cancel", map[string]any{"taskId": id}); got["status"] != "cancelled" {
		t.Fatalf("tasks/cancel: %v", got)
	}
	h.release()
	if got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id}); got["status"] != "cancelled" {
		t.Errorf("task status %v after cancel", got["status"])
	}
}

func withoutUpstream(t *testing.T, text string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	delete(m["computed"].(map[string]any), "upstream")
	return param.JSONText(m)
}

// A long analysis sends progress to a caller that gave a progress token,
// every ProgressInterval while it waits for NSIP; all before the result.
// The search is held until two notifications are queued, so the count does
// not depend on the machine's speed.
func TestAnalysisSendsProgress(t *testing.T) {
	h := flockHerd()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(h.release)
	e := newEnv(t, func(c *Config, o *[]nsip.Option) {
		c.ProgressInterval = 10 * time.Millisecond
		*o = append(*o, nsip.WithBaseURL(ts.URL+"/api"))
	})
	session := server.NewInProcessSession("progress-analysis", nil)
	if err := e.srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	session.Initialize()
	ctx := e.srv.WithContext(context.Background(), session)
	go func() {
		for len(session.ClientNotifications()) < 2 {
			time.Sleep(time.Millisecond)
		}
		h.release()
	}()
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nsip_flock_summary","arguments":{"flock_id":"640555"},"_meta":{"progressToken":"p-1"}}}`
	if _, ok := e.srv.HandleMessage(ctx, json.RawMessage(msg)).(mcp.JSONRPCResponse); !ok {
		t.Fatal("no result")
	}
	var n int
	for len(session.ClientNotifications()) > 0 {
		note := <-session.ClientNotifications()
		n++
		if f := note.Params.AdditionalFields; note.Method != "notifications/progress" || f["progressToken"] != "p-1" || f["progress"] != n {
			t.Errorf("notification %d: %s %v", n, note.Method, f)
		}
	}
	if n < 2 {
		t.Errorf("%d progress notifications before the result, want at least 2", n)
	}
}
