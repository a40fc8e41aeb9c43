package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Work that runs on its own, beyond the call that started it (a breed
// pass read in the background, gateway/passes), may be followed by the
// caller whose call started it as one of its tasks: tasks/get shows how
// far it has got, tasks/result what it came to, and tasks/cancel stops it.
// mcp-go keeps task records only for task-augmented tools/call requests
// and offers no other way to make one, so Follow makes such a request of
// the server itself, in the caller's context, for a tool that is never
// listed and answers no one else: the task is then mcp-go's like any
// other, and the hooks make it the caller's.

// Work is what a followed task reports on.
type Work interface {
	// Wait returns what the work came to once it ends, or ctx's error if
	// ctx ends first; an error is the task's failure.
	Wait(ctx context.Context) (any, error)
	// Cancel stops the work; it is called before tasks/cancel answers, so
	// the work must start nothing once Cancel has returned.
	Cancel()
	// Status says how far the work has got, for tasks/get while it runs.
	Status() string
}

// followTool is the tool followed work runs under. Clients never see it
// (ToolFilter) and cannot call it: a call that Follow did not make reaches
// no work.
const followTool = "nsip-mcp.internal.follow"

type followKey struct{}

// following travels in the context of the request Follow makes: the work,
// and the task the hooks make for it.
type following struct {
	work Work
	task *Task
	err  error // why no task was made
}

func followingOf(ctx context.Context) *following {
	f, _ := ctx.Value(followKey{}).(*following)
	return f
}

// Following reports whether ctx is a request Follow makes of the server,
// whose tool no client is offered; other hooks let it by.
func Following(ctx context.Context) bool { return followingOf(ctx) != nil }

// Offer lets callers follow work as tasks on srv, which must be the server
// Attach was given and must offer tasks (server.WithTaskCapabilities).
func (s *Store) Offer(srv *server.MCPServer) {
	srv.AddTaskTool(mcp.Tool{
		Name:        followTool,
		Description: "Work a caller follows as a task; never listed.",
		InputSchema: mcp.ToolInputSchema{Type: "object"},
		Execution:   &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired},
	}, s.runFollowed)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.follows = true
}

// Why a caller cannot follow work.
var (
	errNotOffered = errors.New("this server does not offer MCP tasks: its NSIP_TOOLSETS leaves out the analysis toolset, whose tools run as tasks")
	errNoTasksCap = errors.New("the client did not declare tasks support (capabilities.tasks) when it initialized")
	errModernWork = errors.New("tasks are not offered to MCP " + mcp.ProtocolVersion20260728 + " clients")
)

// Follow makes w a task of the caller of ctx, and returns its ID, or why
// the caller cannot follow it (the work goes on either way).
func (s *Store) Follow(ctx context.Context, w Work) (string, error) {
	if err := s.mayFollow(ctx); err != nil {
		return "", err
	}
	f := &following{work: w}
	fctx := context.WithValue(context.WithoutCancel(ctx), followKey{}, f)
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":"follow-%s","method":"tools/call","params":{"name":%q,"arguments":{},"task":{}}}`, newID(), followTool)
	resp := s.server().HandleMessage(fctx, json.RawMessage(msg))
	s.mu.Lock()
	t, err := f.task, f.err
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	if e, ok := resp.(mcp.JSONRPCError); ok {
		return "", fmt.Errorf("the task could not be created (%s)", e.Error.Message)
	}
	if t == nil {
		return "", errors.New("the task could not be created")
	}
	return t.id, nil
}

// mayFollow is why the caller of ctx cannot follow work as a task, or nil.
func (s *Store) mayFollow(ctx context.Context) error {
	s.mu.Lock()
	offered := s.follows && s.srv != nil
	s.mu.Unlock()
	if !offered {
		return errNotOffered
	}
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return errModernWork
	}
	if sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok && sess.GetClientCapabilities().Tasks == nil {
		return errNoTasksCap
	}
	switch _, err := Owner(ctx); {
	case errors.Is(err, ErrNoOwner):
		return errors.New("the request has no session and no client identity, so a task would be readable by other clients")
	case err != nil:
		return errors.New("the client reached the server through a proxy not trusted to name its clients (MCP_TRUSTED_PROXIES), so a task would be readable by every client behind it")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweepLocked()
	if why := s.quotaLocked(caller.Client(ctx)); why != "" {
		return errors.New(why)
	}
	return nil
}

// createFollowed is the task of the request Follow made in ctx.
func (s *Store) createFollowed(ctx context.Context, f *following) (*Task, error) {
	t, err := s.create(ctx, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		f.err = err
		return nil, err
	}
	t.work, f.task = f.work, t
	return t, nil
}

// runFollowed is followTool's handler: it waits for the work, which ends
// the task.
func (s *Store) runFollowed(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
	t, err := Of(req)
	f := followingOf(ctx)
	if err != nil || t == nil || f == nil || t.work != f.work {
		return nil, fmt.Errorf("tool %q not found", req.Params.Name)
	}
	ctx, done := s.Start(ctx, t)
	defer done()
	v, err := f.work.Wait(ctx)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, StructuredContent: v}, nil
}

// status is the task as its owner is shown it: while followed work runs,
// its status message says how far it has got.
func (s *Store) status(task *mcp.Task) {
	t := s.byShellID(task.TaskId)
	if t == nil {
		return
	}
	task.TaskId = t.id
	if t.work != nil && task.Status == mcp.TaskStatusWorking {
		task.StatusMessage = t.work.Status()
	}
}

// Owns reports whether id is a task of the caller of ctx.
func (s *Store) Owns(ctx context.Context, id string) bool {
	_, err := s.lookup(ctx, id)
	return err == nil
}
