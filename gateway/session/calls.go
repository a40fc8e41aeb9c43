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
	// m holds each running call with its session. One flat map, not one
	// per session: a call costs an entry, not a map made and dropped with
	// its session's only call; End, which is rare, walks it.
	m map[*Call]string
}

// A Call is one call Begin registered.
type Call struct{ cancel context.CancelCauseFunc }

// Begin registers a call made in ctx's session, if it has one whose
// transport does not end its calls itself (caller.SessionBound); the
// context it returns ends when the call's does or the session ends. Done
// forgets the call; a call not registered is nil.
func (sc *Calls) Begin(ctx context.Context) (context.Context, *Call) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" || caller.SessionBound(ctx) {
		// No session, or one whose transport ends its calls itself (a
		// WebSocket connection): nothing to register.
		return ctx, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	c := &Call{cancel: cancel}
	sc.mu.Lock()
	if sc.m == nil {
		sc.m = map[*Call]string{}
	}
	sc.m[c] = s.SessionID()
	sc.mu.Unlock()
	return ctx, c
}

// Done forgets c, a call Begin returned, once it has finished.
func (sc *Calls) Done(c *Call) {
	if c == nil {
		return
	}
	sc.mu.Lock()
	delete(sc.m, c)
	sc.mu.Unlock()
	c.cancel(nil)
}

// End cancels the calls still running in session id and returns how many.
func (sc *Calls) End(id string) int {
	var ended []*Call
	sc.mu.Lock()
	for c, s := range sc.m {
		if s == id {
			ended = append(ended, c)
			delete(sc.m, c)
		}
	}
	sc.mu.Unlock()
	for _, c := range ended {
		c.cancel(ErrEnded)
	}
	return len(ended)
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
				ctx, c := sc.Begin(ctx)
				defer sc.Done(c)
				return next(ctx, req)
			}
		}),
		server.WithResourceHandlerMiddleware(func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
			return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				ctx, c := sc.Begin(ctx)
				defer sc.Done(c)
				return next(ctx, req)
			}
		}),
	}
}
