package tasks

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

const notFound = "task not found: no task with this taskId belongs to this client"

// A task is its creator's alone: its creator sees it under an ID of 128
// random bits (never mcp-go's ID for its record), and every other caller,
// asking anything of it, is told there is no such task, as for an ID never
// issued; another caller's cancel leaves the work running.
func TestTaskIsItsCreatorsAlone(t *testing.T) {
	h := newHarness(t, Config{})
	owner, other := as(caller.Token("owner")), as(caller.Token("other"))
	id := h.running(owner, "mine")
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("task ID %q, want 32 hex digits", id)
	}
	if !h.store.Issued(id) || h.store.Issued(h.shell(id)) {
		t.Errorf("Issued(own ID) = %v, Issued(record ID) = %v; want true, false", h.store.Issued(id), h.store.Issued(h.shell(id)))
	}
	if st, problem := h.status(owner, id); st != "working" || problem != "" {
		t.Errorf("the owner's tasks/get: %q %q, want working", st, problem)
	}
	// The probes are sent as requests their clients have already given up
	// on, so that a task wrongly shown to them answers at once rather than
	// waiting for the work to end.
	gaveUp := func(ctx context.Context) context.Context {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx
	}
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		for who, ctx := range map[string]context.Context{"another caller": gaveUp(other), "a local caller": gaveUp(context.Background())} {
			if _, problem := h.rpc(ctx, method, map[string]any{"taskId": id}); !strings.HasPrefix(problem, notFound) {
				t.Errorf("%s's %s: %q, want %q", who, method, problem, notFound)
			}
		}
		if _, problem := h.rpc(gaveUp(owner), method, map[string]any{"taskId": h.shell(id)}); !strings.HasPrefix(problem, notFound) {
			t.Errorf("the owner's %s by the record's ID: %q, want not found", method, problem)
		}
	}
	_, never := h.rpc(other, "tasks/get", map[string]any{"taskId": strings.Repeat("0", 32)})
	if _, theirs := h.rpc(other, "tasks/get", map[string]any{"taskId": id}); theirs != never {
		t.Errorf("another's task answered %q, one never issued %q: they must not differ", theirs, never)
	}
	if got := h.listed(other); len(got) != 0 {
		t.Errorf("another caller lists %v", got)
	}
	if got := h.listed(owner); !slices.Equal(got, []string{id}) {
		t.Errorf("the owner lists %v, want [%s]", got, id)
	}
	if st, _ := h.status(owner, id); st != "working" || h.stopped("mine") || h.store.Running() != 1 {
		t.Errorf("after another caller's cancel: %q, stopped %v, %d running; want the work going on", st, h.stopped("mine"), h.store.Running())
	}
}

// The owner's cancel ends the work's context, so an analysis reads
// nothing more, and the task is shown cancelled under the owner's ID. The
// cancel is the owner's last word however soon the stopped work answers:
// the work is not stopped before mcp-go has marked its record cancelled,
// or an answer finished in between would make the task completed and the
// cancel an error. A hook after the store's forces that order should the
// work be stopped too soon: it lets the work complete before mcp-go takes
// the cancel.
func TestOwnerCancelStopsTheWorkAndStands(t *testing.T) {
	h := newHarness(t, Config{})
	owner := as(caller.Address("192.0.2.7"))
	completed := make(chan struct{})
	h.taskHooks.AddOnTaskCompleted(func(context.Context, server.TaskMetrics) { close(completed) })
	h.hooks.AddBeforeCancelTask(func(context.Context, any, *mcp.CancelTaskRequest) {
		if h.stopped("long") {
			<-completed
		}
	})
	id := h.running(owner, "long")
	res, problem := h.rpc(owner, "tasks/cancel", map[string]any{"taskId": id})
	if problem != "" || res["taskId"] != id || res["status"] != "cancelled" {
		t.Fatalf("tasks/cancel: %v %q, want %s cancelled", res, problem, id)
	}
	if !h.stopped("long") {
		t.Error("the cancelled task's work goes on")
	}
	if st, _ := h.status(owner, id); st != "cancelled" {
		t.Errorf("after cancel: %q", st)
	}
}

