package session

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// ErrEnded is why the calls of a session that ended were cancelled
// (context.Cause of their contexts).
var ErrEnded = errors.New("the session ended while the call was running")

// Calls are the calls running in each session. A session's end ends them:
// its client has said it wants nothing more there (a DELETE, a closed
// stream), and calls left running would hold NSIP turns and call places
// while the client, its session place free again, begins the next. The
// zero value is ready to use and safe for concurrent use.
type Calls struct {
	mu sync.Mutex
	m  map[string]map[*call]struct{}
}

type call struct{ cancel context.CancelCauseFunc }

// noCall is the done of a call that was not registered.
func noCall() {}

// Begin registers a call made in ctx's session, if it has one whose
// transport does not end its calls itself (caller.SessionBound); the
// context it returns ends when the call's does or the session ends. done
// forgets the call.
func (sc *Calls) Begin(ctx context.Context) (_ context.Context, done func()) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" || caller.SessionBound(ctx) {
		// No session, or one whose transport ends its calls itself (a
		// WebSocket connection): nothing to register.
		return ctx, noCall
	}
	id := s.SessionID()
	ctx, cancel := context.WithCancelCause(ctx)
	c := &call{cancel: cancel}
	sc.mu.Lock()
	if sc.m == nil {
		sc.m = map[string]map[*call]struct{}{}
	}
	if sc.m[id] == nil {
		sc.m[id] = map[*call]struct{}{}
	}
	sc.m[id][c] = struct{}{}
	sc.mu.Unlock()
	return ctx, func() {
		sc.mu.Lock()
		delete(sc.m[id], c)
		if len(sc.m[id]) == 0 {
			delete(sc.m, id)
		}
		sc.mu.Unlock()
		cancel(nil)
	}
}

// End cancels the calls still running in session id and returns how many.
func (sc *Calls) End(id string) int {
	sc.mu.Lock()
	calls := sc.m[id]
	delete(sc.m, id)
	sc.mu.Unlock()
	for c := range calls {
		c.cancel(ErrEnded)
	}
	return len(calls)
}

// Options make every tool call and resource read end with its session:
// h ends them, logging to log how many were still running, and the
// middleware the options add registers each.
func (sc *Calls) Options(h *server.Hooks, log *slog.Logger) []server.ServerOption {
	h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		if n := sc.End(s.SessionID()); n > 0 {
			log.Info("calls of an ended session were cancelled", slog.String("session", s.SessionID()), slog.Int("running", n))
		}
	})
	return []server.ServerOption{
		server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
			return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ctx, done := sc.Begin(ctx)
				defer done()
				return next(ctx, req)
			}
		}),
		server.WithResourceHandlerMiddleware(func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
			return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				ctx, done := sc.Begin(ctx)
				defer done()
				return next(ctx, req)
			}
		}),
	}
}
