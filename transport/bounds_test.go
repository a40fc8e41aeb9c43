package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// TestSlowBodyOnAnyRequestIsCutOff: a request that declares a body and
// trickles it, on any method and whether the server answers or refuses it,
// no longer holds its connection: the answer comes at once and the
// connection closes, or the body's deadline closes it. 20 connections per
// case; before the fix every /healthz one stayed open.
func TestSlowBodyOnAnyRequestIsCutOff(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{ReadHeaderTimeout: 200 * time.Millisecond})
	cases := []struct {
		name, request, want string
	}{
		{"GET /healthz", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nx", "HTTP/1.1 200"},
		{"GET /readyz chunked", "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx", "HTTP/1.1 200"},
		{"DELETE /mcp", "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: x\r\nContent-Length: 100\r\n\r\nx", "HTTP/1.1 200"},
		{"POST /mcp refused for its origin", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\nContent-Length: 100\r\n\r\nx", "HTTP/1.1 403"},
	}
	const conns = 20
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			answers := make(chan error, conns)
			for range conns {
				go func() { answers <- expectAnswerThenClose(srv.addr, tc.request, tc.want) }()
			}
			for range conns {
				if err := <-answers; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if status, body := getJSON(t, srv.base+"/healthz", nil); status != 200 || body["status"] != "ok" {
		t.Fatalf("healthz after the attack: %d %v", status, body)
	}
}

// expectAnswerThenClose sends request and then nothing more, and reports
// an error unless the server answers with want and closes the connection.
func expectAnswerThenClose(addr, request, want string) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		return err
	}
	_ = conn.SetReadDeadline(time.Now().Add(testTimeout / 2))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("the connection is still open %v after the request (read %.80q)", testTimeout/2, got)
	}
	if !strings.HasPrefix(string(got), want) {
		return fmt.Errorf("answer %.200q, want %q", got, want)
	}
	return nil
}

// TestSSEStreamOutlivesTheBodyDeadline: the read deadlines bodies get do
// not touch long-lived streams: a legacy SSE stream keeps receiving
// keep-alives for three times ReadHeaderTimeout. The limit is a second,
// not less: the server starts it when the connection is accepted, and a
// loaded machine can take tens of milliseconds to write the request.
func TestSSEStreamOutlivesTheBodyDeadline(t *testing.T) {
	const limit = time.Second
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{ReadHeaderTimeout: limit, PingInterval: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.base+"/sse", nil)
	resp, err := newHTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	sc := bufio.NewScanner(resp.Body)
	pings := 0
	for time.Since(start) < 3*limit && sc.Scan() {
		if strings.HasPrefix(sc.Text(), ":") || strings.Contains(sc.Text(), "ping") {
			pings++
		}
	}
	if open := time.Since(start); open < 3*limit || pings < 2 {
		t.Fatalf("the stream ended after %d keep-alives and %v (%v): want it open past three times the %v body deadline", pings, open, sc.Err(), limit)
	}
}

// dialFrom returns an HTTP client whose connections come from the loopback
// address ip, so that one test can act as several client addresses.
func dialFrom(t *testing.T, ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: testTimeout}
}

// post sends a JSON-RPC body to /mcp and returns status, session and body.
func post(t *testing.T, c *http.Client, base string, header http.Header, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// TestInitializeFloodFromOneAddressLocksNobodyOut: 300 initialize posts
// from one address (8 at a time) get MaxSessionsPerClient sessions and a
// 429 naming the bound for the rest; another address still gets a session,
// and SSE streams from one address are held to the same bound.
func TestInitializeFloodFromOneAddressLocksNobodyOut(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxSessions: 100, MaxSessionsPerClient: 4})
	attacker := dialFrom(t, "127.0.0.1")
	var ok, limited, other atomic.Int64
	var wg sync.WaitGroup
	next := make(chan struct{}, 300)
	for range 300 {
		next <- struct{}{}
	}
	close(next)
	for range 8 {
		wg.Go(func() {
			for range next {
				status, _, body := post(t, attacker, srv.base, nil, initFrame)
				switch {
				case status == 200:
					ok.Add(1)
				case status == http.StatusTooManyRequests && strings.Contains(body, "your address holds 4"):
					limited.Add(1)
				default:
					other.Add(1)
					t.Errorf("initialize: %d %s", status, body)
				}
			}
		})
	}
	wg.Wait()
	if ok.Load() != 4 || limited.Load() != 296 || other.Load() != 0 {
		t.Fatalf("300 initializes from one address: %d sessions, %d refused 429, %d other; want 4, 296, 0", ok.Load(), limited.Load(), other.Load())
	}
	if status, id, body := post(t, dialFrom(t, "127.0.0.2"), srv.base, nil, initFrame); status != 200 || id == "" {
		t.Fatalf("initialize from another address during the flood: %d %q %s", status, id, body)
	}
	waitSessions(t, srv.base, 5)

	// Streams from one address count the same way.
	streams := dialFrom(t, "127.0.0.3")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 1; i <= 5; i++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.base+"/sse", nil)
		resp, err := streams.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if i <= 4 && resp.StatusCode != 200 || i == 5 && resp.StatusCode != http.StatusTooManyRequests {
			resp.Body.Close()
			t.Fatalf("SSE stream %d from one address: %d", i, resp.StatusCode)
		}
		if i == 5 {
			resp.Body.Close()
		} else {
			defer resp.Body.Close()
		}
	}
}

