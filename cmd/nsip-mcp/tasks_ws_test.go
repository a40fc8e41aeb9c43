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

// peer is one raw session over any transport: requests in, answers and
// every notifications/tasks/status out.
type peer struct {
	t  *testing.T
	tr transport.Interface
	n  int64

	mu     sync.Mutex
	status []map[string]any
	seen   chan struct{} // a status arrived
}

func openWSPeer(t *testing.T, base string) *peer {
	t.Helper()
	return openPeer(t, newWSTransport(base))
}

func openPeer(t *testing.T, tr transport.Interface) *peer {
	t.Helper()
	p := &peer{t: t, tr: tr, seen: make(chan struct{}, 64)}
	p.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		if n.Method != mcp.MethodNotificationTasksStatus {
			return
		}
		p.mu.Lock()
		p.status = append(p.status, n.Params.AdditionalFields)
		p.mu.Unlock()
		p.seen <- struct{}{}
	})
	if err := p.tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.tr.Close() })
	if _, problem := p.call("initialize", map[string]any{"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "tasks", "version": "1"}}); problem != "" {
		t.Fatal(problem)
	}
	_ = p.tr.SendNotification(context.Background(), mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/initialized"}})
	return p
}

func (p *peer) call(method string, params any) (map[string]any, string) {
	p.t.Helper()
	p.n++
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := p.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(p.n), Method: method, Params: params})
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

func (p *peer) statuses() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.status...)
}

// runTask starts a flock summary as a task of p and returns once p has
// been told it completed, with the task's ID.
func (p *peer) runTask() string {
	p.t.Helper()
	created, problem := p.call("tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}})
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if problem != "" || id == "" {
		p.t.Fatalf("task: %v %q", created, problem)
	}
	deadline := time.After(30 * time.Second)
	for told := false; !told; {
		select {
		case <-p.seen:
			for _, st := range p.statuses() {
				told = told || st["taskId"] == id && st["status"] == string(mcp.TaskStatusCompleted)
			}
		case <-deadline:
			p.t.Fatalf("the creator was not told its task completed: %v", p.statuses())
		}
	}
	return id
}

// taskStaysWithItsCreator runs a task of a and one of b. Neither lists,
// reads or is told of the other's, and each is told of its own only under
// the ID it was given: mcp-go's announcement of its own record of every
// task, to every session, does not reach the wire.
func taskStaysWithItsCreator(t *testing.T, a, b *peer) {
	t.Helper()
	idA := a.runTask()
	list, _ := b.call("tasks/list", map[string]any{})
	if got, _ := json.Marshal(list); strings.Contains(string(got), idA) {
		t.Errorf("another session lists the task: %s", got)
	}
	if res, problem := b.call("tasks/get", map[string]any{"taskId": idA}); !strings.HasPrefix(problem, "task not found") {
		t.Errorf("tasks/get by another session: %v %q", res, problem)
	}
	// mcp-go queues its announcement of a task before the owner's own
	// notification, so b's own completion comes after anything b would
	// have been sent about a's task.
	idB := b.runTask()
	for _, c := range []struct {
		name string
		p    *peer
		id   string
	}{{"the first session", a, idA}, {"the second session", b, idB}} {
		for _, st := range c.p.statuses() {
			if st["taskId"] != c.id {
				t.Errorf("%s, whose task is %s, was sent %v", c.name, c.id, st)
			}
		}
	}
	if got := b.statuses(); len(got) != 1 {
		t.Errorf("the second session was sent %d task statuses, want 1 (its own task's completion): %v", len(got), got)
	}
}

// Over the WebSocket transport of the real binary, a task is its
// creator's: another connection does not list it, cannot read it, and is
// never told its status, not even under mcp-go's ID for it; its creator is.
func TestTaskStaysWithItsCreatorOverWebSocket(t *testing.T) {
	watchdog(t, testLimit)
	s := startServer(t, "websocket")
	taskStaysWithItsCreator(t, openWSPeer(t, s.BaseURL), openWSPeer(t, s.BaseURL))
}

// The same over the legacy SSE transport: the statuses mcp-go writes to
// every stream are left out of it.
func TestTaskStaysWithItsCreatorOverSSE(t *testing.T) {
	watchdog(t, testLimit)
	s := startServer(t, "http-sse")
	open := func() *peer {
		tr, err := transport.NewSSE(s.BaseURL + "/sse")
		if err != nil {
			t.Fatal(err)
		}
		return openPeer(t, tr)
	}
	taskStaysWithItsCreator(t, open(), open())
}

// The same over streamable HTTP, each session with a GET stream open.
func TestTaskStaysWithItsCreatorOverStreamableHTTP(t *testing.T) {
	watchdog(t, testLimit)
	s := startServer(t, "http-sse")
	open := func() *peer {
		// The GET stream is what is under test, and tasks are offered only
		// to the protocol versions that have it.
		//lint:ignore SA1019 the standalone GET stream is deprecated only for 2026-07-28
		tr, err := transport.NewStreamableHTTP(s.BaseURL+"/mcp", transport.WithContinuousListening())
		if err != nil {
			t.Fatal(err)
		}
		return openPeer(t, tr)
	}
	taskStaysWithItsCreator(t, open(), open())
}