// tasks/result waits for the work and gives its answer, related to the
// task under the ID its owner knows; the task is then completed, and no
// work is left running.
func TestResultIsTheWorksAnswer(t *testing.T) {
	h := newHarness(t, Config{})
	owner := as(caller.Token("owner"))
	id := h.start(owner, "quick", false, nil)["taskId"].(string)
	res, problem := h.rpc(owner, "tasks/result", map[string]any{"taskId": id})
	if problem != "" {
		t.Fatal(problem)
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "finished quick" {
		t.Errorf("result content %v, want the work's answer", res["content"])
	}
	related, _ := res["_meta"].(map[string]any)[mcp.RelatedTaskMetaKey].(map[string]any)
	if related["taskId"] != id {
		t.Errorf("result relates to %v, want %s", related, id)
	}
	if st, _ := h.status(owner, id); st != "completed" {
		t.Errorf("after its result: %q", st)
	}
	if n := h.store.Running(); n != 0 {
		t.Errorf("%d running after the result", n)
	}
	if n := h.store.Shutdown(); n != 0 || !strings.Contains(h.logs.String(), "no task was running at shutdown") {
		t.Errorf("shutdown with nothing running: %d cancelled, logs %q", n, h.logs.String())
	}
}

// One client holds at most PerCaller tasks, all clients together at most
// Max; a refusal names the setting that raises the bound, and a call
// without "task" is still answered.
func TestBoundsPerClientAndInTotal(t *testing.T) {
	h := newHarness(t, Config{PerCaller: 2, Max: 3, TTL: 5 * time.Minute})
	a, b, c := as(caller.Token("a")), as(caller.Token("b")), as(caller.Token("c"))
	h.running(a, "a1")
	h.running(a, "a2")
	_, problem := h.startOrRefuse(a, "a3", true, nil)
	if want := "too many tasks: this client holds 2, the most one client may hold (NSIP_TASKS_PER_CLIENT=2); a task is held until 5m0s after its creation"; !strings.HasPrefix(problem, want) {
		t.Errorf("a third task for one client: %q, want %q", problem, want)
	}
	if err := h.store.Admit(caller.Token("a")); err == nil || !strings.Contains(err.Error(), "NSIP_TASKS_PER_CLIENT=2") {
		t.Errorf("Admit for a full client: %v", err)
	}
	h.running(b, "b1")
	_, problem = h.startOrRefuse(c, "c1", true, nil)
	if want := "too many tasks: the server holds 3, the most it holds for all clients together (NSIP_TASKS_MAX=3)"; !strings.HasPrefix(problem, want) {
		t.Errorf("a task past the total: %q, want %q", problem, want)
	}
	res, problem := h.rpc(c, "tools/call", map[string]any{"name": "work", "arguments": map[string]any{"label": "c-direct"}})
	if problem != "" || res["content"].([]any)[0].(map[string]any)["text"] != "finished c-direct" {
		t.Errorf("a direct call while tasks are full: %v %q", res, problem)
	}
	if n := h.store.Len(); n != 3 {
		t.Errorf("%d tasks held, want 3", n)
	}
}

// The defaults hold 16 tasks for one client, each for ten minutes.
func TestDefaults(t *testing.T) {
	s, _ := newStore(t, Config{})
	ctx := as(caller.Token("a"))
	for i := range DefaultPerCaller {
		if _, err := s.create(ctx, nil); err != nil {
			t.Fatalf("task %d: %v", i+1, err)
		}
	}
	_, err := s.create(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "holds 16, the most one client may hold (NSIP_TASKS_PER_CLIENT=16); a task is held until 10m0s") {
		t.Errorf("task 17: %v", err)
	}
	if s.cfg.Max != DefaultMax || s.cfg.TTL != DefaultTTL {
		t.Errorf("defaults %d, %s", s.cfg.Max, s.cfg.TTL)
	}
	for _, cfg := range []Config{{PerCaller: -1}, {Max: -1}, {TTL: -time.Second}} {
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "must not be negative") {
			t.Errorf("New(%+v): %v", cfg, err)
		}
	}
}

