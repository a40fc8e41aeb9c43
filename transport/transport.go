// Package transport puts one *server.MCPServer on the wire: stdio for
// desktop assistants, one HTTP listener with both the legacy SSE transport
// and streamable HTTP, or WebSocket for web apps. The network transports also
// answer /healthz and /readyz, refuse DNS-rebinding and foreign browser
// origins, and shut down gracefully: when the context ends they stop taking
// calls, let the ones in flight finish within a bound, then close sessions.
// Given Options.Metrics, they serve /metrics too.
package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Transport names accepted by Serve.
const (
	KindStdio     = "stdio"
	KindHTTPSSE   = "http-sse"
	KindWebSocket = "websocket"
)

// Kinds lists the transport names Serve accepts, default first.
func Kinds() []string { return []string{KindStdio, KindHTTPSSE, KindWebSocket} }

// Defaults applied by the Serve functions to zero Options fields.
const (
	DefaultHost                  = "127.0.0.1"
	DefaultMaxBodyBytes          = 1 << 20
	DefaultWSReadLimit           = 1 << 20
	DefaultReadHeaderTimeout     = 10 * time.Second
	DefaultMaxSessions           = 1000
	DefaultMaxInFlightPerSession = 32
	DefaultPingInterval          = 20 * time.Second
	DefaultPongTimeout           = 45 * time.Second
	DefaultWriteTimeout          = 10 * time.Second
	DefaultShutdownTimeout       = 10 * time.Second
	DefaultSessionIdleTimeout    = time.Hour
	DefaultClientRequestTimeout  = 2 * time.Minute
	DefaultSessionIdlePressure   = time.Minute
	// One client may hold this many sessions; with an AuthToken, whose
	// clients are known, DefaultMaxSessionsPerAuthClient. A loopback peer
	// may hold MaxSessions unless MaxSessionsPerClient is set.
	DefaultMaxSessionsPerClient     = 16
	DefaultMaxSessionsPerAuthClient = 128
)

// Options configures a transport. The zero value serves on 127.0.0.1 with a
// kernel-chosen port and the limits above.
type Options struct {
	// Host and Port are the listen address of the network transports. Port 0
	// asks the kernel for a free port; the chosen address is logged.
	Host string
	Port int
	// Listener, when set, is served instead of listening on Host and Port.
	// Serve closes it.
	Listener net.Listener
	// HealthAddr, for stdio only, is a host:port on which /healthz and
	// /readyz are served. Empty means no listener.
	HealthAddr string

	// AllowedOrigins lists browser origins (scheme://host[:port]) accepted
	// besides same-host pages and, on a loopback listener, loopback pages.
	// "*" accepts every origin.
	AllowedOrigins []string
	// AllowedHosts lists the host names (nsip.farm.lan), besides IP
	// addresses and localhost, that a server without AuthToken answers to
	// in the Host header of a request from beyond loopback. Any other name
	// may be a web page's own, rebound to this server's address, and is
	// refused. With AuthToken the token decides instead; on loopback the
	// Host must be a loopback name either way.
	AllowedHosts []string

	// AuthToken, when set, is the bearer token every network request but
	// /healthz must present (Authorization: Bearer <token>). Browsers cannot
	// set headers on a WebSocket, so /ws also accepts it as the access_token
	// query parameter. The NSIP data is public; the token is for operators
	// who expose the server beyond loopback.
	AuthToken string

	// Health returns application facts for /healthz, typically a struct with
	// JSON tags. They are merged with the transport's own keys: status,
	// version, transport, uptime_seconds, open_sessions, in_flight and
	// goroutines (the whole process's). A "status" string from Health is
	// kept unless the server is draining.
	Health func() any
	// Ready decides /readyz: nil means ready (200), an error is the reason
	// for a 503. An error with a Degraded() bool method that reports true
	// is a 200 with status "degraded" and the reason: the server works, in
	// a reduced way. It should be cheap; it gets a few seconds at most.
	Ready func(ctx context.Context) error
	// Metrics, when set, is served at GET /metrics on the network
	// listeners and on HealthAddr. Unlike the probes it needs AuthToken when
	// one is set: it tells load, usage and errors, as /healthz's details do,
	// and a Prometheus scraper can send a bearer token. Each listener reports
	// its open sessions to it.
	Metrics Metrics
	// Stateless runs streamable HTTP without sessions, so that any replica
	// behind a load balancer can answer any request (mcp-go's stateless
	// mode). Server-to-client messages outside a request's own stream, such
	// as GET /mcp, are then unavailable.
	Stateless bool
	// DropNotifications keeps notifications off the network transports'
	// wire: one whose method is a key is not sent when that key's func
	// reports true for its params. mcp-go sends some notifications to every
	// session, a task's status among them; this keeps them from the sessions
	// they are not about. Only messages naming a key are decoded. stdio has
	// one client and is not filtered.
	DropNotifications map[string]func(params json.RawMessage) bool
	// App, when set, is served at GET /app on the network transports
	// (not on stdio's HealthAddr): a page for people, which reaches the
	// server through the transport's own endpoint from the same origin. It
	// goes through the same Host and Origin checks as every route; unlike
	// the MCP endpoints it needs no AuthToken, since a browser sends none
	// when it opens a page, so it must hold no secret.
	App http.Handler
	// Version is reported by /healthz.
	Version string
	// Logger receives the transport's logs; nil means slog.Default().
	Logger *slog.Logger

	MaxBodyBytes          int64         // largest HTTP request body and stdio line
	WSReadLimit           int64         // largest WebSocket message; larger ones close the connection with 1009
	ReadHeaderTimeout     time.Duration // time a client has to send request headers, and again its body
	MaxSessions           int           // open SSE streams, streamable HTTP sessions and WebSocket connections
	MaxInFlightPerSession int           // concurrent calls per session; more are refused as busy
	PingInterval          time.Duration // WebSocket ping and SSE keep-alive period
	PongTimeout           time.Duration // a WebSocket peer silent this long is dropped
	WriteTimeout          time.Duration // limit for one WebSocket frame write
	ShutdownTimeout       time.Duration // how long in-flight calls may run after shutdown begins
	SessionIdleTimeout    time.Duration // a streamable HTTP session without requests this long is forgotten
	ClientRequestTimeout  time.Duration // how long a request to a WebSocket client (elicitation, sampling, roots, ping) waits for its answer
	// MaxSessionsPerClient bounds the sessions of one client (see
	// TrustedProxies for how the client is named), so that one client
	// cannot take every place. Left zero, a loopback peer (a backend on the
	// same host) may hold MaxSessions.
	MaxSessionsPerClient int
	// TrustedProxies are the peers whose X-Forwarded-For is believed: a
	// request from one of them belongs to the rightmost address in the
	// header that is not itself a trusted proxy. From anyone else the
	// header is ignored. A client is that address (an IPv4 address or an
	// IPv6 /64), and with AuthToken the token's fingerprint at it.
	TrustedProxies []netip.Prefix
	// perClientSet records that MaxSessionsPerClient was given rather
	// than defaulted.
	perClientSet bool
	// onParseWait, for tests, is told each time a large request of client
	// waits for that client's turn to be parsed.
	onParseWait func(client caller.ID)
	// SessionIdleUnderPressure is how long a session of any kind (streamable
	// HTTP session, SSE stream, WebSocket connection) may go without a
	// request once nine tenths of MaxSessions are open, or its client is at
	// its bound: then the oldest idle ones are ended to make room. One with
	// a call running (or, streamable, a GET stream open) is not idle.
	SessionIdleUnderPressure time.Duration
}

