package transport

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// whoServer is a server with one tool, who, that answers with the caller
// of the call.
func whoServer() *server.MCPServer {
	s := server.NewMCPServer("transport-test", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("who", mcp.WithDescription("Name the caller")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(string(caller.Request(ctx)) + " " + string(caller.Of(ctx))), nil
		})
	return s
}

// Every network transport records the request's caller for the calls it
// runs: the address, and the session where there is one.
func TestCallerReachesCallsOnEveryTransport(t *testing.T) {
	for _, tc := range []struct {
		kind, flavour string
		stateless     bool
		session       bool
	}{
		{KindHTTPSSE, "streamable", false, true},
		{KindHTTPSSE, "streamable", true, false},
		{KindHTTPSSE, "sse", false, true},
	} {
		srv := serveNetwork(t, tc.kind, whoServer(), Options{Stateless: tc.stateless})
		c := newMCPClient(t, tc.flavour, srv.base)
		got, err := callText(context.Background(), c, "who", nil)
		req, of, _ := strings.Cut(got, " ")
		if err != nil || req != "addr:127.0.0.1" || strings.HasPrefix(of, "session:") != tc.session {
			t.Errorf("%s stateless=%v: %q, %v; want the loopback address, and a session: %v", tc.flavour, tc.stateless, got, err, tc.session)
		}
	}
	srv := serveNetwork(t, KindWebSocket, whoServer(), Options{})
	ws := mustDialWS(t, srv.base)
	m, err := ws.call("tools/call", callParams("who", nil))
	if got := toolText(m); err != nil || !strings.HasPrefix(got, "addr:127.0.0.1 session:") {
		t.Errorf("websocket: %q, %v; want the loopback address and the connection's session", got, err)
	}
}

func identifyWith(t *testing.T, o Options, remote string, header http.Header) requester {
	t.Helper()
	o.Logger = testLogger(t)
	st := newSite(KindHTTPSSE, o.withDefaults())
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = remote
	for k, v := range header {
		r.Header[k] = v
	}
	return st.identify(r)
}

// X-Forwarded-For is the client's own word unless a trusted proxy wrote
// it: from any other peer it is ignored, so no one can pose as another
// address or spread over many. From a trusted proxy its rightmost hop that
// is not a proxy is believed; hops left of that are the client's own.
func TestForwardedForIsBelievedOnlyFromTrustedProxies(t *testing.T) {
	proxies, err := ParseTrustedProxies("10.0.0.5, 172.28.0.0/24")
	if err != nil {
		t.Fatal(err)
	}
	xff := func(v ...string) http.Header { return http.Header{"X-Forwarded-For": v} }
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		remote  string
		header  http.Header
		want    caller.ID
	}{
		{"untrusted peer, spoofed header", proxies, "203.0.113.9:4000", xff("198.51.100.1"), "addr:203.0.113.9"},
		{"no proxies configured", nil, "10.0.0.5:4000", xff("198.51.100.1"), "addr:10.0.0.5"},
		{"trusted proxy", proxies, "10.0.0.5:4000", xff("198.51.100.1"), "addr:198.51.100.1"},
		{"trusted proxy, spoofed left hop", proxies, "10.0.0.5:4000", xff("192.0.2.66, 198.51.100.1"), "addr:198.51.100.1"},
		{"two trusted proxies", proxies, "10.0.0.5:4000", xff("198.51.100.1, 172.28.0.9"), "addr:198.51.100.1"},
		{"two headers", proxies, "10.0.0.5:4000", xff("192.0.2.66", "198.51.100.1"), "addr:198.51.100.1"},
		{"garbage hop", proxies, "10.0.0.5:4000", xff("198.51.100.1, not-an-ip"), "addr:10.0.0.5"},
		{"no header", proxies, "10.0.0.5:4000", nil, "addr:10.0.0.5"},
		{"IPv6 client counted by /64", proxies, "10.0.0.5:4000", xff("2001:db8:1:2:3::4"), "addr:2001:db8:1:2::/64"},
		{"IPv4-mapped peer", nil, "[::ffff:192.0.2.1]:4000", nil, "addr:192.0.2.1"},
	} {
		if got := identifyWith(t, Options{TrustedProxies: tc.proxies}, tc.remote, tc.header).id; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// With a token the caller is its fingerprint at the client's address: the
// one token every holder shares keeps a web app and an assistant apart,
// and the token itself appears nowhere.
func TestTokenCallerIsFingerprintAtAddress(t *testing.T) {
	const token = "s3cret-token-0123456789"
	o := Options{AuthToken: token}
	a := identifyWith(t, o, "192.0.2.1:1", http.Header{"Authorization": {"Bearer " + token}}).id
	b := identifyWith(t, o, "192.0.2.2:1", http.Header{"Authorization": {"Bearer " + token}}).id
	if a == b || !strings.HasPrefix(string(a), "token:") || !strings.HasSuffix(string(a), "@192.0.2.1") || strings.Contains(string(a), token) {
		t.Errorf("callers %q and %q; want two token callers, one per address, without the token", a, b)
	}
}

func TestParseTrustedProxiesRefusesNonsense(t *testing.T) {
	for _, bad := range []string{"nginx", "10.0.0.0/33", "10.0.0.1:80"} {
		if _, err := ParseTrustedProxies(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseTrustedProxies(%q) = %v; want an error quoting it", bad, err)
		}
	}
	if p, err := ParseTrustedProxies(" "); err != nil || len(p) != 0 {
		t.Errorf("blank: %v, %v", p, err)
	}
}

// A same-host backend gets its 200 WebSocket sessions under the default
// configuration: a loopback peer may hold as many as the server. Before,
// the 17th was refused.
func TestLoopbackBackendGetsItsWebSocketSessions(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	const n = 200
	conns := make([]*wsClient, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			c, resp, err := dialWS(t, srv.base, nil, "mcp")
			if err != nil {
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				errs <- fmt.Errorf("connection %d: status %d, %v", i+1, status, err)
				return
			}
			conns[i] = c
		})
	}
	wg.Wait()
	close(errs)
	refused := 0
	for err := range errs {
		if refused++; refused == 1 {
			t.Error(err)
		}
	}
	if refused > 0 {
		t.Fatalf("%d of %d loopback WebSocket sessions refused under the defaults; want none", refused, n)
	}
	waitSessions(t, srv.base, n)
	for _, c := range conns {
		c.conn.Close()
	}
}

