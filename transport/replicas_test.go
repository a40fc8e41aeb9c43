package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestStreamableStatelessAnyReplicaAnswers plays a load balancer without
// sticky sessions: initialize on one replica, call a tool on another. In
// stateless mode the second replica answers; with sessions it cannot know
// the first one's session, which is why replicas run stateless.
func TestStreamableStatelessAnyReplicaAnswers(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lb-test","version":"0"}}}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ewe 42"}}}`
	for _, stateless := range []bool{true, false} {
		name := map[bool]string{true: "stateless", false: "sessions"}[stateless]
		t.Run(name, func(t *testing.T) {
			a := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{Stateless: stateless})
			b := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{Stateless: stateless})
			code, hdr, body := doRequestHeader(t, http.MethodPost, a.base+"/mcp", nil, []byte(initialize))
			if code != http.StatusOK || !strings.Contains(body, `"protocolVersion"`) {
				t.Fatalf("initialize on A: %d %.300s", code, body)
			}
			h := http.Header{}
			if id := hdr.Get("Mcp-Session-Id"); id != "" {
				h.Set("Mcp-Session-Id", id)
			}
			code, body = postRaw(t, b.base+"/mcp", h, []byte(call))
			answered := code == http.StatusOK && strings.Contains(body, "echo: ewe 42")
			if answered != stateless {
				t.Fatalf("tools/call on B after initialize on A (%s): %d %.300s; answered %v, want %v", name, code, body, answered, stateless)
			}
		})
	}
}

// degraded is a Ready error that still means "send traffic here".
type degraded struct{}

func (degraded) Error() string  { return "redis unavailable: cache is local" }
func (degraded) Degraded() bool { return true }

func TestReadyzReportsDegraded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		code   int
		status string
		reason string
	}{
		{"ready", nil, http.StatusOK, "ready", ""},
		{"degraded", degraded{}, http.StatusOK, "degraded", "redis unavailable: cache is local"},
		{"not ready", context.DeadlineExceeded, http.StatusServiceUnavailable, "not_ready", "context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{Ready: func(context.Context) error { return tc.err }})
			code, body := getJSON(t, srv.base+"/readyz", nil)
			if code != tc.code || body["status"] != tc.status || (tc.reason != "" && body["reason"] != tc.reason) {
				t.Errorf("/readyz = %d %v, want %d status %q reason %q", code, body, tc.code, tc.status, tc.reason)
			}
		})
	}
}

// TestStatelessInitializeTakesNoSessionPlace: a stateless replica opens no
// session on initialize, so an address whose one place is held by an SSE
// stream (as every client behind a proxy shares one) still initializes and
// calls; before, initialize was refused with 429 for a place it would not
// have used.
func TestStatelessInitializeTakesNoSessionPlace(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{Stateless: true, MaxSessionsPerClient: 1})
	c := newHTTPClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.base+"/sse", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("SSE stream: %d", resp.StatusCode)
	}
	for i := range 3 {
		if status, _, body := post(t, c, srv.base, nil, initFrame); status != http.StatusOK || !strings.Contains(body, `"protocolVersion"`) {
			t.Fatalf("stateless initialize %d beside the address's one stream: %d %.300s, want 200", i+1, status, body)
		}
	}
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ewe 42"}}}`
	if status, _, body := post(t, c, srv.base, nil, call); status != http.StatusOK || !strings.Contains(body, "echo: ewe 42") {
		t.Fatalf("stateless call: %d %.300s", status, body)
	}
	waitSessions(t, srv.base, 1)
}
