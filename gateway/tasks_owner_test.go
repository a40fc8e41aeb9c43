package gateway

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// send sends one JSON-RPC request in ctx and returns its result, or the
// message of the JSON-RPC error it was answered with.
func send(t *testing.T, e *env, ctx context.Context, method string, params any) (map[string]any, string) {
	t.Helper()
	return rpctest.Send(t, ctx, e.srv, method, params)
}

// herdEnvWith is herdEnv with the gateway's configuration adjusted.
func herdEnvWith(t *testing.T, h *herd, f func(*Config)) *env {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	if h.hold != nil {
		t.Cleanup(h.release)
	}
	return newEnv(t, func(c *Config, o *[]nsip.Option) {
		f(c)
		*o = append(*o, nsip.WithBaseURL(ts.URL+"/api"))
	})
}

// startTask creates a flock summary task in ctx and returns its ID.
func startTask(t *testing.T, e *env, ctx context.Context) string {
	t.Helper()
	res, problem := send(t, e, ctx, "tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}})
	if problem != "" {
		t.Fatalf("task refused: %s", problem)
	}
	task, _ := res["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("created %v, want a task", res)
	}
	return id
}

func listed(t *testing.T, e *env, ctx context.Context) []string {
	t.Helper()
	res, problem := send(t, e, ctx, "tasks/list", map[string]any{})
	if problem != "" {
		t.Fatalf("tasks/list: %s", problem)
	}
	var ids []string
	for _, v := range res["tasks"].([]any) {
		ids = append(ids, v.(map[string]any)["taskId"].(string))
	}
	return ids
}

// A task is its creator's: another client (a session, a sessionless client
// known by its address, one of each) neither lists it nor reads, waits on
// or cancels it; each is told the same "not found" as for no task at all.
// The creator can do all four.
func TestTaskInvisibleToOtherClients(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	sessA, sessB := taskSession(t, e), taskSession(t, e)
	addrA := caller.WithRequest(context.Background(), caller.Address("192.0.2.1"))
	addrB := caller.WithRequest(context.Background(), caller.Address("192.0.2.2"))
	for _, c := range []struct {
		name         string
		owner, other context.Context
	}{
		{"session and session", sessA, sessB},
		{"address and address", addrA, addrB},
		{"session and address", sessA, addrB},
		{"address and session", addrA, sessB},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := startTask(t, e, c.owner)
			if ids := listed(t, e, c.other); strings.Contains(strings.Join(ids, " "), id) {
				t.Errorf("another client lists the task: %v", ids)
			}
			if ids := listed(t, e, c.owner); !strings.Contains(strings.Join(ids, " "), id) {
				t.Errorf("its creator does not list the task: %v", ids)
			}
			for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
				res, problem := send(t, e, c.other, method, map[string]any{"taskId": id})
				if !strings.HasPrefix(problem, "task not found") {
					t.Errorf("%s by another client answered %v %q, want task not found", method, res, problem)
				}
			}
			_, none := send(t, e, c.other, "tasks/get", map[string]any{"taskId": "no-such-task"})
			if _, problem := send(t, e, c.other, "tasks/get", map[string]any{"taskId": id}); problem != none {
				t.Errorf("another's task answered %q, no task %q: they must look the same", problem, none)
			}
			if res, problem := send(t, e, c.owner, "tasks/get", map[string]any{"taskId": id}); problem != "" || res["taskId"] != id {
				t.Errorf("tasks/get by its creator: %v %q", res, problem)
			}
		})
	}
	h.release()
	for _, owner := range []context.Context{sessA, addrA} {
		for _, id := range listed(t, e, owner) {
			res, problem := send(t, e, owner, "tasks/result", map[string]any{"taskId": id})
			related, _ := res["_meta"].(map[string]any)[mcp.RelatedTaskMetaKey].(map[string]any)
			if problem != "" || res["isError"] == true || related["taskId"] != id {
				t.Errorf("tasks/result by its creator: %v %q", res, problem)
			}
		}
	}
}

