package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Paths of the http-sse transport.
const (
	ssePath     = "/sse"     // legacy transport: the event stream
	messagePath = "/message" // legacy transport: where clients POST
	mcpPath     = "/mcp"     // streamable HTTP
)

// ServeHTTPSSE serves, on one listener, the legacy HTTP+SSE transport
// (GET /sse, POST /message) for older clients and streamable HTTP (/mcp) for
// current ones, plus /healthz and /readyz. It returns after a graceful
// shutdown once ctx ends.
func ServeHTTPSSE(ctx context.Context, s *server.MCPServer, opts Options) error {
	o := opts.withDefaults()
	ln, err := o.listen()
	if err != nil {
		return err
	}
	st := newSite(KindHTTPSSE, o)
	// The site's own Host and Origin check (originPolicy) runs before every
	// route, /ws and /healthz included, and says why it refused; mcp-go's
	// copy of the loopback half of it would only run it twice.
	legacy := server.NewSSEServer(s,
		server.WithSSEDisableLocalhostProtection(true),
		server.WithSSEEndpoint(ssePath),
		server.WithMessageEndpoint(messagePath),
		server.WithKeepAlive(true),
		server.WithKeepAliveInterval(o.PingInterval),
		server.WithSessionIDGenerator(newStreamSessionID),
	)
	ledger := newSessionLedger(st)
	st.ledger = ledger
	sessions := server.WithSessionIdManagerResolver(ledger)
	if o.Stateless {
		sessions = server.WithStateLess(true)
	}
	streamable := server.NewStreamableHTTPServer(s,
		server.WithDisableLocalhostProtection(true),
		server.WithEndpointPath(mcpPath),
		server.WithStreamableHTTPLogger(st.log),
		server.WithHeartbeatInterval(o.PingInterval),
		sessions,
	)
	ledger.end = endStreamable(streamable)
	sweeping, stopSweeping := context.WithCancel(ctx)
	var sweeper sync.WaitGroup
	sweeper.Go(func() { ledger.sweepEvery(sweeping) })
	defer sweeper.Wait()
	defer stopSweeping()
	mux := http.NewServeMux()
	st.addHealth(mux)
	mux.Handle("GET "+ssePath, st.sseStream(legacy.SSEHandler()))
	mux.Handle("POST "+messagePath, st.ssePost(legacy.MessageHandler()))
	mux.Handle(mcpPath, st.streamable(streamable, ledger))
	endpoints := st.addApp(mux, append([]string{ssePath, mcpPath}, st.monitoring()...))
	return st.serve(ctx, ln, mux, endpoints, func(ctx context.Context) {
		legacy.CloseSessions()
		streamable.CloseSessions(ctx)
	})
}

// streamKey carries the *streamWatcher of a GET /sse request to the session
// ID generator, which is the one place mcp-go tells us a stream's session.
type streamKey struct{}

func newStreamSessionID(ctx context.Context, _ *http.Request) (string, error) {
	id := rand.Text()
	if sw, ok := ctx.Value(streamKey{}).(*streamWatcher); ok {
		sw.mu.Lock()
		sw.id = id
		sw.mu.Unlock()
		if sw.named != nil {
			sw.named(id)
		}
	}
	return id, nil
}

// sseStream wraps GET /sse: it counts the stream as a session, which may be
// ended to make room while it idles, and watches the answers written to
// it, so that shutdown knows when calls are answered.
func (st *site) sseStream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ls, ok := st.admit(w, r, "sse")
		if !ok {
			return
		}
		defer ls.release()
		// mcp-go's handler returns when the request's context ends:
		// cancelling it is how an idle stream is ended.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		ls.stop = cancel
		sw := &streamWatcher{ResponseWriter: st.filterEvents(w), calls: st.calls, backlog: &st.backlog}
		ls.busy = func() bool {
			sw.mu.Lock()
			id := sw.id
			sw.mu.Unlock()
			return st.calls.inFlightWith(id+"/") > 0
		}
		var key string
		sw.named = func(id string) {
			key = "sse/" + id
			st.live.add(key, ls)
		}
		served, watched := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(watched)
			select {
			case <-st.abandon:
				sw.abandon()
			case <-served:
			}
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(ctx, streamKey{}, sw)))
		close(served)
		<-watched // nothing may write to w once this returns
		if key != "" {
			st.live.remove(key)
		}
		if sw.id != "" {
			st.calls.forget(sw.id + "/")
			st.backlog.forget(sw.id + "/")
			st.log.Debug("sse stream closed", "session", sw.id)
		}
	})
}

