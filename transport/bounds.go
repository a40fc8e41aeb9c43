package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// clientCounts is how many sessions each client address holds.
type clientCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// clientOf is the address a request's sessions and session-less calls are
// counted under: the peer's IP, or its /64 for IPv6, since one host
// commonly holds a whole /64.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

type clientKey struct{}

// ClientAddress is the address a streamable HTTP request's calls are counted
// under (see clientOf), for logs of calls that belong to no session; "" for
// a context that did not come from one.
func ClientAddress(ctx context.Context) string {
	s, _ := ctx.Value(clientKey{}).(string)
	return s
}

var (
	errServerFull = errors.New("server full")
	errClientFull = errors.New("client full")
)

// openSession counts a session for client, refusing it past MaxSessions or
// past MaxSessionsPerClient for that address.
func (st *site) openSession(client string) error {
	if st.sessions.Add(1) > int64(st.opts.MaxSessions) {
		st.sessions.Add(-1)
		return errServerFull
	}
	c := &st.clients
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client] >= st.opts.MaxSessionsPerClient {
		st.sessions.Add(-1)
		return errClientFull
	}
	c.n[client]++
	return nil
}

// closeSession gives back a place taken by openSession.
func (st *site) closeSession(client string) {
	st.sessions.Add(-1)
	c := &st.clients
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[client]--; c.n[client] <= 0 {
		delete(c.n, client)
	}
}

// heldBy reports how many sessions client holds.
func (st *site) heldBy(client string) int {
	st.clients.mu.Lock()
	defer st.clients.mu.Unlock()
	return st.clients.n[client]
}

// refuseSession answers a session openSession would not count.
func (st *site) refuseSession(w http.ResponseWriter, err error) {
	if !errors.Is(err, errClientFull) {
		st.refuseFull(w)
		return
	}
	w.Header().Set("Retry-After", "5")
	refuse(w, http.StatusTooManyRequests, nil, codeServerBusy,
		fmt.Sprintf("too many sessions: your address holds %d, the most one client may; end one (DELETE /mcp, or close a stream) or retry later", st.opts.MaxSessionsPerClient))
}

// nearlyFull is the number of open sessions from which idle streamable
// sessions are ended after SessionIdleUnderPressure instead of
// SessionIdleTimeout: nine tenths of MaxSessions.
func (st *site) nearlyFull() int64 {
	return int64(st.opts.MaxSessions - st.opts.MaxSessions/10)
}

// ledgerEntry is one streamable HTTP session the ledger minted.
type ledgerEntry struct {
	last    time.Time // last request
	client  string
	streams int  // open GET streams
	opening bool // its initialize is still running: mcp-go has yet to register it
}

// requestSessions is the session ID manager mcp-go is given for one request:
// the ledger, knowing the client a minted session belongs to. minted tells
// the request's wrapper that the reservation it made became a session.
type requestSessions struct {
	*sessionLedger
	client string
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
func (l *sessionLedger) forRequest(r *http.Request, client string) (*requestSessions, *http.Request) {
	rs := &requestSessions{sessionLedger: l, client: client}
	return rs, r.WithContext(context.WithValue(r.Context(), requestSessionsKey{}, rs))
}

// reserve takes a place for a session client is about to open, after
// ending sessions that idled past their time: SessionIdleTimeout always,
// SessionIdleUnderPressure for the oldest when the server is nearly full or
// the client is at its own bound.
func (l *sessionLedger) reserve(client string) error {
	l.sweep()
	st := l.site
	if st.sessions.Load() >= st.nearlyFull() {
		l.evictIdle("", int(st.sessions.Load()-st.nearlyFull())+1)
	}
	if st.heldBy(client) >= st.opts.MaxSessionsPerClient {
		l.evictIdle(client, 1)
	}
	return st.openSession(client)
}

// evictIdle ends up to n sessions idle for SessionIdleUnderPressure or
// longer, oldest first, of client or of anyone when client is "". A session
// with a stream open or a call running is not idle.
func (l *sessionLedger) evictIdle(client string, n int) {
	cutoff := time.Now().Add(-l.site.opts.SessionIdleUnderPressure)
	type cand struct {
		id   string
		last time.Time
	}
	busy := l.site.calls.busySessions("mcp/")
	l.mu.Lock()
	var cands []cand
	for id, e := range l.seen {
		if (client == "" || e.client == client) && e.streams == 0 && !e.opening && !e.last.After(cutoff) && !busy[id] {
			cands = append(cands, cand{id, e.last})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.last.Compare(b.last) })
	var ended []string
	for _, c := range cands[:min(n, len(cands))] {
		ended = append(ended, c.id)
		l.forgetLocked(c.id)
	}
	l.mu.Unlock()
	if len(ended) > 0 {
		l.site.log.Info("ended idle sessions to make room", "count", len(ended), "client", client, "open_sessions", l.site.sessions.Load())
	}
	l.endAll(ended)
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