// Task status notifications go to the task's creator and to no other
// session. mcp-go still announces its own record of the task to every
// session, under an ID no client is told; that ID finds nothing.
func TestTaskStatusOnlyToItsCreator(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	sessions := [2]*server.InProcessSession{}
	ctxs := [2]context.Context{}
	for i := range sessions {
		sessions[i] = server.NewInProcessSession(fmt.Sprintf("status-%d", i), nil)
		if err := e.srv.RegisterSession(context.Background(), sessions[i]); err != nil {
			t.Fatal(err)
		}
		sessions[i].Initialize()
		ctxs[i] = e.srv.WithContext(context.Background(), sessions[i])
	}
	id := startTask(t, e, ctxs[0])
	h.release()
	if res, problem := send(t, e, ctxs[0], "tasks/result", map[string]any{"taskId": id}); problem != "" || res["isError"] == true {
		t.Fatalf("result: %v %q", res, problem)
	}
	statuses := func(s *server.InProcessSession) (ours []string, others []string) {
		for len(s.ClientNotifications()) > 0 {
			n := <-s.ClientNotifications()
			if n.Method != mcp.MethodNotificationTasksStatus {
				continue
			}
			f := n.Params.AdditionalFields
			if f["taskId"] == id {
				ours = append(ours, fmt.Sprint(f["status"]))
			} else {
				others = append(others, fmt.Sprint(f["taskId"]))
			}
		}
		return ours, others
	}
	if ours, _ := statuses(sessions[0]); strings.Join(ours, ",") != "completed" {
		t.Errorf("the creator was told %v of its task, want completed", ours)
	}
	ours, unknown := statuses(sessions[1])
	if len(ours) > 0 {
		t.Errorf("another session was told %v of the task", ours)
	}
	for _, other := range unknown {
		if res, problem := send(t, e, ctxs[1], "tasks/get", map[string]any{"taskId": other}); !strings.HasPrefix(problem, "task not found") {
			t.Errorf("the ID mcp-go announced finds %v %q", res, problem)
		}
		if res, problem := send(t, e, ctxs[0], "tasks/get", map[string]any{"taskId": other}); !strings.HasPrefix(problem, "task not found") {
			t.Errorf("the ID mcp-go announced finds, for the creator, %v %q", res, problem)
		}
	}
}

// One client holds at most TasksPerClient tasks, all clients together
// TasksMax; the refusal names the setting that raises it. Another client
// still gets its own.
func TestTasksBounded(t *testing.T) {
	h := flockHerd()
	e := herdEnvWith(t, h, func(c *Config) { c.TasksPerClient, c.TasksMax = 2, 3 })
	a, b, c := taskSession(t, e), taskSession(t, e), taskSession(t, e)
	startTask(t, e, a)
	startTask(t, e, a)
	args := map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}}
	if res, problem := send(t, e, a, "tools/call", args); !strings.Contains(problem, "NSIP_TASKS_PER_CLIENT=2") {
		t.Errorf("a third task of one client answered %v %q, want a refusal naming NSIP_TASKS_PER_CLIENT", res, problem)
	}
	startTask(t, e, b)
	if res, problem := send(t, e, c, "tools/call", args); !strings.Contains(problem, "NSIP_TASKS_MAX=3") {
		t.Errorf("a fourth task in all answered %v %q, want a refusal naming NSIP_TASKS_MAX", res, problem)
	}
	// Direct calls are not tasks and are not refused.
	h.release()
	e.call("nsip_flock_summary", map[string]any{"flock_id": "640555"}).mustOK(t)
}

// A task is forgotten TTL after its creation, its result with it: the
// store holds nothing more and tasks/list is empty. The clock is the
// gateway's, moved by the test.
func TestTaskForgottenAfterTTL(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	ctx := taskSession(t, e)
	id := startTask(t, e, ctx)
	h.release()
	if _, problem := send(t, e, ctx, "tasks/result", map[string]any{"taskId": id}); problem != "" {
		t.Fatal(problem)
	}
	if n := e.gw.tasks.Len(); n != 1 {
		t.Fatalf("%d tasks held after completion, want 1 until its TTL", n)
	}
	e.clock.Advance(DefaultConfig().TaskTTL)
	if ids := listed(t, e, ctx); len(ids) != 0 {
		t.Errorf("tasks listed after their TTL: %v", ids)
	}
	if n := e.gw.tasks.Len(); n != 0 {
		t.Errorf("%d tasks held after their TTL, want 0", n)
	}
	if _, problem := send(t, e, ctx, "tasks/result", map[string]any{"taskId": id}); !strings.HasPrefix(problem, "task not found") {
		t.Errorf("result after the TTL: %q", problem)
	}
}