// Metrics is a Prometheus exposition of the server's metrics that the
// transport serves and reports its sessions to (gateway/metrics.Metrics).
type Metrics interface {
	http.Handler
	// WatchSessions has each scrape read open() as the open sessions of
	// the transport named.
	WatchSessions(transport string, open func() int64)
}

func (o Options) withDefaults() Options {
	if o.Host == "" {
		o.Host = DefaultHost
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	orDefault(&o.MaxBodyBytes, DefaultMaxBodyBytes)
	orDefault(&o.WSReadLimit, DefaultWSReadLimit)
	orDefault(&o.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	orDefault(&o.MaxSessions, DefaultMaxSessions)
	orDefault(&o.MaxInFlightPerSession, DefaultMaxInFlightPerSession)
	orDefault(&o.PingInterval, DefaultPingInterval)
	orDefault(&o.PongTimeout, DefaultPongTimeout)
	orDefault(&o.WriteTimeout, DefaultWriteTimeout)
	orDefault(&o.ShutdownTimeout, DefaultShutdownTimeout)
	orDefault(&o.SessionIdleTimeout, DefaultSessionIdleTimeout)
	orDefault(&o.ClientRequestTimeout, DefaultClientRequestTimeout)
	orDefault(&o.SessionIdleUnderPressure, DefaultSessionIdlePressure)
	o.perClientSet = o.MaxSessionsPerClient > 0
	if o.AuthToken != "" {
		orDefault(&o.MaxSessionsPerClient, DefaultMaxSessionsPerAuthClient)
	}
	orDefault(&o.MaxSessionsPerClient, DefaultMaxSessionsPerClient)
	if o.PongTimeout <= o.PingInterval {
		// A peer must get at least one ping before it is declared dead.
		o.PongTimeout = 2 * o.PingInterval
	}
	o.AllowedOrigins = slices.Clone(o.AllowedOrigins)
	o.AllowedHosts = slices.Clone(o.AllowedHosts)
	o.DropNotifications = maps.Clone(o.DropNotifications)
	o.TrustedProxies = slices.Clone(o.TrustedProxies)
	return o
}

// orDefault replaces a zero or negative limit with its default.
func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Serve runs the transport named by kind until ctx ends, then shuts down
// gracefully and returns nil. stdio uses the process's stdin and stdout and
// also returns when stdin closes. An error means the transport could not
// start or failed while serving.
func Serve(ctx context.Context, kind string, s *server.MCPServer, opts Options) error {
	switch kind {
	case KindStdio:
		return ServeStdio(ctx, s, os.Stdin, os.Stdout, opts)
	case KindHTTPSSE:
		return ServeHTTPSSE(ctx, s, opts)
	case KindWebSocket:
		return ServeWebSocket(ctx, s, opts)
	}
	return fmt.Errorf("transport: unknown transport %q: use %s, %s or %s", kind, KindStdio, KindHTTPSSE, KindWebSocket)
}

// listen returns the configured listener or opens one on Host:Port.
func (o Options) listen() (net.Listener, error) {
	if o.Listener != nil {
		return o.Listener, nil
	}
	addr := net.JoinHostPort(o.Host, fmt.Sprint(o.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: listening on %s: %w", addr, err)
	}
	return ln, nil
}

// closeQuietly closes c when the error it returns is of no use to anyone.
func closeQuietly(c io.Closer) { _ = c.Close() }
