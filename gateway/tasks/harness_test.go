package tasks

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// harness is a store in front of a real mcp-go server, wired as the
// gateway wires it, with one tool that runs as a task on request. Its work
// ends at once (wait false), when the harness releases it at the test's
// end, or when its context ends. Each piece of work started as a task
// records its context and says so on a channel, so a test waits for the
// event instead of sleeping, and sees at once whether the store has ended
// a task's work (the store cancels before it answers).
type harness struct {
	t         *testing.T
	store     *Store
	srv       *server.MCPServer
	hooks     *server.Hooks
	taskHooks *server.TaskHooks
	clock     *cachetest.Clock
	logs      *bytes.Buffer // the store logs only in Shutdown, which tests call
	release   chan struct{}
	started   chan string // the label of each piece of work as it starts as a task

	mu   sync.Mutex
	ctxs map[string]context.Context // each task's work's context, by label
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, logs: &bytes.Buffer{}, release: make(chan struct{}),
		started: make(chan string, 64), ctxs: map[string]context.Context{}}
	cfg.Logger = slog.New(slog.NewTextHandler(h.logs, nil))
	h.store, h.clock = newStore(t, cfg)
	h.hooks = &server.Hooks{}
	h.store.AddHooks(h.hooks)
	// "hidden" is registered with task support but never shown or
	// callable: the call fails after the store admitted its task.
	hide := func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
		out := tools[:0:0]
		for _, tool := range tools {
			if tool.Name != "hidden" {
				out = append(out, tool)
			}
		}
		return out
	}
	h.taskHooks = h.store.TaskHooks()
	h.srv = server.NewMCPServer("test", "1",
		server.WithToolCapabilities(false),
		server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(h.taskHooks),
		server.WithToolFilter(ToolFilter),
		server.WithToolFilter(hide),
		server.WithHooks(h.hooks))
	h.store.Attach(h.srv)
	optional := mcp.WithTaskSupport(mcp.TaskSupportOptional)
	h.srv.AddTool(mcp.NewTool("work", optional), h.work)
	h.srv.AddTool(mcp.NewTool("hidden", optional), h.work)
	h.srv.AddTool(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("plain answer"), nil
	})
	t.Cleanup(func() { close(h.release) })
	return h
}

// work is the task tool's handler, as the gateway's analyses use the
// store: the task's own context for the work, and done when it ends.
func (h *harness) work(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	task, err := Of(req)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	label := req.GetString("label", "")
	if task != nil {
		var done func()
		ctx, done = h.store.Start(ctx, task)
		defer done()
		h.mu.Lock()
		h.ctxs[label] = ctx
		h.mu.Unlock()
		h.started <- label
	}
	if msg := req.GetString("fail", ""); msg != "" {
		return nil, errors.New(msg)
	}
	if !req.GetBool("wait", false) {
		return mcp.NewToolResultText("finished " + label), nil
	}
	select {
	case <-h.release:
		return mcp.NewToolResultText("released " + label), nil
	case <-ctx.Done():
		return mcp.NewToolResultText("stopped " + label), nil
	}
}

// stopped reports whether the store has ended the work of the task
// started as label.
func (h *harness) stopped(label string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ctxs[label].Err() != nil
}

// as is a request whose transport recorded who sent it.
func as(id caller.ID) context.Context { return caller.WithRequest(context.Background(), id) }

// session registers an initialized session and returns its context.
func (h *harness) session(id string) (context.Context, *server.InProcessSession) {
	h.t.Helper()
	s := server.NewInProcessSession(id, nil)
	s.Initialize()
	if err := h.srv.RegisterSession(context.Background(), s); err != nil {
		h.t.Fatal(err)
	}
	return h.srv.WithContext(context.Background(), s), s
}

// rpc sends one request and returns its result, or the message of the
// error it was answered with.
func (h *harness) rpc(ctx context.Context, method string, params map[string]any) (map[string]any, string) {
	h.t.Helper()
	return rpctest.Send(h.t, ctx, h.srv, method, params)
}

// start calls work as a task in ctx and returns the task as created; a
// refusal fails the test.
func (h *harness) start(ctx context.Context, label string, wait bool, task map[string]any) map[string]any {
	h.t.Helper()
	created, problem := h.startOrRefuse(ctx, label, wait, task)
	if problem != "" {
		h.t.Fatalf("task %q refused: %s", label, problem)
	}
	return created
}

func (h *harness) startOrRefuse(ctx context.Context, label string, wait bool, task map[string]any) (map[string]any, string) {
	h.t.Helper()
	if task == nil {
		task = map[string]any{}
	}
	res, problem := h.rpc(ctx, "tools/call", map[string]any{"name": "work", "task": task,
		"arguments": map[string]any{"label": label, "wait": wait}})
	if problem != "" {
		return nil, problem
	}
	created, _ := res["task"].(map[string]any)
	if id, _ := created["taskId"].(string); id == "" {
		h.t.Fatalf("task %q: answered %v, want a task", label, res)
	}
	return created, ""
}

// running starts waiting work as a task and returns its ID once the work
// has started.
func (h *harness) running(ctx context.Context, label string) string {
	h.t.Helper()
	id := h.start(ctx, label, true, nil)["taskId"].(string)
	if got := <-h.started; got != label {
		h.t.Fatalf("started %q, want %q", got, label)
	}
	return id
}

// shell is mcp-go's ID for the record of the task a client knows as id.
func (h *harness) shell(id string) string {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	return h.store.byID[id].shell
}

// status is tasks/get's status of id for ctx's caller, or its refusal.
func (h *harness) status(ctx context.Context, id string) (string, string) {
	h.t.Helper()
	res, problem := h.rpc(ctx, "tasks/get", map[string]any{"taskId": id})
	if problem != "" {
		return "", problem
	}
	if res["taskId"] != id {
		h.t.Errorf("tasks/get %s answered for %v", id, res["taskId"])
	}
	s, _ := res["status"].(string)
	return s, ""
}

// listed is the task IDs tasks/list shows ctx's caller.
func (h *harness) listed(ctx context.Context) []string {
	h.t.Helper()
	res, problem := h.rpc(ctx, "tasks/list", map[string]any{})
	if problem != "" {
		h.t.Fatalf("tasks/list: %s", problem)
	}
	ids := []string{}
	for _, v := range res["tasks"].([]any) {
		ids = append(ids, v.(map[string]any)["taskId"].(string))
	}
	return ids
}

// modern is the _meta of an MCP 2026-07-28 request.
func modern() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientCapabilities: map[string]any{},
	}
}