// A task is forgotten at its TTL, measured on the store's clock: its work
// is stopped, every request about it is not-found, and its place is free
// again. A client's shorter ttl is kept, and mcp-go is given the same.
func TestTTLExpiry(t *testing.T) {
	h := newHarness(t, Config{PerCaller: 2, TTL: time.Minute})
	owner := as(caller.Token("owner"))
	long := h.running(owner, "long")
	short := h.start(owner, "short", true, map[string]any{"ttl": 1000})
	<-h.started
	if short["ttl"] != 1000.0 {
		t.Errorf("created with ttl %v, want the 1000 ms asked for", short["ttl"])
	}
	// Expiry is noticed when the store is next consulted, here by the
	// owner asking after the task.
	h.clock.Advance(time.Second)
	if _, problem := h.status(owner, short["taskId"].(string)); !strings.Contains(problem, "forgotten 1m0s after its creation at the latest") {
		t.Errorf("the expired task: %q", problem)
	}
	if !h.stopped("short") {
		t.Error("the task expired at 1s works on")
	}
	if st, _ := h.status(owner, long); st != "working" {
		t.Errorf("the one-minute task at 1s: %q", st)
	}
	h.clock.Advance(time.Minute)
	if n := h.store.Len(); n != 0 || h.store.Issued(long) {
		t.Errorf("after the TTL: %d held, issued %v", n, h.store.Issued(long))
	}
	if !h.stopped("long") {
		t.Error("the task expired at 1m1s works on")
	}
	// A ttl beyond the store's is cut to it.
	again := h.start(owner, "again", false, map[string]any{"ttl": 3_600_000})
	if again["ttl"] != 60000.0 {
		t.Errorf("a one-hour ttl became %v ms, want 60000", again["ttl"])
	}
}

// MCP 2026-07-28 clients are refused tasks outright, since mcp-go cannot
// give them a task's result: tools do not offer task support to them,
// discovery offers no tasks, and task requests are refused saying why.
func TestModernClientsAreRefusedTasks(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := as(caller.Token("new"))
	_, problem := h.rpc(ctx, "tools/call", map[string]any{"name": "work", "task": map[string]any{}, "_meta": modern(),
		"arguments": map[string]any{"label": "x"}})
	if problem != ErrModern.Error() {
		t.Errorf("a modern task: %q, want %q", problem, ErrModern)
	}
	for _, method := range []string{"tasks/get", "tasks/list"} {
		if _, problem := h.rpc(ctx, method, map[string]any{"taskId": "1", "_meta": modern()}); problem != ErrModern.Error() {
			t.Errorf("modern %s: %q", method, problem)
		}
	}
	support := func(meta map[string]any) any {
		params := map[string]any{}
		if meta != nil {
			params["_meta"] = meta
		}
		res, problem := h.rpc(ctx, "tools/list", params)
		if problem != "" {
			t.Fatal(problem)
		}
		for _, tool := range res["tools"].([]any) {
			if tool.(map[string]any)["name"] == "work" {
				ex, _ := tool.(map[string]any)["execution"].(map[string]any)
				return ex["taskSupport"]
			}
		}
		t.Fatal("work not listed")
		return nil
	}
	if got := support(nil); got != "optional" {
		t.Errorf("task support shown to a 2025-11-25 client: %v", got)
	}
	if got := support(modern()); got != nil {
		t.Errorf("task support shown to a 2026-07-28 client: %v", got)
	}
	res, problem := h.rpc(ctx, "server/discover", map[string]any{"_meta": modern()})
	if problem != "" {
		t.Fatal(problem)
	}
	if caps, _ := res["capabilities"].(map[string]any); caps == nil || caps["tasks"] != nil {
		t.Errorf("discovered capabilities %v, want some and no tasks", res["capabilities"])
	}
	// A modern call that reaches the tool's hooks (its version known
	// only there) is answered directly with the refusal.
	req := &mcp.CallToolRequest{}
	req.Params.Name = "work"
	req.Params.Task = &mcp.TaskParams{}
	modernCtx := server.WithRequestProtocolInfo(ctx, &server.RequestProtocolInfo{Modern: true})
	for _, hook := range h.hooks.OnBeforeCallTool {
		hook(modernCtx, 1, req)
	}
	if task, err := Of(*req); req.Params.Task != nil || task != nil || err != ErrModern {
		t.Errorf("after the hooks: task param %v, Of = %v, %v; want a direct call refused with ErrModern", req.Params.Task, task, err)
	}
	if n := h.store.Len(); n != 0 {
		t.Errorf("%d tasks held", n)
	}
}

