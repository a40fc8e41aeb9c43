package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// markKey is where the task of a tools/call travels in its request's _meta
// from the hook that creates it to the tool's handler. The value is a Go
// pointer, which no JSON a client sends can produce.
const markKey = "nsip-mcp.internal/task"

// mark is what markKey holds: the task, or why none was created.
type mark struct {
	task    *Task
	refused error
}

// Attach gives the store the server whose tasks it owns, for the owner's
// status notifications and to tell which tools run as tasks. Call it once,
// before serving.
func (s *Store) Attach(srv *server.MCPServer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv = srv
}

func (s *Store) server() *server.MCPServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv
}

// runsAsTask reports whether a tools/call of name with "task" becomes a
// task in mcp-go; for other tools mcp-go ignores "task" and answers
// directly.
func (s *Store) runsAsTask(name string) bool {
	srv := s.server()
	if srv == nil {
		return false
	}
	t := srv.GetTool(name)
	if t == nil || t.Tool.Execution == nil {
		return false
	}
	ts := t.Tool.Execution.TaskSupport
	return ts == mcp.TaskSupportOptional || ts == mcp.TaskSupportRequired
}

// taskMessage is what the first hook reads of a request.
type taskMessage struct {
	Method mcp.MCPMethod `json:"method"`
	Params struct {
		Name   string          `json:"name"`
		Task   *mcp.TaskParams `json:"task"`
		TaskID string          `json:"taskId"`
		Meta   *mcp.Meta       `json:"_meta"`
	} `json:"params"`
}

// AddHooks puts the store in front of mcp-go's task handling; h must be the
// server's hooks (server.WithHooks), and TaskHooks its task hooks.
func (s *Store) AddHooks(h *server.Hooks) {
	// First, before mcp-go decodes the request: refuse what the caller may
	// not do, so that mcp-go never answers with another client's task.
	h.AddOnRequestInitialization(func(ctx context.Context, _ any, message any) error {
		raw, ok := message.(json.RawMessage)
		if !ok {
			return nil
		}
		return s.admitRequest(ctx, raw)
	})
	h.AddBeforeCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest) { s.beforeCallTool(ctx, req) })
	// A session's tasks are its own: when it ends, nobody can read them.
	h.AddOnUnregisterSession(func(_ context.Context, sess server.ClientSession) {
		s.SessionEnded(sess.SessionID())
	})
	h.AddAfterCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest, result any) {
		created, ok := result.(*mcp.CreateTaskResult)
		m := markOf(*req)
		if m.task == nil {
			return
		}
		if !ok {
			s.drop(m.task)
			return
		}
		s.bind(m.task, created.Task)
		created.Task.TaskId = m.task.id
	})
	h.AddOnError(func(_ context.Context, _ any, method mcp.MCPMethod, message any, _ error) {
		if req, ok := message.(*mcp.CallToolRequest); ok && method == mcp.MethodToolsCall {
			if m := markOf(*req); m.task != nil {
				s.drop(m.task)
			}
		}
	})
	// The caller's own tasks are known to mcp-go by their record's ID.
	h.AddBeforeGetTask(func(ctx context.Context, _ any, req *mcp.GetTaskRequest) {
		req.Params.TaskId = s.shellOf(ctx, req.Params.TaskId)
	})
	h.AddAfterGetTask(func(_ context.Context, _ any, _ *mcp.GetTaskRequest, res *mcp.GetTaskResult) {
		s.status(&res.Task)
	})
	h.AddBeforeCancelTask(func(ctx context.Context, _ any, req *mcp.CancelTaskRequest) {
		req.Params.TaskId = s.shellOf(ctx, req.Params.TaskId)
	})
	h.AddAfterCancelTask(func(_ context.Context, _ any, req *mcp.CancelTaskRequest, res *mcp.CancelTaskResult) {
		// The work stops only once mcp-go has marked its record cancelled:
		// stopped sooner, it could answer first, leaving the task completed
		// and the owner's cancel refused.
		if t := s.byShellID(req.Params.TaskId); t != nil {
			s.Cancel(t)
		}
		s.rename(&res.Task)
	})
	h.AddBeforeTaskResult(func(ctx context.Context, _ any, req *mcp.TaskResultRequest) {
		req.Params.TaskId = s.shellOf(ctx, req.Params.TaskId)
	})
	h.AddAfterTaskResult(func(_ context.Context, _ any, req *mcp.TaskResultRequest, res *mcp.TaskResultResult) {
		t := s.byShellID(req.Params.TaskId)
		if t == nil || res.Meta == nil || res.Meta.AdditionalFields == nil {
			return
		}
		res.Meta.AdditionalFields[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(t.id)
	})
	h.AddAfterListTasks(func(ctx context.Context, _ any, _ *mcp.ListTasksRequest, res *mcp.ListTasksResult) {
		res.Tasks = s.list(ctx, res.Tasks)
	})
	// Clients of 2026-07-28 are refused tasks; discovery does not offer them.
	h.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Capabilities.Tasks = nil
	})
}

