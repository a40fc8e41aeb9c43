package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

const testToken = "0123456789abcdef-flock-token"

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// With a token set, every endpoint but /healthz wants it; the right token
// opens them all and a wrong one of any length is refused alike.
func TestAuthTokenGuardsEverythingButHealthz(t *testing.T) {
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		t.Run(kind, func(t *testing.T) {
			srv := serveNetwork(t, kind, newTestServer(newGate()), Options{AuthToken: testToken})

			if code, body := getJSON(t, srv.base+"/healthz", nil); code != http.StatusOK || body["status"] != "ok" {
				t.Fatalf("/healthz without token: %d %v, want 200 ok", code, body)
			}
			for _, h := range []http.Header{nil, bearer("wrong"), bearer(testToken + "x"), {"Authorization": {testToken}}} {
				code, hdr, body := doRequestHeader(t, http.MethodGet, srv.base+"/readyz", h, nil)
				if code != http.StatusUnauthorized || !strings.Contains(body, "MCP_AUTH_TOKEN") || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("/readyz with %v: %d %q (WWW-Authenticate %q), want 401 naming MCP_AUTH_TOKEN", h, code, body, hdr.Get("WWW-Authenticate"))
				}
			}
			if code, _ := getJSON(t, srv.base+"/readyz", bearer(testToken)); code != http.StatusOK {
				t.Fatalf("/readyz with the token: %d, want 200", code)
			}
		})
	}
}

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
