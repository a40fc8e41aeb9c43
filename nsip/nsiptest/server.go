package nsiptest

import (
	"io"
	"log"
	"net/http/httptest"
	"testing"
)

// Server is a Handler listening on a loopback port.
type Server struct {
	*Handler
	ts *httptest.Server
}

// NewServer starts a stand-in on 127.0.0.1 and closes it when the test ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := Start(opts)
	tb.Cleanup(s.Close)
	return s
}

// Start starts a stand-in on 127.0.0.1 for callers outside tests, which
// must Close it.
func Start(opts Options) *Server {
	h := NewHandler(opts)
	ts := httptest.NewUnstartedServer(h)
	// Resets and aborted hangs are deliberate; keep the server quiet.
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.Start()
	return &Server{Handler: h, ts: ts}
}

// URL is the base URL including /api, ready for nsip.WithBaseURL.
func (s *Server) URL() string { return s.ts.URL + "/api" }

// Close releases held requests, then stops the server.
func (s *Server) Close() {
	s.Handler.Close()
	s.ts.Close()
}