// ssePost wraps POST /message: each request it lets through is in flight
// until its answer appears on the session's stream.
func (st *site) ssePost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, ok := st.readBody(w, r)
		if !ok {
			return
		}
		release, ok := st.parseTurn(w, r, st.clientOf(r).id, len(raw))
		if !ok {
			return
		}
		// mcp-go decodes the message before it answers 202; the call then
		// runs on its own.
		defer release()
		m := classify(raw)
		if st.refuseMalformed(w, m) {
			return
		}
		if m.kind != msgRequest {
			next.ServeHTTP(w, r)
			return
		}
		if st.draining.Load() {
			refuse(w, http.StatusServiceUnavailable, m.id, codeServerBusy, msgShuttingDown)
			return
		}
		// Answers go out on the session's stream; a client that does not
		// read it gets no more calls run than the bound.
		sid := r.URL.Query().Get("sessionId")
		if ls := st.live.get("sse/" + sid); ls != nil {
			ls.touch()
		}
		session := sid + "/"
		if st.calls.inFlightWith(session) >= st.opts.MaxInFlightPerSession {
			st.sessionBusy(w, m.id, "session", st.clientOf(r))
			return
		}
		key := session + m.key
		st.calls.begin(key)
		r, unheld := st.backlog.await(r, st.clientOf(r).id, key)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status != http.StatusAccepted {
			st.calls.end(key) // refused, so no answer will follow on the stream
			unheld()
		}
	})
}

// readBody reads a POST body, answering the client itself when it cannot.
func (st *site) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	raw, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		refuse(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest,
			fmt.Sprintf("request body too large: it exceeds the limit of %d bytes", st.opts.MaxBodyBytes))
		return nil, false
	case err != nil:
		refuse(w, http.StatusBadRequest, nil, codeParseError, "could not read the request body: "+err.Error())
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	return raw, true
}

// parseTurn waits for client's turn to have a body of size bytes parsed
// (takeParse), answering the client itself when it is refused one.
func (st *site) parseTurn(w http.ResponseWriter, r *http.Request, client caller.ID, size int) (func(), bool) {
	release, err := st.takeParse(r.Context(), client, size)
	switch {
	case errors.Is(err, errParseBusy):
		w.Header().Set("Retry-After", "1")
		refuse(w, http.StatusTooManyRequests, nil, codeServerBusy, err.Error())
		return nil, false
	case err != nil:
		return nil, false // the client has gone
	}
	return release, true
}

// refuseMalformed answers a message that is not JSON-RPC 2.0 with the
// error WebSocket and stdio send for it, in the POST response: mcp-go's HTTP
// handlers would read some of these otherwise, or not answer at all.
func (st *site) refuseMalformed(w http.ResponseWriter, m message) bool {
	code, text, refused := m.refusal()
	switch {
	case refused && code == 0:
		w.WriteHeader(http.StatusAccepted) // a notification is dropped, unanswered
	case refused:
		refuse(w, http.StatusBadRequest, m.id, code, text)
	}
	return refused
}

// streamable wraps /mcp. A POST is in flight until its handler returns and
// counts against its session's bound, or, without a session the ledger
// knows (protocol versions without sessions, made-up IDs), against its
// client address's; initialize opens a session, which counts against
// MaxSessions and MaxSessionsPerClient like a stream or a WebSocket does. A
// session holds at most one GET stream.
func (st *site) streamable(next http.Handler, ledger *sessionLedger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st.opts.Stateless {
			// No session IDs are issued, so any the client sends is its own
			// invention; mcp-go would name the call's session after it, and
			// a client could become a new caller on every call.
			r.Header.Del("Mcp-Session-Id")
		}
		// mcp-go writes this session's notifications to a GET stream or to
		// the response of a call running when they come.
		w = st.filterEvents(w)
		session := r.Header.Get("Mcp-Session-Id")
		c := st.clientOf(r)
		switch r.Method {
		case http.MethodPost:
			raw, ok := st.readBody(w, r)
			if !ok {
				return
			}
			release, ok := st.parseTurn(w, r, c.id, len(raw))
			if !ok {
				return
			}
			defer release()
			m := classify(raw)
			if st.refuseMalformed(w, m) {
				return
			}
			if st.draining.Load() {
				refuse(w, http.StatusServiceUnavailable, m.id, codeServerBusy, msgShuttingDown)
				return
			}
			// A stateless server opens no session, so takes no place.
			if m.kind == msgRequest && m.method == "initialize" && !st.opts.Stateless {
				if err := ledger.reserve(c); err != nil {
					st.refuseSession(w, c, err)
					return
				}
				var rs *requestSessions
				rs, r = ledger.forRequest(r, c.id)
				defer func() {
					if rs.minted.Load() {
						ledger.opened(rs.id)
					} else {
						st.closeSession(c.id)
					}
				}()
			}
			prefix := "mcp/" + session + "/"
			scope := "session"
			if !ledger.knows(session) {
				prefix, scope = "addr/"+string(c.id)+"/", "address"
			}
			if st.calls.inFlightWith(prefix) >= st.inFlightBound(scope, c) {
				st.sessionBusy(w, m.id, scope, c)
				return
			}
			// The calls of one session (or address) share its prefix as
			// their key: the tracker counts them under it, and nothing
			// matches a streamable answer to its call by key.
			st.calls.begin(prefix)
			defer st.calls.end(prefix)
			if m.kind == msgRequest {
				w, r, done := st.backlog.track(w, r, c.id)
				defer done()
				st.answerOrAbandon(next, w, r, m.id)
				return
			}
		case http.MethodGet:
			if !st.admitCall(w) {
				return
			}
			if session == "" {
				refuse(w, http.StatusBadRequest, nil, codeInvalidRequest,
					"GET /mcp needs the Mcp-Session-Id header: initialize a session with a POST first")
				return
			}
			release, status, msg := ledger.openStream(session)
			if release == nil {
				refuse(w, status, nil, codeInvalidRequest, msg)
				return
			}
			defer release()
		}
		next.ServeHTTP(w, r)
	})
}