// A network request without a session and without a recorded caller
// cannot own a task (anyone could read it): it is refused tasks, and told
// to call directly, which still works.
func TestUnidentifiedCallerIsRefusedTasks(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := h.srv.WithContext(context.Background(), server.NewInProcessSession("", nil))
	if _, problem := h.startOrRefuse(ctx, "x", false, nil); problem != ErrNoOwner.Error() {
		t.Errorf("task: %q, want %q", problem, ErrNoOwner)
	}
	if _, problem := h.rpc(ctx, "tasks/list", map[string]any{}); problem != ErrNoOwner.Error() {
		t.Errorf("tasks/list: %q", problem)
	}
	if _, problem := h.rpc(ctx, "tasks/get", map[string]any{"taskId": "1"}); problem != ErrNoOwner.Error() {
		t.Errorf("tasks/get: %q", problem)
	}
	if got := h.store.list(ctx, []mcp.Task{{TaskId: "x"}}); len(got) != 0 {
		t.Errorf("listed %v", got)
	}
	res, problem := h.rpc(ctx, "tools/call", map[string]any{"name": "work", "arguments": map[string]any{"label": "direct"}})
	if problem != "" || res["content"].([]any)[0].(map[string]any)["text"] != "finished direct" {
		t.Errorf("direct call: %v %q", res, problem)
	}
	// With the transport's record of who it is, the same request may.
	id := h.start(caller.WithRequest(ctx, caller.Address("192.0.2.4")), "known", false, nil)["taskId"].(string)
	if h.store.byID[id].owner != caller.Address("192.0.2.4") {
		t.Errorf("owner %q", h.store.byID[id].owner)
	}
}

// Only the session that created a task is told of its end, under the ID
// it knows, with the failure's message when it failed; mcp-go's own
// announcement names an ID no client was given.
func TestOnlyTheOwnerIsToldOfTheEnd(t *testing.T) {
	h := newHarness(t, Config{})
	owner, mine := h.session("owner")
	_, theirs := h.session("other")
	ok := h.start(owner, "ok", false, nil)["taskId"].(string)
	res, problem := h.rpc(owner, "tools/call", map[string]any{"name": "work", "task": map[string]any{},
		"arguments": map[string]any{"label": "bad", "fail": "upstream down"}})
	if problem != "" {
		t.Fatal(problem)
	}
	bad := res["task"].(map[string]any)["taskId"].(string)
	// mcp-go answers tasks/result once the task's end is recorded, and
	// sends its status notifications under the same lock: by then every
	// session has been sent all it will be sent of these tasks.
	if _, problem := h.rpc(owner, "tasks/result", map[string]any{"taskId": ok}); problem != "" {
		t.Fatal(problem)
	}
	if _, problem := h.rpc(owner, "tasks/result", map[string]any{"taskId": bad}); problem != "upstream down" {
		t.Fatalf("the failed task's result: %q", problem)
	}
	queued := func(s *server.InProcessSession) map[string]map[string]any {
		told := map[string]map[string]any{}
		for {
			select {
			case n := <-s.ClientNotifications():
				if n.Method == mcp.MethodNotificationTasksStatus {
					id, _ := n.Params.AdditionalFields["taskId"].(string)
					told[id] = n.Params.AdditionalFields
				}
			default:
				return told
			}
		}
	}
	told, other := queued(mine), queued(theirs)
	if told[ok]["status"] != mcp.TaskStatusCompleted || told[bad]["status"] != mcp.TaskStatusFailed || told[bad]["statusMessage"] != "upstream down" {
		t.Errorf("the owner was told %v", told)
	}
	if told[ok]["ttl"] != DefaultTTL.Milliseconds() {
		t.Errorf("ttl told %v, want %d", told[ok]["ttl"], DefaultTTL.Milliseconds())
	}
	if other[ok] != nil || other[bad] != nil {
		t.Errorf("another session was told of the owner's tasks: %v", other)
	}
	// What else the sessions were told (mcp-go's announcements) names no
	// task a client was given, so the transports drop it.
	for id := range other {
		if h.store.Issued(id) {
			t.Errorf("another session was told of issued task %s", id)
		}
	}
	if len(other) != 2 {
		t.Errorf("another session was sent %d announcements, want mcp-go's two", len(other))
	}
}

