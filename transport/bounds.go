package transport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// clientCounts is how many sessions each client holds.
type clientCounts struct {
	mu sync.Mutex
	n  map[caller.ID]int
}

// Settings named in refusals and their logs: what an operator raises.
const (
	settingMaxSessions          = "MCP_MAX_SESSIONS"
	settingMaxSessionsPerClient = "MCP_MAX_SESSIONS_PER_CLIENT"
	settingAllowedOrigins       = "MCP_ALLOWED_ORIGINS"
	settingAllowedHosts         = "MCP_ALLOWED_HOSTS"
	settingAuthToken            = "MCP_AUTH_TOKEN"
)

var (
	errServerFull = errors.New("server full")
	errClientFull = errors.New("client full")
)

// openSession counts a session for c, refusing it past MaxSessions or past
// c's own bound.
func (st *site) openSession(c requester) error {
	if st.sessions.Add(1) > int64(st.opts.MaxSessions) {
		st.sessions.Add(-1)
		return errServerFull
	}
	cc := &st.clients
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.n[c.id] >= c.bound {
		st.sessions.Add(-1)
		return errClientFull
	}
	cc.n[c.id]++
	return nil
}

// closeSession gives back a place taken by openSession.
func (st *site) closeSession(id caller.ID) {
	st.sessions.Add(-1)
	c := &st.clients
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[id]--; c.n[id] <= 0 {
		delete(c.n, id)
	}
}

// heldBy reports how many sessions client holds.
func (st *site) heldBy(id caller.ID) int {
	st.clients.mu.Lock()
	defer st.clients.mu.Unlock()
	return st.clients.n[id]
}

// refuseSession answers a session openSession would not count, and logs
// the refusal with the setting that would have let it in.
func (st *site) refuseSession(w http.ResponseWriter, c requester, err error) {
	w.Header().Set("Retry-After", "5")
	if !errors.Is(err, errClientFull) {
		st.log.Warn("refused a session: the server is full", "client", c.id, "open_sessions", st.sessions.Load(),
			"limit", st.opts.MaxSessions, "setting", settingMaxSessions)
		refuse(w, http.StatusServiceUnavailable, nil, codeServerBusy,
			fmt.Sprintf("server busy: %d sessions are open, the most it accepts (the operator can raise %s); retry later", st.opts.MaxSessions, settingMaxSessions))
		return
	}
	st.log.Warn("refused a session: the client holds its most", "client", c.id, "held", st.heldBy(c.id),
		"limit", c.bound, "setting", settingMaxSessionsPerClient)
	refuse(w, http.StatusTooManyRequests, nil, codeServerBusy,
		fmt.Sprintf("too many sessions: your address holds %d, the most one client may (the operator can raise %s); end one (DELETE /mcp, or close a stream) or retry later", c.bound, settingMaxSessionsPerClient))
}

// makeRoom ends idle sessions, oldest first, before c opens one: enough to
// bring the server under nine tenths of MaxSessions, and one of c's own
// when c is at its bound. Every kind of session counts: streamable HTTP
// sessions, SSE streams and WebSocket connections.
func (st *site) makeRoom(c requester) {
	if open := st.sessions.Load(); open >= st.nearlyFull() {
		st.evictIdle("", int(open-st.nearlyFull())+1)
	}
	if st.heldBy(c.id) >= c.bound {
		st.evictIdle(c.id, 1)
	}
}

// idleSession is a session that may be ended to make room: idle since
// last. end ends it and frees its place, unless it has been used since it
// was picked; it reports whether it did.
type idleSession struct {
	last time.Time
	kind string
	end  func() bool
}