// knows reports whether id is a session the ledger minted and still holds.
func (l *sessionLedger) knows(id string) bool {
	if id == "" {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.seen[id]
	return ok
}

// sessionLedger is the streamable transport's session ID manager: it knows
// every session it minted and for which client, counts them as open
// sessions, forgets them on DELETE or when they idle out (ending them in
// mcp-go too), and refuses IDs it does not know, which tells a client to
// initialize again.
type sessionLedger struct {
	site *site
	end  func(id string) // ends a forgotten session in mcp-go
	mu   sync.Mutex
	seen map[string]*ledgerEntry
}

var (
	_ server.SessionIdManager         = (*sessionLedger)(nil)
	_ server.SessionIdManagerResolver = (*sessionLedger)(nil)
)

var errUnknownSession = errors.New("unknown or expired session; initialize a new one")

func newSessionLedger(st *site) *sessionLedger {
	return &sessionLedger{site: st, seen: map[string]*ledgerEntry{}}
}

func (l *sessionLedger) sweep() {
	cutoff := time.Now().Add(-l.site.opts.SessionIdleTimeout)
	var ended []string
	l.mu.Lock()
	for id, e := range l.seen {
		if e.streams == 0 && !e.opening && e.last.Before(cutoff) {
			ended = append(ended, id)
			l.forgetLocked(id)
		}
	}
	l.mu.Unlock()
	l.endAll(ended)
}

// Generate is only reached by requests the transport's wrapper did not
// prepare; it mints an ID the ledger does not know, so it is never valid.
func (l *sessionLedger) Generate() string { return "mcp-" + rand.Text() }

// mint records a new session of client, whose place is already counted.
func (l *sessionLedger) mint(client caller.ID) string {
	id := "mcp-" + rand.Text()
	l.mu.Lock()
	l.seen[id] = &ledgerEntry{last: time.Now(), client: client, opening: true}
	l.mu.Unlock()
	return id
}

// Validate accepts IDs this server minted and has not forgotten.
func (l *sessionLedger) Validate(id string) (isTerminated bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.seen[id]
	if !ok {
		return false, errUnknownSession
	}
	e.last = time.Now()
	return false, nil
}

// Terminate forgets a session; clients may end their own.
func (l *sessionLedger) Terminate(id string) (isNotAllowed bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetLocked(id)
	return false, nil
}

// streamWatcher passes an SSE stream through and ends the tracked call of
// every JSON-RPC answer it sees in a data line. mcp-go writes the stream from
// the handler goroutine; the lock is for abandon, which writes from another.
type streamWatcher struct {
	http.ResponseWriter
	calls   *tracker
	backlog *backlogs       // the answers' accounts, which end as they are written
	named   func(id string) // told the session's ID once mcp-go has made it
	mu      sync.Mutex
	id      string
	buf     []byte
}

func (sw *streamWatcher) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	n, err := sw.ResponseWriter.Write(p)
	rest := answersIn(append(sw.buf, p[:n]...), "data:", func(key string) {
		sw.calls.end(sw.id + "/" + key)
		if sw.backlog != nil {
			sw.backlog.answered(sw.id + "/" + key)
		}
	})
	sw.buf = append(sw.buf[:0], rest...)
	return n, err
}

// Flush is required: mcp-go refuses to stream through a writer without it.
func (sw *streamWatcher) Flush() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if f, ok := sw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// abandon answers the calls of this stream still running when the shutdown
// grace period ends with a JSON-RPC error event each, before the stream
// closes; writing them ends their tracked calls.
func (sw *streamWatcher) abandon() {
	sw.mu.Lock()
	prefix := sw.id + "/"
	sw.mu.Unlock()
	if prefix == "/" {
		return
	}
	for _, key := range sw.calls.pendingWith(prefix) {
		if id, ok := keyID(strings.TrimPrefix(key, prefix)); ok {
			_, _ = sw.Write([]byte("event: message\ndata: " + string(errorResponse(id, codeServerBusy, msgAbandoned)) + "\n\n"))
		}
	}
	sw.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (sw *streamWatcher) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// statusWriter remembers the status code a handler sent.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}
