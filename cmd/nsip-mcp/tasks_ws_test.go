package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// wsPeer is one raw WebSocket session: requests in, answers and every
// notifications/tasks/status out.
type wsPeer struct {
	t  *testing.T
	ws *wsTransport
	n  int64

	mu     sync.Mutex
	status []map[string]any
	seen   chan struct{} // a status arrived
}

func openWSPeer(t *testing.T, base string) *wsPeer {
	t.Helper()
	p := &wsPeer{t: t, ws: newWSTransport(base), seen: make(chan struct{}, 64)}
	p.ws.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		if n.Method != mcp.MethodNotificationTasksStatus {
			return
		}
		p.mu.Lock()
		p.status = append(p.status, n.Params.AdditionalFields)
		p.mu.Unlock()
		p.seen <- struct{}{}
	})
	if err := p.ws.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.ws.Close() })
	if _, problem := p.call("initialize", map[string]any{"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "tasks", "version": "1"}}); problem != "" {
		t.Fatal(problem)
	}
	_ = p.ws.SendNotification(context.Background(), mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/initialized"}})
	return p
}

func (p *wsPeer) call(method string, params any) (map[string]any, string) {
	p.t.Helper()
	p.n++
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := p.ws.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(p.n), Method: method, Params: params})
	if err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	if resp.Error != nil {
		return nil, resp.Error.Message
	}
	var out map[string]any
	_ = json.Unmarshal(resp.Result, &out)
	return out, ""
}

func (p *wsPeer) statuses() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.status...)
}

// Over the WebSocket transport of the real binary, a task is its
// creator's: another connection does not list it, cannot read it, and is
// never told its status; its creator is.
func TestTaskStaysWithItsCreatorOverWebSocket(t *testing.T) {
	watchdog(t, testLimit)
	s := startServer(t, "websocket")
	a, b := openWSPeer(t, s.BaseURL), openWSPeer(t, s.BaseURL)
	created, problem := a.call("tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}})
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if problem != "" || id == "" {
		t.Fatalf("task: %v %q", created, problem)
	}
	deadline := time.After(30 * time.Second)
	for told := false; !told; {
		select {
		case <-a.seen:
			for _, st := range a.statuses() {
				told = told || st["taskId"] == id && st["status"] == string(mcp.TaskStatusCompleted)
			}
		case <-deadline:
			t.Fatalf("the creator was not told its task completed: %v", a.statuses())
		}
	}
	list, _ := b.call("tasks/list", map[string]any{})
	if got, _ := json.Marshal(list); strings.Contains(string(got), id) {
		t.Errorf("another connection lists the task: %s", got)
	}
	if res, problem := b.call("tasks/get", map[string]any{"taskId": id}); !strings.HasPrefix(problem, "task not found") {
		t.Errorf("tasks/get by another connection: %v %q", res, problem)
	}
	// mcp-go announces its own record of each task to every connection,
	// in the same step that once announced the task itself; once that has
	// reached b, so would have anything about the task.
	select {
	case <-b.seen:
	case <-time.After(30 * time.Second):
		t.Fatal("mcp-go's announcement never reached the other connection")
	}
	for _, st := range b.statuses() {
		if st["taskId"] == id {
			t.Errorf("another connection was told %v", st)
		}
	}
}
