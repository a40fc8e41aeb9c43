package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// callerOf names who is calling for the fair queue: the session, else the
// client the transport recorded (a stateless or sessionless call's token or
// address), so that sessionless callers get a share each rather than one
// between them all. Calls through no transport (stdio's one client, Ready)
// share caller.Local.
func callerOf(ctx context.Context) string { return string(caller.Of(ctx)) }

// blame wraps err as queuedTooLong when the fetch's deadline, not NSIP,
// ended a request sent at sent.
func (g *Gateway) blame(ctx context.Context, sent time.Time, err error) error {
	deadline, ok := ctx.Deadline()
	if ok && ctx.Err() != nil && deadline.Sub(sent) < g.cfg.CallTimeout/2 {
		return &upstream.QueuedTooLong{Err: err}
	}
	return err
}

// breakerCounts decides whether the breaker counts err as a failure of
// NSIP, and logs each one it counts, so that an open breaker can always be
// traced to the failures that opened it.
func (g *Gateway) breakerCounts(err error) bool {
	var own *upstream.QueuedTooLong
	if errors.As(err, &own) || !upstream.CountsAsFailure(err) {
		return false
	}
	g.log.Warn("nsip failure counted by the circuit breaker",
		slog.String("error", err.Error()),
		slog.Int("consecutive_failures", int(g.breaker.Counts().ConsecutiveFailures)+1),
		slog.Int("opens_at", int(g.cfg.BreakerFailures)))
	return true
}

// share waits for the fetch of key, joining one under way or starting it.
// Leaving early lets the fetch go on for the others, or, if nobody is left
// and it is still queued, drops it. A caller that joined a fetch just as it
// was dropped starts another.
func (g *Gateway) share(ctx context.Context, d *toolDef, key string, args map[string]any) (*upstream.Answer, error) {
	who := callerOf(ctx)
	for try := 0; ; try++ {
		queue, leave := g.waiting.Join(key)
		ch := g.flight.DoChan(key, func() (any, error) { return g.fetch(ctx, queue, who, key, d, args) })
		select {
		case r := <-ch:
			leave()
			if r.Err == nil {
				return r.Val.(*upstream.Answer), nil
			}
			if errors.Is(r.Err, upstream.ErrAbandoned) && ctx.Err() == nil && try < 3 {
				continue
			}
			return nil, r.Err
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
}

// turn waits for the turn of who (callerOf) at the upstream, within the
// fetch's deadline (ctx) and while anyone awaits the fetch (queue).
func (g *Gateway) turn(ctx, queue context.Context, who, key string) (done func(), err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(queue, cancel)
	defer stop()
	done, err = g.fair.Wait(wctx, who)
	switch {
	case err == nil:
		return done, nil
	case queue.Err() != nil && ctx.Err() == nil:
		g.stats.abandoned.Add(1)
		g.flight.Forget(key) // a caller arriving now starts a fetch of its own
		return nil, upstream.ErrAbandoned
	}
	return nil, &rateLimitError{RetryAfter: time.Second, Reason: fmt.Sprintf(
		"all %d NSIP connections busy; clients are served in turn", g.cfg.MaxConcurrentUpstream)}
}
