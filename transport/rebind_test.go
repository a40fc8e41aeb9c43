package transport

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
)

// lanAddr is where the connections of these tests seem to arrive: the
// address at which a phone on the farm's network reaches a server bound to
// 0.0.0.0 (192.0.2.0/24 is set aside for documentation).
var lanAddr = &net.TCPAddr{IP: net.IPv4(192, 0, 2, 20), Port: 8000}

// lanListener hands out connections whose local address is lanAddr. The
// Host check tells a connection from the network from a loopback one by
// that address alone, so the server sees exactly what it would see from
// the farm's network, on a test machine that may have no such address.
type lanListener struct{ net.Listener }

func (l lanListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return lanConn{c}, nil
}

type lanConn struct{ net.Conn }

func (lanConn) LocalAddr() net.Addr { return lanAddr }

// serveOnLAN starts kind with the web app and /metrics, as reached from the
// farm's network.
func serveOnLAN(t *testing.T, kind string, opts Options) *served {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Listener = lanListener{ln}
	opts.App = appPage
	opts.Metrics = metrics.New(prometheus.NewRegistry())
	return serveNetwork(t, kind, newTestServer(newGate()), opts)
}

// lanRoutes are the routes a page would reach on each transport: the web
// app, the MCP endpoint, the probes and the metrics.
var lanRoutes = map[string][]string{
	KindHTTPSSE:   {"/app", "/mcp", "/sse", "/healthz", "/metrics"},
	KindWebSocket: {"/app", "/ws", "/healthz", "/metrics"},
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// reach asks path under the Host header host, as a browser would: /mcp
// is sent an initialize, /ws is opened as a WebSocket and, once open, asked
// to call a tool. It returns the status and what the server said.
func reach(t *testing.T, srv *served, path, host string, header http.Header) (int, string) {
	t.Helper()
	h := http.Header{"Host": {host}}
	for k, v := range header {
		h[k] = v
	}
	switch path {
	case "/mcp":
		return doRequest(t, http.MethodPost, srv.base+path, h, []byte(initializeBody))
	case "/ws":
		return reachWS(t, srv, h)
	case "/sse":
		return reachStream(t, srv.base+path, h)
	}
	return doRequest(t, http.MethodGet, srv.base+path, h, nil)
}

// reachWS opens /ws with header; once open, the answer is the text of an
// echo call, so that an open socket is seen to run tools.
func reachWS(t *testing.T, srv *served, header http.Header) (int, string) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: testTimeout, Subprotocols: []string{"mcp"}}
	conn, resp, err := d.DialContext(context.Background(), wsURL(srv.base), header)
	if resp == nil {
		t.Fatalf("/ws: no HTTP answer: %v", err)
	}
	if conn == nil {
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	defer conn.Close()
	c := &wsClient{t: t, conn: conn}
	if err := c.handshake(); err != nil {
		t.Fatalf("/ws opened but: %v", err)
	}
	m, err := c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "ewe"}})
	if err != nil {
		t.Fatalf("/ws opened but the call failed: %v", err)
	}
	return resp.StatusCode, toolText(m)
}

// reachStream opens a stream that stays open while it is served: an
// answer of 200 is returned at once, with the first event (the legacy
// transport's endpoint), and a refusal with its message.
func reachStream(t *testing.T, url string, header http.Header) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	req.Host = header.Get("Host")
	c := newHTTPClient(t)
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return resp.StatusCode, string(b)
	}
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	return resp.StatusCode, string(buf[:n])
}

// answered is the status each route gives a request it serves.
func answered(path string) int {
	if path == "/ws" {
		return http.StatusSwitchingProtocols
	}
	return http.StatusOK
}

// TestRebindingRefusedBeyondLoopback: without a token, a server reached
// from the network answers only a Host that is an IP address, localhost or
// a name the operator listed. A page whose own name was rebound to the
// server's address (Host evil.example, and an Origin of the same host,
// which is therefore "same-origin") is refused on every route, with a
// message naming the setting; the README's container example (reached as
// localhost:8000), the address itself and a listed name are served.
func TestRebindingRefusedBeyondLoopback(t *testing.T) {
	refused := []struct{ host, origin string }{
		{"evil.example:8000", ""},
		{"evil.example:8000", "http://evil.example:8000"},
		{"evil.example", ""},
		{"192.0.2.20.evil.example:8000", ""}, // looks like an address, is a name
		{"localhost.evil.example:8000", ""},
		{"farm.lan:8000", ""}, // a name not listed, beside the listed nsip.farm.lan
	}
	served := []string{"localhost:8000", "192.0.2.20:8000", "192.0.2.20", "[fd00::2]:8000", "nsip.farm.lan:8000", "NSIP.Farm.LAN.:8000"}
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		t.Run(kind, func(t *testing.T) {
			srv := serveOnLAN(t, kind, Options{AllowedHosts: []string{"nsip.farm.lan"}})
			for _, path := range lanRoutes[kind] {
				for _, r := range refused {
					var h http.Header
					if r.origin != "" {
						h = http.Header{"Origin": {r.origin}}
					}
					status, body := reach(t, srv, path, r.host, h)
					if status != http.StatusForbidden || !strings.Contains(body, "MCP_ALLOWED_HOSTS") || !strings.Contains(body, r.host) {
						t.Errorf("%s with Host %s (Origin %q): %d %.160q; want 403 naming the host and MCP_ALLOWED_HOSTS", path, r.host, r.origin, status, body)
					}
				}
				for _, host := range served {
					if status, body := reach(t, srv, path, host, nil); status != answered(path) {
						t.Errorf("%s with Host %s: %d %.160q; want %d", path, host, status, body, answered(path))
					} else if path == "/ws" && body != "echo: ewe" {
						t.Errorf("/ws with Host %s opened, but the call answered %q", host, body)
					}
				}
			}
		})
	}
}

// TestRebindingWithTokenAsBefore: with a token, a request from the network
// is judged by the token, whatever its Host: a rebound page cannot send
// the token, and an operator's proxy may use any name.
func TestRebindingWithTokenAsBefore(t *testing.T) {
	const token = "a-token-for-the-farm-network"
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		t.Run(kind, func(t *testing.T) {
			srv := serveOnLAN(t, kind, Options{AuthToken: token})
			for _, path := range lanRoutes[kind] {
				auth := http.Header{"Authorization": {"Bearer " + token}}
				if status, body := reach(t, srv, path, "nsip.example.org:8000", auth); status != answered(path) {
					t.Errorf("%s with the token and Host nsip.example.org:8000: %d %.160q; want %d", path, status, body, answered(path))
				}
				want := http.StatusUnauthorized
				if path == "/app" || path == "/healthz" {
					want = http.StatusOK // open to all, holding no secret
				}
				if status, body := reach(t, srv, path, "evil.example:8000", nil); status != want {
					t.Errorf("%s without the token, Host evil.example:8000: %d %.160q; want %d", path, status, body, want)
				}
			}
		})
	}
}

// TestLoopbackHostRuleUnchanged: a connection that arrives on loopback
// still must name a loopback host, token or not, listed names or not.
func TestLoopbackHostRuleUnchanged(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{AllowedHosts: []string{"nsip.farm.lan"}})
	for host, want := range map[string]int{"localhost:8000": 200, "127.0.0.1": 200, "nsip.farm.lan": 403, "192.0.2.20:8000": 403} {
		if status, body := doRequest(t, http.MethodGet, srv.base+"/healthz", http.Header{"Host": {host}}, nil); status != want {
			t.Errorf("loopback connection with Host %s: %d %.160q; want %d", host, status, body, want)
		}
	}
}