// tasks/cancel stops the analysis: the page NSIP was answering is the only
// one requested, though the flock has three.
func TestTaskCancelStopsLookups(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	ctx := taskSession(t, e)
	id := startTask(t, e, ctx)
	for h.count("search/getPageOfSearchResults") == 0 {
		time.Sleep(time.Millisecond) // until the first page is being asked for
	}
	if res, problem := send(t, e, ctx, "tasks/cancel", map[string]any{"taskId": id}); problem != "" || res["status"] != "cancelled" || res["taskId"] != id {
		t.Fatalf("tasks/cancel: %v %q", res, problem)
	}
	h.release()
	for e.gw.tasks.Running() > 0 || e.gw.pool.InFlight() > 0 {
		time.Sleep(time.Millisecond)
	}
	if n := h.count("search/getPageOfSearchResults"); n != 1 {
		t.Errorf("%d pages requested after cancel, want only the one in flight", n)
	}
}

// modernMeta is the _meta of an MCP 2026-07-28 request.
func modernMeta() map[string]any {
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo:         map[string]any{"name": "modern", "version": "1"},
	}
}

// A 2026-07-28 client is refused tasks with a reason, and cannot reach a
// task another client made by its ID.
func TestModernClientRefusedTasks(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	id := startTask(t, e, taskSession(t, e))
	modern := context.Background()
	res, problem := send(t, e, modern, "tools/call", map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}, "_meta": modernMeta()})
	if !strings.Contains(problem, "not offered to MCP 2026-07-28 clients") {
		t.Errorf("task for a 2026-07-28 client answered %v %q", res, problem)
	}
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		if res, problem := send(t, e, modern, method, map[string]any{"taskId": id, "_meta": modernMeta()}); !strings.Contains(problem, "not offered to MCP 2026-07-28 clients") {
			t.Errorf("%s of another's task by a 2026-07-28 client answered %v %q", method, res, problem)
		}
	}
	for _, c := range []struct {
		meta map[string]any
		want any
	}{{modernMeta(), nil}, {nil, "optional"}} {
		list, problem := send(t, e, modern, "tools/list", map[string]any{"_meta": c.meta})
		found := false
		for _, tool := range list["tools"].([]any) {
			tool := tool.(map[string]any)
			exec, _ := tool["execution"].(map[string]any)
			if tool["name"] == "nsip_flock_summary" {
				found = true
				if exec["taskSupport"] != c.want {
					t.Errorf("tools/list (_meta %v) shows the flock summary's task support as %v, want %v", c.meta, exec["taskSupport"], c.want)
				}
			}
		}
		if problem != "" || !found {
			t.Errorf("tools/list (_meta %v): %q, flock summary listed %v", c.meta, problem, found)
		}
	}
	disc, problem := send(t, e, modern, "server/discover", map[string]any{"_meta": modernMeta()})
	if caps, _ := disc["capabilities"].(map[string]any); problem != "" || caps == nil || caps["tasks"] != nil {
		t.Errorf("server/discover offers %v %q, want no tasks", disc["capabilities"], problem)
	}
}

// A request over the network without a session whose transport recorded
// no identity cannot own a task: it is refused, naming why. With an
// identity it is served.
func TestTaskRefusedWithoutOwner(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	stateless := e.srv.WithContext(context.Background(), server.NewInProcessSession("", nil))
	args := map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}}
	if res, problem := send(t, e, stateless, "tools/call", args); !strings.Contains(problem, "no session and no client identity") {
		t.Errorf("task without an owner answered %v %q", res, problem)
	}
	startTask(t, e, caller.WithRequest(stateless, caller.Token("f00d")))
}

// Tasks still running at shutdown are cancelled, counted and logged.
func TestTasksRunningAtShutdownCounted(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	startTask(t, e, taskSession(t, e))
	for h.count("search/getPageOfSearchResults") == 0 {
		time.Sleep(time.Millisecond)
	}
	if n := e.gw.StopTasks(); n != 1 {
		t.Errorf("StopTasks = %d, want the 1 running", n)
	}
	var logged bool
	for _, l := range e.logs.Records(t) {
		logged = logged || l["msg"] == "tasks still running at shutdown were cancelled" && l["running"] == 1.0
	}
	if !logged {
		t.Error("shutdown not logged with the count of tasks running")
	}
}

// taskSessionAt opens a session of the client at addr, as a network
// transport records it.
func taskSessionAt(t *testing.T, e *env, addr string) (context.Context, string) {
	t.Helper()
	id := fmt.Sprintf("task-test-%d", taskSessions.Add(1))
	session := server.NewInProcessSession(id, nil)
	ctx := caller.WithRequest(context.Background(), caller.Address(addr))
	if err := e.srv.RegisterSession(ctx, session); err != nil {
		t.Fatal(err)
	}
	session.Initialize()
	return e.srv.WithContext(ctx, session), id
}