// hookedServer is a test server that counts the sessions mcp-go registers
// and unregisters.
func hookedServer() (*server.MCPServer, *atomic.Int64, *atomic.Int64) {
	var reg, unreg atomic.Int64
	h := &server.Hooks{}
	h.AddOnRegisterSession(func(context.Context, server.ClientSession) { reg.Add(1) })
	h.AddOnUnregisterSession(func(context.Context, server.ClientSession) { unreg.Add(1) })
	return server.NewMCPServer("bounds-test", "1", server.WithHooks(h)), &reg, &unreg
}

const pingFrame = `{"jsonrpc":"2.0","id":7,"method":"ping"}`

// TestNearlyFullServerEndsTheOldestIdleSessions: once nine tenths of the
// places are taken, a new session ends the one idle longest (here any
// session not in use, SessionIdleUnderPressure being 1 ns) instead of being
// refused, in the ledger and in mcp-go alike; sessions used since keep
// their place.
func TestNearlyFullServerEndsTheOldestIdleSessions(t *testing.T) {
	s, reg, unreg := hookedServer()
	srv := serveNetwork(t, KindHTTPSSE, s, Options{MaxSessions: 10, MaxSessionsPerClient: 100, SessionIdleUnderPressure: time.Nanosecond})
	c := newHTTPClient(t)
	var ids []string
	for i := range 9 {
		status, id, body := post(t, c, srv.base, nil, initFrame)
		if status != 200 || id == "" {
			t.Fatalf("session %d: %d %s", i+1, status, body)
		}
		ids = append(ids, id)
	}
	use := func(id string) int {
		status, _, _ := post(t, c, srv.base, http.Header{"Mcp-Session-Id": {id}}, pingFrame)
		return status
	}
	if status := use(ids[1]); status != 200 {
		t.Fatalf("ping on session 2: %d", status)
	}
	for i := range 2 {
		status, id, body := post(t, c, srv.base, nil, initFrame)
		if status != 200 || id == "" {
			t.Fatalf("initialize %d on a nearly full server: %d %s, want a session", 10+i, status, body)
		}
		ids = append(ids, id)
	}
	for i, id := range ids {
		want := 200
		if i == 0 || i == 2 { // the two idle longest: 1, then 3 (2 was used)
			want = http.StatusNotFound
		}
		if got := use(id); got != want {
			t.Errorf("session %d after two evictions: %d, want %d", i+1, got, want)
		}
	}
	if reg.Load() != 11 || unreg.Load() != 2 {
		t.Fatalf("mcp-go registered %d sessions and unregistered %d; want 11 and the 2 ended", reg.Load(), unreg.Load())
	}
}

// TestIdleExpiredSessionsAreEndedInMCPGo: 50 sessions that idle out are
// unregistered from mcp-go, not only forgotten by the ledger: by the sweep
// each new session makes and by the periodic one, which needs no request.
func TestIdleExpiredSessionsAreEndedInMCPGo(t *testing.T) {
	s, reg, unreg := hookedServer()
	srv := serveNetwork(t, KindHTTPSSE, s, Options{MaxSessionsPerClient: 100, SessionIdleTimeout: time.Nanosecond})
	c := newHTTPClient(t)
	for i := range 50 {
		if status, id, body := post(t, c, srv.base, nil, initFrame); status != 200 || id == "" {
			t.Fatalf("session %d: %d %s", i+1, status, body)
		}
	}
	for deadline := time.Now().Add(testTimeout); unreg.Load() < 50 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if reg.Load() != 50 || unreg.Load() != 50 {
		t.Fatalf("mcp-go registered %d sessions and unregistered %d; want 50 and 50", reg.Load(), unreg.Load())
	}
	waitSessions(t, srv.base, 0)
}

