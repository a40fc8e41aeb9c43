package transport

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// site is the state one listener's handlers share: options, counters, the
// draining flag and the calls in flight.
type site struct {
	kind     string
	opts     Options
	log      *slog.Logger
	started  time.Time
	origins  originPolicy
	draining atomic.Bool
	abandon  chan struct{} // closed when the shutdown grace period ends
	sessions atomic.Int64
	clients  clientCounts
	live     liveSessions   // SSE streams and WebSocket connections
	ledger   *sessionLedger // streamable HTTP sessions; nil on other transports
	calls    *tracker
	tokenID  string // the AuthToken's fingerprint, for caller IDs

	proxyWarned sync.Once  // a same-host proxy not listed was logged
	parses      parseTurns // each client's turn to parse a large request
	workers     *workers   // the goroutines calls run on
	backlog     backlogs   // each client's answers not yet taken
}

func newSite(kind string, o Options) *site {
	st := &site{
		kind:    kind,
		opts:    o,
		log:     o.Logger.With("transport", kind),
		started: time.Now(),
		origins: newOriginPolicy(o),
		calls:   newTracker(),
		clients: clientCounts{n: map[caller.ID]int{}},
		abandon: make(chan struct{}),
		tokenID: tokenFingerprint(o.AuthToken),
		workers: newWorkers(),
	}
	if o.Metrics != nil {
		o.Metrics.WatchSessions(kind, st.sessions.Load)
	}
	return st
}

// refuse answers an HTTP request the transport will not serve, with a
// JSON-RPC error body so that MCP clients can show the reason.
func refuse(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorResponse(id, code, msg))
}

// admit applies the checks every new long-lived session (an SSE stream,
// a WebSocket connection) goes through, making room if need be, and counts
// it. The caller gives the session its stop and busy functions and adds it
// to st.live once it has an ID; its release gives the place back, once,
// whether the session ends or is ended to make room.
func (st *site) admit(w http.ResponseWriter, r *http.Request, kind string) (*liveSession, bool) {
	if !st.admitCall(w) {
		return nil, false
	}
	c := st.clientOf(r)
	st.makeRoom(c)
	if err := st.openSession(c); err != nil {
		st.refuseSession(w, c, err)
		return nil, false
	}
	var once sync.Once
	ls := &liveSession{kind: kind, client: c.id, busy: func() bool { return true }, stop: func() {}}
	ls.release = func() { once.Do(func() { st.closeSession(c.id) }) }
	ls.touch()
	return ls, true
}

// admitCall refuses new work once the server is draining.
func (st *site) admitCall(w http.ResponseWriter) bool {
	if st.draining.Load() {
		w.Header().Set("Retry-After", "1")
		refuse(w, http.StatusServiceUnavailable, nil, codeServerBusy, msgShuttingDown)
		return false
	}
	return true
}

// sessionBusy answers a call past its bound on HTTP transports. scope
// names what the bound applies to: a session or a client address.
func (st *site) sessionBusy(w http.ResponseWriter, id json.RawMessage, scope string, c requester) {
	w.Header().Set("Retry-After", "1")
	if scope == "address" {
		st.log.Warn("refused a call: the client has its most calls running", "client", c.id,
			"limit", st.inFlightBound(scope, c), "setting", settingMaxSessionsPerClient)
	}
	refuse(w, http.StatusTooManyRequests, id, codeServerBusy, st.busyMessage(scope, c))
}

// inFlightBound is how many calls may run at once on scope: a session or
// connection runs MaxInFlightPerSession; a client, for its calls without a
// session, as many as its sessions could, so that raising the per-client
// bound raises this one too.
func (st *site) inFlightBound(scope string, c requester) int {
	if scope == "address" {
		return st.opts.MaxInFlightPerSession * c.bound
	}
	return st.opts.MaxInFlightPerSession
}

func (st *site) busyMessage(scope string, c requester) string {
	msg := fmt.Sprintf("server busy: %d calls are already running on this %s; wait for one to finish", st.inFlightBound(scope, c), scope)
	if scope == "address" {
		msg += fmt.Sprintf(" (the operator can raise %s, which raises this too)", settingMaxSessionsPerClient)
	}
	return msg
}

