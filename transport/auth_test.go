package transport

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

const testToken = "0123456789abcdef-flock-token"

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// With a token set, every endpoint but the probes wants it; the right token
// opens them all and a wrong one of any length is refused alike.
func TestAuthTokenGuardsEverythingButTheProbes(t *testing.T) {
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		t.Run(kind, func(t *testing.T) {
			srv := serveNetwork(t, kind, newTestServer(newGate()), Options{AuthToken: testToken})
			path := map[string]string{KindHTTPSSE: "/mcp", KindWebSocket: "/ws"}[kind]
			for _, h := range []http.Header{nil, bearer("wrong"), bearer(testToken + "x"), {"Authorization": {testToken}}} {
				code, hdr, body := doRequestHeader(t, http.MethodGet, srv.base+path, h, nil)
				if code != http.StatusUnauthorized || !strings.Contains(body, "MCP_AUTH_TOKEN") || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("%s with %v: %d %q (WWW-Authenticate %q), want 401 naming MCP_AUTH_TOKEN", path, h, code, body, hdr.Get("WWW-Authenticate"))
				}
			}
		})
	}
}

// The probes answer without the token, with their status and nothing
// more: no reason (it may name Redis's address), no facts. The token, or no
// token configured, gets the whole answer.
func TestProbesWithoutTheTokenShowOnlyTheirStatus(t *testing.T) {
	const secretAddr = "10.9.8.7:6379"
	facts := func() any {
		return map[string]any{"shared": map[string]any{"redis": map[string]any{"up": false, "reason": "dial tcp " + secretAddr + ": connection refused"}}}
	}
	degraded := func(context.Context) error { return degradedErr("redis unavailable (dial tcp " + secretAddr + ")") }
	notReady := func(context.Context) error { return errors.New("NSIP unreachable at " + secretAddr) }
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		for _, rc := range []struct {
			name   string
			ready  func(context.Context) error
			code   int
			status string
		}{
			{"ready", nil, http.StatusOK, "ready"},
			{"degraded", degraded, http.StatusOK, "degraded"},
			{"not ready", notReady, http.StatusServiceUnavailable, "not_ready"},
		} {
			t.Run(kind+"/"+rc.name, func(t *testing.T) {
				srv := serveNetwork(t, kind, newTestServer(newGate()), Options{AuthToken: testToken, Health: facts, Ready: rc.ready, Version: "v9.9.9"})
				for _, h := range []http.Header{nil, bearer("wrong")} {
					code, _, body := doRequestHeader(t, http.MethodGet, srv.base+"/readyz", h, nil)
					if want := `{"status":"` + rc.status + `"}` + "\n"; code != rc.code || body != want {
						t.Errorf("/readyz with %v: %d %q, want %d %q", h, code, body, rc.code, want)
					}
					code, _, body = doRequestHeader(t, http.MethodGet, srv.base+"/healthz", h, nil)
					if code != http.StatusOK || body != `{"status":"ok"}`+"\n" {
						t.Errorf("/healthz with %v: %d %q, want 200 and the status alone", h, code, body)
					}
				}
				code, _, body := doRequestHeader(t, http.MethodGet, srv.base+"/healthz", bearer(testToken), nil)
				if code != http.StatusOK || !strings.Contains(body, secretAddr) || !strings.Contains(body, `"version":"v9.9.9"`) || !strings.Contains(body, `"open_sessions"`) {
					t.Errorf("/healthz with the token: %d %q, want the whole report", code, body)
				}
				code, _, body = doRequestHeader(t, http.MethodGet, srv.base+"/readyz", bearer(testToken), nil)
				if code != rc.code || !strings.Contains(body, `"status":"`+rc.status+`"`) || (rc.ready != nil && !strings.Contains(body, secretAddr)) {
					t.Errorf("/readyz with the token: %d %q, want %d %s with the reason", code, body, rc.code, rc.status)
				}
			})
		}
	}
	// Without a configured token there is nothing to withhold.
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{Health: facts, Ready: notReady})
	if _, _, body := doRequestHeader(t, http.MethodGet, srv.base+"/readyz", nil, nil); !strings.Contains(body, secretAddr) {
		t.Errorf("/readyz with no token configured: %q, want the reason", body)
	}
	if _, _, body := doRequestHeader(t, http.MethodGet, srv.base+"/healthz", nil, nil); !strings.Contains(body, secretAddr) {
		t.Errorf("/healthz with no token configured: %q, want the whole report", body)
	}
}

type degradedErr string

func (e degradedErr) Error() string  { return string(e) }
func (e degradedErr) Degraded() bool { return true }

func TestAuthTokenOnStreamableHTTP(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{AuthToken: testToken})
	init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if code, _ := postRaw(t, srv.base+"/mcp", h, init); code != http.StatusUnauthorized {
		t.Fatalf("POST /mcp without token: %d, want 401", code)
	}
	h.Set("Authorization", "Bearer "+testToken)
	if code, body := postRaw(t, srv.base+"/mcp", h, init); code != http.StatusOK || !strings.Contains(body, `"protocolVersion"`) {
		t.Fatalf("POST /mcp with token: %d %q, want 200 with an initialize result", code, body)
	}
}

func TestAuthTokenOnWebSocket(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{AuthToken: testToken})
	_, resp, err := dialWS(t, srv.base, nil, "mcp")
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("dial without token: err %v resp %v, want a 401 handshake", err, resp)
	}
	c, _, err := dialWS(t, srv.base, bearer(testToken), "mcp")
	if err != nil {
		t.Fatalf("dial with Authorization header: %v", err)
	}
	if err := c.handshake(); err != nil {
		t.Fatalf("MCP handshake with header token: %v", err)
	}
	// Browsers cannot set headers on a WebSocket: the query parameter works.
	d := websocket.Dialer{HandshakeTimeout: testTimeout, Subprotocols: []string{"mcp"}}
	conn, resp, err := d.Dial(wsURL(srv.base)+"?access_token="+testToken, nil)
	if err != nil {
		t.Fatalf("dial with access_token: %v", err)
	}
	resp.Body.Close()
	conn.Close()
	_, resp, err = d.Dial(wsURL(srv.base)+"?access_token=nope", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("dial with a wrong access_token: err %v, want 401", err)
	}
	resp.Body.Close()
}

// Without a token nothing changes: the same requests go through.
func TestNoAuthTokenMeansOpen(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	if code, _ := getJSON(t, srv.base+"/readyz", nil); code != http.StatusOK {
		t.Fatalf("/readyz without a configured token: %d, want 200", code)
	}
	c, _, err := dialWS(t, srv.base, nil, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.handshake(); err != nil {
		t.Fatal(err)
	}
}
