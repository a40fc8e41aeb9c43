package upstream

import (
	"context"
	"errors"
	"sync"
)

// fair shares the upstream connections between clients (caller.Client:
// a client's sessions, ended or not, share its place). Each client
// queues its own fetches, and a connection that frees up goes to the next
// client in turn rather than to the oldest fetch: a client with hundreds of
// calls in flight delays another client's call by at most one fetch per
// client ahead of it, instead of by its whole backlog. Only the fetches
// holding a turn reserve rate-limit tokens, so the backlog cannot book the
// limiter for the next half minute either.
type fair struct {
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

func newFair(turns int) *fair {
	return &fair{free: turns, queues: map[string][]*ticket{}}
}

// Wait returns when session's fetch may go ahead, or with ctx's error if
// ctx ends first; the fetch then leaves the queue. done hands the turn on.
func (q *fair) Wait(ctx context.Context, session string) (done func(), err error) {
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
func (q *fair) pass() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.passLocked()
}

func (q *fair) passLocked() {
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
func (q *fair) remove(session string, t *ticket) {
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

// Queued is how many fetches wait for a turn, for tests and health.
func (q *fair) Queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, w := range q.queues {
		n += len(w)
	}
	return n
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

// Join registers one more waiter on key; leave undoes it.
func (w *waiters) Join(key string) (ctx context.Context, leave func()) {
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
type queuedTooLong struct{ Err error }

func (e *queuedTooLong) Error() string { return e.Err.Error() }

func (e *queuedTooLong) Unwrap() error { return e.Err }

// Count is how many calls wait on key's fetch.
func (w *waiters) Count(key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.m[key]; e != nil {
		return e.n
	}
	return 0
}