// handler wraps every route with the Host and Origin checks, CORS and the
// body limit.
func (st *site) handler(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 { // a declared length or a chunked body
			// Every body, whatever the method and however the request
			// is answered, gets the deadline: net/http reads out an
			// unread body before it answers, for as long as it trickles.
			r.Body = st.bodyDeadline(w, r.Body)
			if r.Method != http.MethodPost {
				// Only POST bodies mean anything here: this one is
				// never read, and the connection closes after the answer.
				w.Header().Set("Connection", "close")
				_ = http.NewResponseController(w).SetReadDeadline(time.Now())
			}
		}
		origin, problem := st.origins.check(r)
		if problem != "" {
			st.log.Warn("refused request", "path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr, "reason", problem)
			http.Error(w, "Forbidden: "+problem, http.StatusForbidden)
			return
		}
		if origin != "" {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
					h.Set("Access-Control-Allow-Headers", req)
				}
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		if !st.authorized(r) {
			st.log.Warn("refused request", "path", r.URL.Path, "remote", r.RemoteAddr, "reason", "missing or wrong bearer token")
			w.Header().Set("WWW-Authenticate", `Bearer realm="nsip-mcp"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer <MCP_AUTH_TOKEN>", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost {
			if r.ContentLength > st.opts.MaxBodyBytes {
				refuse(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest,
					fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, st.opts.MaxBodyBytes))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, st.opts.MaxBodyBytes)
		}
		mux.ServeHTTP(w, st.withClient(r))
	})
}

// authorized reports whether r may proceed under Options.AuthToken. The
// probes are open to all, so that an orchestrator needs no secret; they
// tell a caller without the token no more than their status.
func (st *site) authorized(r *http.Request) bool {
	return r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || st.opts.App != nil && r.URL.Path == appPath || st.tokenGiven(r)
}

// tokenGiven reports whether r carries the token, or none is required. The
// comparison hashes both sides first so that it takes the same time whatever
// the length or content of the guess.
func (st *site) tokenGiven(r *http.Request) bool {
	if st.opts.AuthToken == "" {
		return true
	}
	// The scheme name is case-insensitive (RFC 7235 section 2.1).
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	ok = ok && strings.EqualFold(scheme, "Bearer")
	if !ok && r.URL.Path == "/ws" {
		got, ok = r.URL.Query().Get("access_token"), true
	}
	want := sha256.Sum256([]byte(st.opts.AuthToken))
	have := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return ok && subtle.ConstantTimeCompare(want[:], have[:]) == 1
}

// bodyDeadline gives a request body as long to arrive as its headers had, so
// that a client trickling a body cannot hold a handler. The deadline is
// lifted once the body is read: answers may stream for much longer.
func (st *site) bodyDeadline(w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(st.opts.ReadHeaderTimeout)) != nil {
		return body
	}
	return &deadlineBody{ReadCloser: body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

// Read lifts the deadline at the end of a complete body only: after a
// failed read it must stay, or the server would wait for the rest of the
// body before it closes the connection.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

// addHealth registers /healthz, /readyz and, given Options.Metrics,
// /metrics, which handler guards with the token like any route but the
// probes.
func (st *site) addHealth(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", st.healthz)
	mux.HandleFunc("GET /readyz", st.readyz)
	if st.opts.Metrics != nil {
		mux.Handle("GET /metrics", st.opts.Metrics)
	}
}

// monitoring is the paths addHealth registers, for the log line that lists
// a listener's endpoints.
// appPath is where Options.App is served.
const appPath = "/app"

// addApp serves Options.App, when set, and returns the endpoints to log.
func (st *site) addApp(mux *http.ServeMux, endpoints []string) []string {
	if st.opts.App == nil {
		return endpoints
	}
	mux.Handle("GET "+appPath, st.opts.App)
	return append(endpoints, appPath)
}

func (st *site) monitoring() []string {
	if st.opts.Metrics != nil {
		return []string{"/healthz", "/readyz", "/metrics"}
	}
	return []string{"/healthz", "/readyz"}
}

func (st *site) healthz(w http.ResponseWriter, r *http.Request) {
	if !st.tokenGiven(r) {
		// The facts name addresses (Redis's, in its errors) and load:
		// without the token, only whether the server is up.
		status, code := "ok", http.StatusOK
		if st.draining.Load() {
			status, code = "draining", http.StatusServiceUnavailable
		}
		writeJSON(w, code, map[string]string{"status": status})
		return
	}
	body := map[string]any{}
	if st.opts.Health != nil {
		if raw, err := json.Marshal(st.opts.Health()); err != nil {
			st.log.Error("health facts do not encode as JSON", "error", err)
		} else if json.Unmarshal(raw, &body) != nil {
			body = map[string]any{"app": json.RawMessage(raw)}
		}
	}
	status, ok := body["status"].(string)
	if !ok || status == "" {
		status = "ok"
	}
	code := http.StatusOK
	if st.draining.Load() {
		status, code = "draining", http.StatusServiceUnavailable
	}
	body["status"] = status
	body["version"] = st.opts.Version
	body["transport"] = st.kind
	body["uptime_seconds"] = math.Round(time.Since(st.started).Seconds()*1000) / 1000
	body["open_sessions"] = st.sessions.Load()
	body["in_flight"] = st.calls.count()
	// A count that keeps climbing while sessions and calls do not is a leak.
	body["goroutines"] = runtime.NumGoroutine()
	body["memory"] = memoryReport()
	writeJSON(w, code, body)
}

// memoryReport is the Go runtime's own account of the process's memory:
// what it holds from the OS and has not given back (the figure its soft
// limit applies to), the live and not yet collected heap objects, and the
// soft limit (absent when there is none). runtime/metrics reads these
// without stopping the world.
func memoryReport() map[string]uint64 {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/gomemlimit:bytes"},
	}
	metrics.Read(samples)
	v := make([]uint64, len(samples))
	for i, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	out := map[string]uint64{"runtime_bytes": v[0] - min(v[1], v[0]), "heap_object_bytes": v[2]}
	if v[3] != 0 && v[3] != math.MaxInt64 { // MaxInt64 is the runtime's "no limit"
		out["limit_bytes"] = v[3]
	}
	return out
}

// readyTimeout bounds one readiness probe so that /readyz answers promptly.
const readyTimeout = 3 * time.Second

func (st *site) readyz(w http.ResponseWriter, r *http.Request) {
	if st.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not_ready", "reason": "server is shutting down"})
		return
	}
	if st.opts.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := st.opts.Ready(ctx); err != nil {
			// The reason may name an address; without the token the
			// status and its code are all a probe gets.
			reason := ""
			if st.tokenGiven(r) {
				reason = err.Error()
			}
			var d interface{ Degraded() bool }
			if errors.As(err, &d) && d.Degraded() {
				writeJSON(w, http.StatusOK, statusBody("degraded", reason))
				return
			}
			writeJSON(w, http.StatusServiceUnavailable, statusBody("not_ready", reason))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func statusBody(status, reason string) map[string]string {
	if reason == "" {
		return map[string]string{"status": status}
	}
	return map[string]string{"status": status, "reason": reason}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// closeGrace is how long connections get to close once the calls are over.
const closeGrace = 2 * time.Second

// serve runs handler on ln until ctx ends, then drains:
// new calls are refused, calls in flight get ShutdownTimeout to finish, and
// closeSessions ends the long-lived connections.
func (st *site) serve(ctx context.Context, ln net.Listener, handler http.Handler, endpoints []string, closeSessions func(context.Context)) error {
	defer st.workers.stop()
	srv := &http.Server{
		Handler:           st.handler(handler),
		ReadHeaderTimeout: st.opts.ReadHeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(st.log.Handler(), slog.LevelDebug),
		// A response's account lasts until its client has acknowledged
		// it (backlog.go), which is read from its connection.
		ConnContext: st.backlog.connContext,
		ConnState:   st.backlog.connState,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	urls := make([]string, len(endpoints))
	for i, e := range endpoints {
		urls[i] = base + e
	}
	st.log.Info("listening", "addr", ln.Addr().String(), "endpoints", urls)
	if st.origins.tokenless && !isLoopback(ln.Addr().String()) {
		// Said once, so that an operator whose phone is refused knows why.
		st.log.Info("without a token, requests from the network are answered only when their Host is an IP address, localhost or a listed name",
			"allowed_hosts", st.opts.AllowedHosts, "setting", settingAllowedHosts)
	}

	select {
	case err := <-served:
		return fmt.Errorf("transport: serving %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}

	// The listener stays open while calls finish, so that monitoring sees
	// the draining status and new calls get an answer saying so rather
	// than a refused connection.
	st.draining.Store(true)
	st.log.Info("shutting down", "in_flight", st.calls.count(), "open_sessions", st.sessions.Load(), "grace", st.opts.ShutdownTimeout.String())
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), st.opts.ShutdownTimeout)
	defer cancel()
	if !st.calls.wait(grace.Done()) {
		st.log.Warn("shutdown grace period over; answering calls still in flight with an error", "in_flight", st.calls.count())
		close(st.abandon)
		// The abandoned calls' errors are written on their streams
		// before the streams close.
		answered, stop := context.WithTimeout(context.WithoutCancel(ctx), closeGrace)
		st.calls.wait(answered.Done())
		stop()
	}
	final, cancelFinal := context.WithTimeout(context.WithoutCancel(ctx), closeGrace)
	defer cancelFinal()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(final) }()
	closeSessions(final)
	if err := <-shut; err != nil {
		st.log.Warn("closing connections that did not finish in time", "error", err)
		_ = srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("transport: serving %s: %w", ln.Addr(), err)
	}
	st.log.Info("stopped")
	return nil
}

// originPolicy decides which Host and Origin headers a request may carry.
type originPolicy struct {
	any     bool
	allowed map[string]bool
	// tokenless is set when no AuthToken guards the server: then the Host
	// of a request from beyond loopback is judged too, against hosts.
	tokenless bool
	hosts     map[string]bool // AllowedHosts, lower case, without a final dot
}

func newOriginPolicy(opts Options) originPolicy {
	p := originPolicy{allowed: map[string]bool{}, tokenless: opts.AuthToken == "", hosts: map[string]bool{}}
	for _, o := range opts.AllowedOrigins {
		o = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))
		if o == "*" {
			p.any = true
		} else if o != "" {
			p.allowed[o] = true
		}
	}
	for _, h := range opts.AllowedHosts {
		if h = hostName(h); h != "" {
			p.hosts[h] = true
		}
	}
	return p
}

// check returns the origin to grant CORS to ("" when the request has none)
// or, when the request must be refused, the reason.
//
// The Host header is the name the browser resolved, so it is what tells a
// page of the server's own from one whose name was rebound (DNS rebinding:
// the attacker's name first resolves to the attacker, then to the server's
// address, and the browser counts the page and the server as one origin).
// A connection that arrived on a loopback address must name a loopback
// host. One from beyond loopback, on a server without a token, must name
// an IP address, localhost or a listed name: names nobody outside can
// point at the server. With a token a rebound page gets nothing without
// it, and a proxy may use any name. Browser origins are accepted when
// they are listed, when they are the host the request was sent to, or when
// both the connection and the page are local.
func (p originPolicy) check(r *http.Request) (origin, problem string) {
	local := false
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		local = isLoopback(a.String())
	}
	switch {
	case local && !isLoopback(r.Host):
		return "", fmt.Sprintf("host %q is not a loopback name; this server listens on loopback, so address it as localhost or 127.0.0.1", r.Host)
	case !local && p.tokenless && !p.namesServer(r.Host):
		return "", fmt.Sprintf("host %q is not a name this server answers to: without %s it answers a request from the network only when the Host is an IP address, localhost or a name listed in %s, so that no web page can rebind its own name to this server; the operator can add the name to %s (comma-separated host names) or set %s",
			r.Host, settingAuthToken, settingAllowedHosts, settingAllowedHosts, settingAuthToken)
	}
	origin = r.Header.Get("Origin")
	if origin == "" {
		return "", ""
	}
	u, err := url.Parse(origin)
	switch {
	case p.any || p.allowed[strings.ToLower(origin)]:
		return origin, ""
	case err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host):
		return origin, ""
	case err == nil && local && u.Host != "" && isLoopback(u.Host):
		return origin, ""
	}
	return "", fmt.Sprintf("origin %q is not allowed; the server's operator can add it to %s (comma-separated origins)", origin, settingAllowedOrigins)
}

// namesServer reports whether a Host header is one no outside page can
// have rebound: an IP address (the browser resolved nothing), localhost
// (browsers resolve it to loopback themselves) or a name the operator
// listed.
func (p originPolicy) namesServer(hostport string) bool {
	h := hostName(hostport)
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	return h == "localhost" || p.hosts[h]
}

// hostName is the host of a host or host:port, without brackets, in lower
// case and without the final dot of a fully qualified name.
func hostName(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// isLoopback reports whether a host or host:port names the local machine.
func isLoopback(hostport string) bool {
	host := hostName(hostport)
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
