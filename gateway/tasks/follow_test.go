package tasks

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// fakeWork is work a task follows: it ends when the test says, with what
// the test says, and counts its cancellations.
type fakeWork struct {
	done      chan struct{}
	result    any
	err       error
	status    string
	cancelled atomic.Int32
}

func newWork(status string) *fakeWork { return &fakeWork{done: make(chan struct{}), status: status} }

func (w *fakeWork) Wait(ctx context.Context) (any, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-w.done:
		return w.result, w.err
	}
}

func (w *fakeWork) Cancel()        { w.cancelled.Add(1) }
func (w *fakeWork) Status() string { return w.status }

// followHarness is the harness with followed work offered, and a session
// whose client declared tasks support.
func followHarness(t *testing.T, cfg Config) (*harness, context.Context) {
	h := newHarness(t, cfg)
	h.store.Offer(h.srv)
	return h, h.tasksSession("follower")
}

func (h *harness) tasksSession(id string) context.Context {
	ctx, s := h.session(id)
	s.SetClientCapabilities(mcp.ClientCapabilities{Tasks: &mcp.TasksCapability{}})
	return ctx
}

// Followed work is its caller's task: tasks/get and tasks/list show how far
// it has got while it runs, then it completes with what it came to.
func TestFollowedWorkCompletes(t *testing.T) {
	h, ctx := followHarness(t, Config{})
	w := newWork("read 3 of 9 pages")
	id, err := h.store.Follow(ctx, w)
	if err != nil || id == "" {
		t.Fatalf("Follow: %q, %v", id, err)
	}
	res, problem := h.rpc(ctx, "tasks/get", map[string]any{"taskId": id})
	if problem != "" || res["status"] != "working" || res["statusMessage"] != "read 3 of 9 pages" || res["taskId"] != id {
		t.Errorf("tasks/get: %v %s", res, problem)
	}
	list, _ := h.rpc(ctx, "tasks/list", map[string]any{})
	if ts, _ := list["tasks"].([]any); len(ts) != 1 || ts[0].(map[string]any)["statusMessage"] != "read 3 of 9 pages" {
		t.Errorf("tasks/list: %v", list)
	}
	if !h.store.Owns(ctx, id) || h.store.Owns(h.tasksSession("other"), id) {
		t.Error("Owns does not tell the follower from another caller")
	}
	w.result = map[string]any{"breed": 649, "pages": 9}
	close(w.done)
	res, problem = h.rpc(ctx, "tasks/result", map[string]any{"taskId": id})
	if sc, _ := res["structuredContent"].(map[string]any); problem != "" || sc["breed"] != float64(649) || sc["pages"] != float64(9) {
		t.Errorf("tasks/result: %v %s", res, problem)
	}
	if s, _ := h.status(ctx, id); s != "completed" {
		t.Errorf("status %q once done, want completed", s)
	}
}

// Work that fails fails its task with the reason.
func TestFollowedWorkFails(t *testing.T) {
	h, ctx := followHarness(t, Config{})
	w := newWork("reading")
	id, err := h.store.Follow(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	w.err = errors.New("NSIP's pages of the breed were not consistent")
	close(w.done)
	_, problem := h.rpc(ctx, "tasks/result", map[string]any{"taskId": id})
	res, _ := h.rpc(ctx, "tasks/get", map[string]any{"taskId": id})
	if res["status"] != "failed" || res["statusMessage"] != w.err.Error() || !strings.Contains(problem, "not consistent") {
		t.Errorf("tasks/get %v, tasks/result %q; want failed with the reason", res, problem)
	}
}

// tasks/cancel stops the work before it answers; a session's end forgets
// the task but leaves the work to go on; shutdown stops the work.
func TestFollowedWorkCancelled(t *testing.T) {
	h, ctx := followHarness(t, Config{})
	w := newWork("reading")
	id, err := h.store.Follow(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if res, problem := h.rpc(ctx, "tasks/cancel", map[string]any{"taskId": id}); problem != "" || res["status"] != "cancelled" {
		t.Errorf("tasks/cancel: %v %s", res, problem)
	}
	if n := w.cancelled.Load(); n != 1 {
		t.Errorf("work cancelled %d times by the time tasks/cancel answered, want once", n)
	}

	ended, sess := h.session("ending")
	sess.SetClientCapabilities(mcp.ClientCapabilities{Tasks: &mcp.TasksCapability{}})
	left := newWork("reading")
	if _, err := h.store.Follow(ended, left); err != nil {
		t.Fatal(err)
	}
	h.srv.UnregisterSession(context.Background(), "ending")
	if n := left.cancelled.Load(); n != 0 || h.store.Len() != 1 {
		t.Errorf("a session's end cancelled its followed work %d times, %d tasks held; want the work left to go on and the task forgotten", n, h.store.Len())
	}

	last := newWork("reading")
	if _, err := h.store.Follow(ctx, last); err != nil {
		t.Fatal(err)
	}
	h.store.Shutdown()
	if n := last.cancelled.Load(); n != 1 {
		t.Errorf("shutdown cancelled the work %d times, want once", n)
	}
}

// Work cannot be followed, and Follow says why, when the server does not
// offer it, the client did not declare tasks, the caller cannot be told
// apart, or holds all the tasks it may; the tool it runs under is listed
// to no one and no client can call it.
func TestFollowRefused(t *testing.T) {
	h := newHarness(t, Config{PerCaller: 1})
	ctx := h.tasksSession("a")
	if _, err := h.store.Follow(ctx, newWork("")); !errors.Is(err, errNotOffered) {
		t.Errorf("not offered: %v", err)
	}
	h.store.Offer(h.srv)
	bare, _ := h.session("bare")
	if _, err := h.store.Follow(bare, newWork("")); !errors.Is(err, errNoTasksCap) {
		t.Errorf("no tasks capability: %v", err)
	}
	if _, err := h.store.Follow(as("fwd:10.0.0.1"), newWork("")); err == nil || !strings.Contains(err.Error(), "MCP_TRUSTED_PROXIES") {
		t.Errorf("behind a proxy: %v", err)
	}
	anon := server.NewInProcessSession("", nil)
	anon.SetClientCapabilities(mcp.ClientCapabilities{Tasks: &mcp.TasksCapability{}})
	if _, err := h.store.Follow(h.srv.WithContext(context.Background(), anon), newWork("")); err == nil || !strings.Contains(err.Error(), "no session and no client identity") {
		t.Errorf("no identity: %v", err)
	}
	if _, err := h.store.Follow(ctx, newWork("")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Follow(ctx, newWork("")); err == nil || !strings.Contains(err.Error(), SettingPerCaller) {
		t.Errorf("over the caller's bound: %v", err)
	}
	tools, _ := h.rpc(ctx, "tools/list", map[string]any{})
	for _, tool := range tools["tools"].([]any) {
		if tool.(map[string]any)["name"] == followTool {
			t.Error("tools/list shows the tool followed work runs under")
		}
	}
	if _, problem := h.rpc(ctx, "tools/call", map[string]any{"name": followTool, "task": map[string]any{}, "arguments": map[string]any{}}); problem == "" {
		t.Error("a client called the tool followed work runs under")
	}
	if Following(ctx) || !Following(context.WithValue(ctx, followKey{}, &following{})) {
		t.Error("Following does not tell Follow's requests from others")
	}
}