// evictIdle ends up to n sessions idle for SessionIdleUnderPressure or
// longer, oldest first, of client or of anyone when client is "". A session
// with a stream open or a call running is not idle.
func (st *site) evictIdle(client caller.ID, n int) {
	cutoff := time.Now().Add(-st.opts.SessionIdleUnderPressure)
	cands := st.live.idle(client, cutoff)
	if st.ledger != nil {
		cands = append(cands, st.ledger.idle(client, cutoff)...)
	}
	slices.SortFunc(cands, func(a, b idleSession) int { return a.last.Compare(b.last) })
	ended := map[string]int{}
	count := 0
	for _, c := range cands {
		if count == n {
			break
		}
		if c.end() {
			ended[c.kind]++
			count++
		}
	}
	if count > 0 {
		st.log.Info("ended idle sessions to make room", "count", count, "kinds", ended, "client", client,
			"open_sessions", st.sessions.Load(), "idle_for_at_least", st.opts.SessionIdleUnderPressure.String())
	}
}

// liveSessions are the SSE streams and WebSocket connections, which hold
// their connection for as long as they live, by an ID of their own.
type liveSessions struct {
	mu sync.Mutex
	m  map[string]*liveSession
}

// liveSession is one SSE stream or WebSocket connection.
type liveSession struct {
	kind    string
	client  caller.ID
	last    atomic.Int64 // unix nanos of its opening or its last request
	busy    func() bool  // calls are running
	stop    func()       // ends the stream or connection
	release func()       // gives its place back, once
}

func (ls *liveSession) touch() { ls.last.Store(time.Now().UnixNano()) }

func (l *liveSessions) add(key string, ls *liveSession) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*liveSession{}
	}
	l.m[key] = ls
}

func (l *liveSessions) remove(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, key)
}

func (l *liveSessions) get(key string) *liveSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[key]
}

// idle lists the sessions of client (anyone's for "") idle since cutoff.
func (l *liveSessions) idle(client caller.ID, cutoff time.Time) []idleSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []idleSession
	for key, ls := range l.m {
		last := time.Unix(0, ls.last.Load())
		if (client == "" || ls.client == client) && !last.After(cutoff) && !ls.busy() {
			out = append(out, idleSession{last: last, kind: ls.kind, end: func() bool {
				l.mu.Lock()
				_, still := l.m[key]
				ok := still && !time.Unix(0, ls.last.Load()).After(cutoff) && !ls.busy()
				if ok {
					delete(l.m, key)
				}
				l.mu.Unlock()
				if !ok {
					return false
				}
				ls.release()
				ls.stop()
				return true
			}})
		}
	}
	return out
}

// nearlyFull is the number of open sessions from which idle sessions are
// ended after SessionIdleUnderPressure instead of
// SessionIdleTimeout: nine tenths of MaxSessions.
func (st *site) nearlyFull() int64 {
	return int64(st.opts.MaxSessions - st.opts.MaxSessions/10)
}

// ledgerEntry is one streamable HTTP session the ledger minted.
type ledgerEntry struct {
	last    time.Time // last request
	client  caller.ID
	streams int  // open GET streams
	opening bool // its initialize is still running: mcp-go has yet to register it
}

// requestSessions is the session ID manager mcp-go is given for one request:
// the ledger, knowing the client a minted session belongs to. minted tells
// the request's wrapper that the reservation it made became a session.
type requestSessions struct {
	*sessionLedger
	client caller.ID
	id     string      // the minted session, once minted is set
	minted atomic.Bool // set on mcp-go's goroutine, read on the wrapper's
}

type requestSessionsKey struct{}

// Generate mints a session for the request's client. Its place was reserved
// by the wrapper and is now the session's.
func (rs *requestSessions) Generate() string {
	rs.id = rs.mint(rs.client)
	rs.minted.Store(true)
	return rs.id
}

// ResolveSessionIdManager hands mcp-go the manager of this request; requests
// the wrapper did not see get the bare ledger, which mints nothing counted.
func (l *sessionLedger) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r != nil {
		if rs, ok := r.Context().Value(requestSessionsKey{}).(*requestSessions); ok {
			return rs
		}
	}
	return l
}

// forRequest prepares the manager mcp-go will resolve for r.
func (l *sessionLedger) forRequest(r *http.Request, client caller.ID) (*requestSessions, *http.Request) {
	rs := &requestSessions{sessionLedger: l, client: client}
	return rs, r.WithContext(context.WithValue(r.Context(), requestSessionsKey{}, rs))
}