// A stateless server issues no session IDs, and mcp-go would name the
// request's ephemeral session after whatever Mcp-Session-Id the client
// sends: a client changing it on every call would be a new caller each
// time, with fresh shares of fairness and fresh task bounds. The header is
// not the client's to choose there; the caller stays its address.
func TestStatelessServerIgnoresMadeUpSessionIDs(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, whoServer(), Options{Stateless: true})
	for _, id := range []string{"made-up-1", "made-up-2"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","arguments":{}}}`
		req, err := http.NewRequest(http.MethodPost, srv.base+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(got), `addr:127.0.0.1 addr:127.0.0.1`) {
			t.Errorf("call with Mcp-Session-Id %q: %s; want the caller named by its address alone", id, got)
		}
	}
}

// A same-host proxy that MCP_TRUSTED_PROXIES does not list makes every
// client behind it arrive from loopback. Its requests say so (an
// X-Forwarded-For or Forwarded header, not believed): they are one remote
// client, apart from the same-host backend's addr:127.0.0.1, named as
// standing for many (so that, sessionless, it owns no tasks), held to the
// remote session bound, and the first is logged naming the setting.
// Before, they were addr:127.0.0.1 like everyone on the host, with the
// loopback allowance of every session place.
func TestUnlistedSameHostProxyIsOneRemoteClient(t *testing.T) {
	var logs logbuf.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	srv := serveNetwork(t, KindHTTPSSE, whoServer(), Options{Stateless: true, Logger: log})
	c := dialFrom(t, "127.0.0.1")
	who := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","arguments":{}}}`
	for _, h := range []http.Header{
		{"X-Forwarded-For": {"203.0.113.9"}},
		{"Forwarded": {"for=198.51.100.4;proto=https"}},
		{"X-Forwarded-For": {"192.0.2.77"}},
		nil,
	} {
		_, _, body := post(t, c, srv.base, h, who)
		want := "fwd:addr:127.0.0.1 fwd:addr:127.0.0.1"
		if h == nil {
			want = "addr:127.0.0.1 addr:127.0.0.1"
		}
		if !strings.Contains(body, want) {
			t.Errorf("who, with %v: %s; want %q", h, body, want)
		}
	}
	if n := strings.Count(logs.String(), `"setting":"`+settingTrustedProxies+`"`); n != 1 {
		t.Errorf("%d log lines name %s, want the first forwarded request's only:\n%s", n, settingTrustedProxies, logs.String())
	}

	stateful := serveNetwork(t, KindHTTPSSE, whoServer(), Options{MaxSessions: 40})
	var ok, refused int
	for i := range DefaultMaxSessionsPerClient + 1 {
		status, _, _ := post(t, c, stateful.base, http.Header{"X-Forwarded-For": {fmt.Sprintf("203.0.113.%d", i)}}, initFrame)
		switch status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			refused++
		}
	}
	if ok != DefaultMaxSessionsPerClient || refused != 1 {
		t.Errorf("%d initializes through an unlisted proxy: %d sessions, %d refused; want the remote bound, %d, and 1 refused",
			DefaultMaxSessionsPerClient+1, ok, refused, DefaultMaxSessionsPerClient)
	}
	if status, _, body := post(t, c, stateful.base, nil, initFrame); status != http.StatusOK {
		t.Errorf("the same-host backend's own initialize: %d %s; want a session of its own", status, body)
	}
}