// beforeCallTool makes the task of a call that runs as one, or marks the
// call refused one, before mcp-go makes its record.
func (s *Store) beforeCallTool(ctx context.Context, req *mcp.CallToolRequest) {
	if f := followingOf(ctx); f != nil && req.Params.Name == followTool && req.Params.Task != nil {
		t, err := s.createFollowed(ctx, f)
		if err != nil {
			// mcp-go refuses a task-only tool's call without one; Follow
			// says why.
			req.Params.Task = nil
			return
		}
		ms := t.ttl.Milliseconds()
		req.Params.Task = &mcp.TaskParams{TTL: &ms} // mcp-go forgets its record with the task
		setMark(req, mark{task: t})
		return
	}
	if req.Params.Task == nil || !s.runsAsTask(req.Params.Name) {
		return
	}
	var t *Task
	err := ErrModern
	if info := server.RequestProtocolInfoFromContext(ctx); info == nil || !info.Modern {
		t, err = s.create(ctx, req.Params.Task.TTL)
	}
	if err != nil {
		// Refused after admitRequest let it by (another call took the
		// last place meanwhile): the call answers at once, with why.
		req.Params.Task = nil
		setMark(req, mark{refused: err})
		return
	}
	ms := t.ttl.Milliseconds()
	// mcp-go forgets its record of the task after the same TTL.
	req.Params.Task = &mcp.TaskParams{TTL: &ms}
	setMark(req, mark{task: t})
}

// ToolFilter lists the tools to a 2026-07-28 client without task support,
// since it is refused tasks; others see the tools unchanged, but for the
// tool followed work runs under (follow.go), which is listed to no one
// and passes only Follow's own call of it.
func ToolFilter(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	modern, own := false, Following(ctx)
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		modern = true
	}
	if !modern && (own || !slices.ContainsFunc(tools, func(t mcp.Tool) bool { return t.Name == followTool })) {
		return tools // most calls: nothing to hide or change, nothing to copy
	}
	out := make([]mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if t.Name == followTool && !own {
			continue
		}
		if modern {
			t.Execution = nil
		}
		out = append(out, t)
	}
	return out
}

// admitRequest refuses a task request the caller may not make: tasks for a
// 2026-07-28 client or an unidentifiable one, a task beyond the bounds, or
// a task that is not the caller's (answered as if it did not exist).
func (s *Store) admitRequest(ctx context.Context, raw json.RawMessage) error {
	var m taskMessage
	switch {
	case !mentionsTasks(raw):
		return nil
	case json.Unmarshal(raw, &m) != nil:
		return nil // mcp-go answers a malformed request itself
	}
	modern := mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
	switch m.Method {
	case mcp.MethodToolsCall:
		if m.Params.Task == nil || !s.runsAsTask(m.Params.Name) {
			return nil
		}
		if modern {
			return ErrModern
		}
		if _, err := Owner(ctx); err != nil {
			return err
		}
		return s.Admit(caller.Client(ctx))
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel, mcp.MethodTasksList:
		if modern {
			return ErrModern
		}
		if m.Method == mcp.MethodTasksList {
			_, err := Owner(ctx)
			return err
		}
		_, err := s.lookup(ctx, m.Params.TaskID)
		return err
	}
	return nil
}

// mentionsTasks is a cheap test that spares most requests a second
// decode. encoding/json, which mcp-go decodes with, matches member names
// regardless of case, and a name may be written with escapes; the hooks
// before each handler check again, so this only has to catch what honest
// clients send and most else.
func mentionsTasks(raw json.RawMessage) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		return true
	}
	for i := 0; i+4 <= len(raw); i++ {
		if raw[i]|0x20 == 't' && bytes.EqualFold(raw[i:i+4], []byte("task")) {
			return true
		}
	}
	return false
}

// rename shows a task mcp-go answered with under the ID its owner knows.
func (s *Store) rename(task *mcp.Task) {
	if t := s.byShellID(task.TaskId); t != nil {
		task.TaskId = t.id
	}
}

// TaskHooks tells each task's owner, and no one else, of its end.
func (s *Store) TaskHooks() *server.TaskHooks {
	th := &server.TaskHooks{}
	notify := func(_ context.Context, m server.TaskMetrics) {
		at := time.Now()
		if m.CompletedAt != nil {
			at = *m.CompletedAt
		}
		task, session, ok := s.finished(m.TaskID, m.Status, m.StatusMessage, at)
		srv := s.server()
		if !ok || session == "" || srv == nil {
			return
		}
		params := map[string]any{
			"taskId": task.TaskId, "status": task.Status,
			"createdAt": task.CreatedAt, "lastUpdatedAt": task.LastUpdatedAt,
		}
		if task.StatusMessage != "" {
			params["statusMessage"] = task.StatusMessage
		}
		if task.TTL != nil {
			params["ttl"] = *task.TTL
		}
		// A session that has gone cannot be told; its task is still
		// forgotten at its TTL.
		_ = srv.SendNotificationToSpecificClient(session, mcp.MethodNotificationTasksStatus, params)
	}
	th.AddOnTaskCompleted(notify)
	th.AddOnTaskFailed(notify)
	th.AddOnTaskCancelled(notify)
	return th
}

func setMark(req *mcp.CallToolRequest, m mark) {
	if req.Params.Meta == nil {
		req.Params.Meta = &mcp.Meta{}
	}
	req.Params.Meta.SetMetaField(markKey, &m)
}

func markOf(req mcp.CallToolRequest) mark {
	if req.Params.Meta == nil {
		return mark{}
	}
	if m, ok := req.Params.Meta.AdditionalFields[markKey].(*mark); ok {
		return *m
	}
	return mark{}
}

// Of is the task a tools/call runs as: (nil, nil) for a direct call,
// (nil, err) for a call refused a task (its answer is err), and the task
// otherwise.
func Of(req mcp.CallToolRequest) (*Task, error) {
	m := markOf(req)
	switch {
	case m.refused != nil:
		return nil, m.refused
	case m.task != nil:
		return m.task, nil
	case req.Params.Task != nil:
		// Not through the store's hooks: nothing says whose it is.
		return nil, ErrNoOwner
	}
	return nil, nil
}