// reserve takes a place for a session c is about to open, after ending
// sessions that idled past their time: SessionIdleTimeout always,
// SessionIdleUnderPressure for the oldest when the server is nearly full or
// c is at its own bound (makeRoom).
func (l *sessionLedger) reserve(c requester) error {
	l.sweep()
	l.site.makeRoom(c)
	return l.site.openSession(c)
}

// idle lists the streamable sessions of client (anyone's for "") idle
// since cutoff, with no stream open and no call running.
func (l *sessionLedger) idle(client caller.ID, cutoff time.Time) []idleSession {
	busy := l.site.calls.busySessions("mcp/")
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []idleSession
	for id, e := range l.seen {
		if (client == "" || e.client == client) && e.streams == 0 && !e.opening && !e.last.After(cutoff) && !busy[id] {
			out = append(out, idleSession{last: e.last, kind: "streamable", end: func() bool {
				l.mu.Lock()
				e, ok := l.seen[id]
				ok = ok && e.streams == 0 && !e.opening && !e.last.After(cutoff)
				if ok {
					l.forgetLocked(id)
				}
				l.mu.Unlock()
				if ok {
					l.endAll([]string{id})
				}
				return ok
			}})
		}
	}
	return out
}

// forgetLocked drops a session from the ledger and frees its place.
func (l *sessionLedger) forgetLocked(id string) {
	if e, ok := l.seen[id]; ok {
		delete(l.seen, id)
		l.site.closeSession(e.client)
	}
}

// endAll ends sessions the ledger has forgotten in mcp-go too, which
// otherwise keeps their registration until a DELETE that never comes.
func (l *sessionLedger) endAll(ids []string) {
	if l.end == nil {
		return
	}
	for _, id := range ids {
		l.end(id)
	}
}

// openStream counts a GET stream on a session; one at a time, so that a
// session cannot hold any number of connections.
func (l *sessionLedger) openStream(id string) (release func(), status int, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.seen[id]
	switch {
	case !ok:
		return nil, http.StatusNotFound, errUnknownSession.Error()
	case e.streams >= maxStreamsPerSession:
		return nil, http.StatusConflict, "this session already has a stream open (GET /mcp); close it before opening another"
	}
	e.streams++
	e.last = time.Now()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		e.streams--
		e.last = time.Now()
	}, 0, ""
}

// maxStreamsPerSession bounds the GET /mcp streams one session holds open.
const maxStreamsPerSession = 1

// endStreamable ends a streamable session inside mcp-go as a client's DELETE
// would: mcp-go has no other call for it.
func endStreamable(h http.Handler) func(id string) {
	return func(id string) {
		r, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, mcpPath, http.NoBody)
		if err != nil {
			return
		}
		r.Header.Set("Mcp-Session-Id", id)
		h.ServeHTTP(&discardWriter{h: http.Header{}}, r)
	}
}

// discardWriter is the response of a request the server makes to itself.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// busySessions returns the sessions with calls running among the keys
// prefix/<session>/<call>, in one pass over the calls.
func (t *tracker) busySessions(prefix string) map[string]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	busy := map[string]bool{}
	for k := range t.pending {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if id, _, ok := strings.Cut(rest, "/"); ok {
				busy[id] = true
			}
		}
	}
	return busy
}

// sweepEvery ends idle sessions at a tenth of SessionIdleTimeout (between
// 10 ms and a minute) until ctx ends, so that they end on time even when
// no new session comes to trigger a sweep.
func (l *sessionLedger) sweepEvery(ctx context.Context) {
	t := time.NewTicker(min(max(l.site.opts.SessionIdleTimeout/10, 10*time.Millisecond), time.Minute))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.sweep()
		}
	}
}

// opened marks the end of a session's initialize: mcp-go has registered it,
// so ending it from now on also ends that registration.
func (l *sessionLedger) opened(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.seen[id]; ok {
		e.opening = false
		e.last = time.Now()
	}
}
