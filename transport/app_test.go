package transport

import (
	"net/http"
	"strings"
	"testing"
)

// appPage stands in for the web app: a page with a header of its own.
var appPage = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	_, _ = w.Write([]byte("<!doctype html><title>the app</title>"))
})

// TestAppIsServedOnlyWhenGiven: without Options.App, /app is a 404 on both
// HTTP transports; with it, the page is served as its handler wrote it.
func TestAppIsServedOnlyWhenGiven(t *testing.T) {
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		t.Run(kind, func(t *testing.T) {
			off := serveNetwork(t, kind, newTestServer(newGate()), Options{})
			if status, body := doRequest(t, "GET", off.base+"/app", nil, nil); status != http.StatusNotFound {
				t.Fatalf("GET /app without an app: %d %q, want 404", status, body)
			}
			on := serveNetwork(t, kind, newTestServer(newGate()), Options{App: appPage})
			status, h, body := doRequestHeader(t, "GET", on.base+"/app", nil, nil)
			if status != http.StatusOK || body != "<!doctype html><title>the app</title>" {
				t.Fatalf("GET /app: %d %q, want 200 and the page", status, body)
			}
			if ct, csp := h.Get("Content-Type"), h.Get("Content-Security-Policy"); ct != "text/html; charset=utf-8" || csp != "default-src 'none'" {
				t.Fatalf("GET /app: Content-Type %q, CSP %q; want the page's own", ct, csp)
			}
			if status, _ := doRequest(t, "POST", on.base+"/app", nil, []byte("{}")); status != http.StatusMethodNotAllowed {
				t.Fatalf("POST /app: %d, want 405", status)
			}
		})
	}
}

// TestAppFollowsTheOriginRules: the page goes through the same Host and
// Origin checks as the MCP endpoints, and needs no token (a browser sends
// none when it opens a page) while /ws still does.
func TestAppFollowsTheOriginRules(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{
		App: appPage, AuthToken: "s3cret", AllowedOrigins: []string{"https://flock.example.org"},
	})
	cases := []struct {
		name   string
		path   string
		header http.Header
		want   int
	}{
		{"no origin, no token", "/app", nil, 200},
		{"same host", "/app", http.Header{"Origin": {srv.base}}, 200},
		{"listed origin", "/app", http.Header{"Origin": {"https://flock.example.org"}}, 200},
		{"foreign origin", "/app", http.Header{"Origin": {"https://evil.example"}}, 403},
		{"rebound host", "/app", http.Header{"Host": {"evil.example"}}, 403},
		{"ws without token", "/ws", nil, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := doRequest(t, "GET", srv.base+tc.path, tc.header, nil)
			if status != tc.want {
				t.Fatalf("GET %s: %d %q, want %d", tc.path, status, body, tc.want)
			}
			if status == 403 && !strings.Contains(body, "not") {
				t.Fatalf("refusal %q does not say why", body)
			}
		})
	}
}