// TestSessionlessCallsAreBounded: calls of the protocol version without
// sessions, and calls naming a session the server never issued, count
// against their address's bound, which is what its sessions could run (2
// sessions of 1 call each, as behind a proxy whose bound was raised): 20 at
// once, bound 2, 18 refused.
func TestSessionlessCallsAreBounded(t *testing.T) {
	g := newGate()
	defer g.open()
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{MaxInFlightPerSession: 1, MaxSessionsPerClient: 2})
	c := newHTTPClient(t)
	modern := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"block"}}
	call := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{"label":"%d"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, i, i)
	}
	answers := make(chan string, 2)
	for i := 1; i <= 2; i++ {
		go func() {
			_, _, body := post(t, c, srv.base, modern, call(i))
			answers <- body
		}()
		g.waitEntered(t)
	}
	// Sent at once, each with a time limit: before the bound, every one of
	// them ran and waited in the tool.
	short := &http.Client{Transport: c.Transport, Timeout: testTimeout / 4}
	results := make(chan string, 18)
	for i := 3; i <= 20; i++ {
		go func() {
			h := modern.Clone()
			h.Set("Mcp-Session-Id", fmt.Sprintf("made-up-%d", i)) // ignored by this protocol version
			req, _ := http.NewRequest(http.MethodPost, srv.base+"/mcp", strings.NewReader(call(i)))
			req.Header = h
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := short.Do(req)
			if err != nil {
				results <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			results <- fmt.Sprint(resp.StatusCode, " ", string(b))
		}()
	}
	refused := 0
	for range 18 {
		if got := <-results; strings.HasPrefix(got, "429 ") && strings.Contains(got, "2 calls are already running on this address") {
			refused++
		} else {
			t.Errorf("a call past the bound: %.200s", got)
		}
	}
	if refused != 18 {
		t.Fatalf("%d of 18 calls past the bound refused", refused)
	}
	g.open()
	for range 2 {
		if body := <-answers; !strings.Contains(body, "released: ") {
			t.Fatalf("answer of a bounded call: %s", body)
		}
	}
}

// TestOneStreamPerSession: a session holds one GET /mcp stream at a time;
// 20 more are refused with 409, a made-up session's with 404 and one
// without a session with 400. Closing the stream frees its place.
func TestOneStreamPerSession(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{})
	c := newHTTPClient(t)
	_, session, _ := post(t, c, srv.base, nil, initFrame)
	open := func(id string) (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.base+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		resp, err := c.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		return resp, func() { resp.Body.Close(); cancel() }
	}
	first, closeFirst := open(session)
	if first.StatusCode != 200 {
		t.Fatalf("first stream: %d", first.StatusCode)
	}
	for range 20 {
		resp, done := open(session)
		done()
		if resp.StatusCode != http.StatusConflict {
			t.Fatalf("another stream on the same session: %d, want 409", resp.StatusCode)
		}
	}
	for id, want := range map[string]int{"mcp-made-up": 404, "": 400} {
		resp, done := open(id)
		done()
		if resp.StatusCode != want {
			t.Fatalf("stream on session %q: %d, want %d", id, resp.StatusCode, want)
		}
	}
	closeFirst()
	// The server learns of the close from its connection, a moment later.
	for deadline := time.Now().Add(testTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, done := open(session)
		done()
		if resp.StatusCode == 200 {
			return
		}
	}
	t.Fatal("the session's place for a stream never came back after its stream closed")
}

// TestWebSocketConnectionsPerAddressAreBounded: 20 more connections from
// an address at its bound of 3 are refused with 429 at the handshake; one
// that closes frees its place.
func TestWebSocketConnectionsPerAddressAreBounded(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{MaxSessionsPerClient: 3})
	var open []*wsClient
	for range 3 {
		open = append(open, mustDialWS(t, srv.base))
	}
	for i := range 20 {
		if _, resp, err := dialWS(t, srv.base, nil, "mcp"); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Fatalf("connection %d past the bound: status %d, %v; want 429", 4+i, status, err)
		}
	}
	open[0].conn.Close()
	waitSessions(t, srv.base, 2)
	mustDialWS(t, srv.base)
}
