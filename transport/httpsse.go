package transport

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/server"
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
	legacy := server.NewSSEServer(s,
		server.WithSSEEndpoint(ssePath),
		server.WithMessageEndpoint(messagePath),
		server.WithKeepAlive(true),
		server.WithKeepAliveInterval(o.PingInterval),
		server.WithSessionIDGenerator(newStreamSessionID),
	)
	streamable := server.NewStreamableHTTPServer(s,
		server.WithEndpointPath(mcpPath),
		server.WithStreamableHTTPLogger(st.log),
		server.WithHeartbeatInterval(o.PingInterval),
	)
	mux := http.NewServeMux()
	st.addHealth(mux)
	mux.Handle("GET "+ssePath, st.sseStream(legacy.SSEHandler()))
	mux.Handle("POST "+messagePath, st.ssePost(legacy.MessageHandler()))
	mux.Handle(mcpPath, st.streamable(streamable))
	return st.serve(ctx, ln, mux, []string{ssePath, mcpPath, "/healthz", "/readyz"}, func(ctx context.Context) {
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
		sw.id = id
	}
	return id, nil
}

// sseStream wraps GET /sse: it counts the stream as a session and watches
// the answers written to it, so that shutdown knows when calls are answered.
func (st *site) sseStream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !st.admit(w, true) {
			return
		}
		defer st.closeSession()
		sw := &streamWatcher{ResponseWriter: w, calls: st.calls}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), streamKey{}, sw)))
		if sw.id != "" {
			st.calls.forget(sw.id + "/")
			st.log.Debug("sse stream closed", "session", sw.id)
		}
	})
}

// ssePost wraps POST /message: each request it lets through is in flight
// until its answer appears on the session's stream.
func (st *site) ssePost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			refuse(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest,
				fmt.Sprintf("request body exceeds the limit of %d bytes", st.opts.MaxBodyBytes))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		m := classify(raw)
		if m.kind != msgRequest {
			next.ServeHTTP(w, r)
			return
		}
		if st.draining.Load() {
			refuse(w, http.StatusServiceUnavailable, m.id, codeServerBusy, msgShuttingDown)
			return
		}
		key := r.URL.Query().Get("sessionId") + "/" + m.key
		st.calls.begin(key)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status != http.StatusAccepted {
			st.calls.end(key) // refused, so no answer will follow on the stream
		}
	})
}

// streamable wraps /mcp: a POST is in flight until its handler returns, a GET
// is a listening stream and counts as a session.
func (st *site) streamable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			if st.draining.Load() {
				refuse(w, http.StatusServiceUnavailable, nil, codeServerBusy, msgShuttingDown)
				return
			}
			key := st.calls.anon()
			st.calls.begin(key)
			defer st.calls.end(key)
		case http.MethodGet:
			if !st.admit(w, true) {
				return
			}
			defer st.closeSession()
		}
		next.ServeHTTP(w, r)
	})
}

// streamWatcher passes an SSE stream through and ends the tracked call of
// every JSON-RPC answer it sees in a data line. mcp-go writes the stream from
// the handler goroutine only, so no locking is needed.
type streamWatcher struct {
	http.ResponseWriter
	calls *tracker
	id    string
	buf   []byte
}

func (sw *streamWatcher) Write(p []byte) (int, error) {
	n, err := sw.ResponseWriter.Write(p)
	rest := answersIn(append(sw.buf, p[:n]...), "data:", func(key string) { sw.calls.end(sw.id + "/" + key) })
	sw.buf = append(sw.buf[:0], rest...)
	return n, err
}

// Flush is required: mcp-go refuses to stream through a writer without it.
func (sw *streamWatcher) Flush() {
	if f, ok := sw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
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