// Shutdown cancels the work still running and says how much there was.
func TestShutdownStopsRunningWork(t *testing.T) {
	h := newHarness(t, Config{})
	h.running(as(caller.Token("a")), "one")
	h.running(as(caller.Token("b")), "two")
	if n := h.store.Shutdown(); n != 2 {
		t.Errorf("Shutdown cancelled %d, want 2", n)
	}
	if !h.stopped("one") || !h.stopped("two") {
		t.Errorf("after shutdown, work stopped: one %v, two %v", h.stopped("one"), h.stopped("two"))
	}
	if logs := h.logs.String(); !strings.Contains(logs, "tasks still running at shutdown were cancelled") || !strings.Contains(logs, "running=2") {
		t.Errorf("logs %q", logs)
	}
}

// A task whose call fails after the store admitted it (the tool is not
// the caller's to call) is forgotten at once: its place is free.
func TestFailedCreationFreesThePlace(t *testing.T) {
	h := newHarness(t, Config{PerCaller: 1})
	ctx := as(caller.Token("a"))
	_, problem := h.rpc(ctx, "tools/call", map[string]any{"name": "hidden", "task": map[string]any{}, "arguments": map[string]any{}})
	if !strings.Contains(problem, "tool 'hidden' not found") {
		t.Errorf("hidden tool: %q", problem)
	}
	if n := h.store.Len(); n != 0 {
		t.Errorf("%d tasks held after a failed call", n)
	}
	h.start(ctx, "next", false, nil)
}

// Requests the store has no say in pass to mcp-go unchanged: "task" on a
// tool without task support (answered directly), a malformed request
// (mcp-go's own error), and other methods.
func TestRequestsOutsideTasksPass(t *testing.T) {
	h := newHarness(t, Config{})
	ctx := as(caller.Token("a"))
	res, problem := h.rpc(ctx, "tools/call", map[string]any{"name": "plain", "task": map[string]any{}})
	if problem != "" || res["content"].([]any)[0].(map[string]any)["text"] != "plain answer" {
		t.Errorf("task on a plain tool: %v %q", res, problem)
	}
	if _, problem := rpctest.SendRaw(t, ctx, h.srv, `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":7}}`); problem == "" || strings.HasPrefix(problem, notFound) {
		t.Errorf("malformed tasks/get: %q, want mcp-go's own error", problem)
	}
	if _, problem := h.rpc(ctx, "ping", map[string]any{"task": map[string]any{}}); problem != "" {
		t.Errorf("ping mentioning a task: %q", problem)
	}
	if n := h.store.Len(); n != 0 {
		t.Errorf("%d tasks held", n)
	}
	// Without a server attached, no tool runs as a task.
	s, _ := newStore(t, Config{})
	if s.runsAsTask("work") {
		t.Error("a detached store runs tools as tasks")
	}
}

// Of tells the tool how it is called: directly, as a task, or refused
// one; "task" that bypassed the store's hooks has no owner.
func TestOf(t *testing.T) {
	var req mcp.CallToolRequest
	if task, err := Of(req); task != nil || err != nil {
		t.Errorf("direct: %v, %v", task, err)
	}
	req.Params.Task = &mcp.TaskParams{}
	if _, err := Of(req); err != ErrNoOwner {
		t.Errorf("task without the hooks: %v", err)
	}
	want := &Task{id: "t"}
	setMark(&req, mark{task: want})
	if task, err := Of(req); task != want || err != nil {
		t.Errorf("marked: %v, %v", task, err)
	}
	req.Params.Meta.AdditionalFields[markKey] = "forged by a client"
	if _, err := Of(req); err != ErrNoOwner {
		t.Errorf("a client's own value under the mark: %v", err)
	}
}