// The task bound is the client's, not each session's: a client that holds
// NSIP_TASKS_PER_CLIENT tasks in one session is refused the next in
// another, while another client is not. When the bound was per session,
// one address with 16 sessions held 16 x 16 = every place of the server.
func TestTaskBoundIsPerClientNotPerSession(t *testing.T) {
	h := flockHerd()
	e := herdEnvWith(t, h, func(c *Config) { c.TasksPerClient, c.TasksMax = 2, 10 })
	a, _ := taskSessionAt(t, e, "198.51.100.7")
	b, _ := taskSessionAt(t, e, "198.51.100.7")
	startTask(t, e, a)
	startTask(t, e, a)
	args := map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}}
	if res, problem := send(t, e, b, "tools/call", args); !strings.Contains(problem, "NSIP_TASKS_PER_CLIENT=2") {
		t.Errorf("a third task of one client, in its second session, answered %v %q; want a refusal naming NSIP_TASKS_PER_CLIENT", res, problem)
	}
	other, _ := taskSessionAt(t, e, "192.0.2.40")
	startTask(t, e, other)
	if n := e.gw.tasks.Len(); n != 3 {
		t.Errorf("%d tasks held, want 3 (two of one client, one of another)", n)
	}
}

// A session's tasks end with it: nobody can read them once it has gone, so
// they are cancelled (NSIP is asked for nothing more) and their places are
// the client's again. Before, they ran on, each still holding a place,
// while the client's next session had a fresh bound.
func TestEndedSessionsTasksAreCancelledAndFreed(t *testing.T) {
	h := flockHerd()
	e := herdEnvWith(t, h, func(c *Config) { c.TasksPerClient, c.TasksMax = 2, 10 })
	ctx, id := taskSessionAt(t, e, "198.51.100.7")
	startTask(t, e, ctx)
	startTask(t, e, ctx)
	// Both ask for the same first page, which one request answers.
	waitFor(t, "the tasks to ask NSIP", func() bool { return h.count("search/getPageOfSearchResults") == 1 })
	e.srv.UnregisterSession(context.Background(), id) // a DELETE, a closed stream
	if n := e.gw.tasks.Len(); n != 0 {
		t.Errorf("%d tasks held after their session ended, want 0", n)
	}
	h.release() // the request sent goes on to the end; the tasks read no more
	waitFor(t, "the tasks to stop", func() bool { return e.gw.tasks.Running() == 0 && e.gw.pool.InFlight() == 0 })
	if n := h.count("search/getPageOfSearchResults"); n != 1 {
		t.Errorf("%d pages requested of the flock's three, want only the one asked for before the session ended", n)
	}
	next, _ := taskSessionAt(t, e, "198.51.100.7")
	startTask(t, e, next)
	startTask(t, e, next)
}

// A sessionless client that reached the server through a proxy not listed
// in MCP_TRUSTED_PROXIES (caller.Forwarded) is refused tasks, with the
// setting named: every client behind that proxy has its address, and
// would list and read its task. Before, a stateless replica gave them all
// the tasks of addr:127.0.0.1.
func TestForwardedClientRefusedTasksWithoutSession(t *testing.T) {
	h := flockHerd()
	e := herdEnv(t, h)
	stateless := e.srv.WithContext(context.Background(), server.NewInProcessSession("", nil))
	proxied := caller.WithRequest(stateless, caller.Forwarded(caller.Address("127.0.0.1")))
	args := map[string]any{"name": "nsip_flock_summary", "arguments": map[string]any{"flock_id": "640555"}, "task": map[string]any{}}
	if res, problem := send(t, e, proxied, "tools/call", args); !strings.Contains(problem, "MCP_TRUSTED_PROXIES") {
		t.Errorf("a task through an unlisted proxy answered %v %q; want a refusal naming MCP_TRUSTED_PROXIES", res, problem)
	}
	if _, problem := send(t, e, proxied, "tasks/list", map[string]any{}); !strings.Contains(problem, "MCP_TRUSTED_PROXIES") {
		t.Errorf("tasks/list through an unlisted proxy: %q; want a refusal naming MCP_TRUSTED_PROXIES", problem)
	}
	if n := e.gw.tasks.Len(); n != 0 {
		t.Errorf("%d tasks held, want none", n)
	}
	// In a session the task is the session's, which no other client shares.
	ctx, _ := taskSessionAt(t, e, "127.0.0.1")
	startTask(t, e, caller.WithRequest(ctx, caller.Forwarded(caller.Address("127.0.0.1"))))
}
