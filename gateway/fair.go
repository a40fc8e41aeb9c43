package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// fairQueue shares the upstream connections between sessions. Each session
// queues its own fetches, and a connection that frees up goes to the next
// session in turn rather than to the oldest fetch: a client with hundreds of
// calls in flight delays another client's call by at most one fetch per
// session ahead of it, instead of by its whole backlog. Only the fetches
// holding a turn reserve rate-limit tokens, so the backlog cannot book the
// limiter for the next half minute either.
type fairQueue struct {
	mu     sync.Mutex
	free   int                  // turns not held
	queues map[string][]*ticket // waiting fetches by session, oldest first
	ring   []string             // sessions with waiting fetches, in serving order
	next   int                  // index in ring of the session served next
}

type ticket struct {
	ready   chan struct{} // closed when the turn is granted
	granted bool
}

func newFairQueue(turns int) *fairQueue {
	return &fairQueue{free: turns, queues: map[string][]*ticket{}}
}

// wait returns when session's fetch may go ahead, or with ctx's error if
// ctx ends first; the fetch then leaves the queue. done hands the turn on.
func (q *fairQueue) wait(ctx context.Context, session string) (done func(), err error) {
	q.mu.Lock()
	if q.free > 0 && len(q.ring) == 0 {
		q.free--
		q.mu.Unlock()
		return q.pass, nil
	}
	t := &ticket{ready: make(chan struct{})}
	if len(q.queues[session]) == 0 {
		// A session joining the ring is served after those already in it.
		q.ring = append(q.ring[:q.next], append([]string{session}, q.ring[q.next:]...)...)
		q.next++
		if q.next >= len(q.ring) {
			q.next = 0
		}
	}
	q.queues[session] = append(q.queues[session], t)
	q.mu.Unlock()

	select {
	case <-t.ready:
		return q.pass, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if t.granted {
		// Granted as the wait ended: hand the turn straight on.
		q.passLocked()
		return nil, ctx.Err()
	}
	q.remove(session, t)
	return nil, ctx.Err()
}

// pass ends a turn, granting it to the next session's oldest fetch.
func (q *fairQueue) pass() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.passLocked()
}

func (q *fairQueue) passLocked() {
	if len(q.ring) == 0 {
		q.free++
		return
	}
	if q.next >= len(q.ring) {
		q.next = 0
	}
	session := q.ring[q.next]
	waiting := q.queues[session]
	t := waiting[0]
	q.queues[session] = waiting[1:]
	if len(waiting) == 1 {
		delete(q.queues, session)
		q.ring = append(q.ring[:q.next], q.ring[q.next+1:]...)
	} else {
		q.next++
	}
	t.granted = true
	close(t.ready)
}

// remove takes an ungranted ticket out of session's queue.
func (q *fairQueue) remove(session string, t *ticket) {
	waiting := q.queues[session]
	for i, w := range waiting {
		if w == t {
			waiting = append(waiting[:i:i], waiting[i+1:]...)
			break
		}
	}
	if len(waiting) > 0 {
		q.queues[session] = waiting
		return
	}
	delete(q.queues, session)
	for i, s := range q.ring {
		if s == session {
			q.ring = append(q.ring[:i], q.ring[i+1:]...)
			if i < q.next {
				q.next--
			}
			break
		}
	}
}

// queued is how many fetches wait for a turn, for tests and health.
func (q *fairQueue) queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, w := range q.queues {
		n += len(w)
	}
	return n
}

// sessionOf names the caller's session for the fair queue; calls outside
// any session (stdio's one client, Ready) share the name "".
func sessionOf(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// waiters counts, per cache key, the calls waiting on its fetch. When the
// last one gives up, the fetch's wait for a turn ends: a fetch nobody waits
// for leaves the queue instead of spending a request on NSIP. Once sent, a
// fetch runs to the end and fills the cache.
type waiters struct {
	mu sync.Mutex
	m  map[string]*waiting
}

type waiting struct {
	ctx    context.Context // ends when nobody waits any more
	cancel context.CancelFunc
	n      int
}

// join registers one more waiter on key; leave undoes it.
func (w *waiters) join(key string) (ctx context.Context, leave func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]*waiting{}
	}
	e := w.m[key]
	if e == nil {
		c, cancel := context.WithCancel(context.Background())
		e = &waiting{ctx: c, cancel: cancel}
		w.m[key] = e
	}
	e.n++
	return e.ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.n--; e.n == 0 {
			e.cancel()
			if w.m[key] == e {
				delete(w.m, key)
			}
		}
	}
}

// errAbandoned ends a queued fetch whose callers have all gone.
var errAbandoned = errors.New("every caller gave up while the fetch was queued")

// queuedTooLong marks an upstream failure that our own deadline caused: the
// request went out with less than half the call's time left, after waiting
// for a turn, and the deadline then cut it. That says nothing about NSIP,
// so the breaker does not count it.
type queuedTooLong struct{ err error }

func (e *queuedTooLong) Error() string { return e.err.Error() }
func (e *queuedTooLong) Unwrap() error { return e.err }

// blame wraps err as queuedTooLong when the fetch's deadline, not NSIP,
// ended a request sent at sent.
func (g *Gateway) blame(ctx context.Context, sent time.Time, err error) error {
	deadline, ok := ctx.Deadline()
	if ok && ctx.Err() != nil && deadline.Sub(sent) < g.cfg.CallTimeout/2 {
		return &queuedTooLong{err: err}
	}
	return err
}

// breakerCounts decides whether the breaker counts err as a failure of
// NSIP, and logs each one it counts, so that an open breaker can always be
// traced to the failures that opened it.
func (g *Gateway) breakerCounts(err error) bool {
	var own *queuedTooLong
	if errors.As(err, &own) || !countsAsFailure(err) {
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
func (g *Gateway) share(ctx context.Context, d *toolDef, key string, args map[string]any) (*answer, error) {
	session := sessionOf(ctx)
	for try := 0; ; try++ {
		queue, leave := g.waiting.join(key)
		ch := g.flight.DoChan(key, func() (any, error) { return g.fetch(queue, session, key, d, args) })
		select {
		case r := <-ch:
			leave()
			if r.Err == nil {
				return r.Val.(*answer), nil
			}
			if errors.Is(r.Err, errAbandoned) && ctx.Err() == nil && try < 3 {
				continue
			}
			return nil, r.Err
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
}

// turn waits for session's turn at the upstream, within the fetch's
// deadline (ctx) and while anyone awaits the fetch (queue).
func (g *Gateway) turn(ctx, queue context.Context, session, key string) (done func(), err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(queue, cancel)
	defer stop()
	done, err = g.fair.wait(wctx, session)
	switch {
	case err == nil:
		return done, nil
	case queue.Err() != nil && ctx.Err() == nil:
		g.stats.abandoned.Add(1)
		g.flight.Forget(key) // a caller arriving now starts a fetch of its own
		return nil, errAbandoned
	}
	return nil, &rateLimitError{retryAfter: time.Second, reason: fmt.Sprintf(
		"all %d NSIP connections busy; sessions are served in turn", g.cfg.MaxConcurrentUpstream)}
}
