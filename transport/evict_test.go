package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// openSSE opens a legacy SSE stream from c and reads up to its endpoint
// event; the returned channel closes when the server ends the stream.
func openSSE(t *testing.T, c *http.Client, base string) (status int, ended <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET /sse: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return resp.StatusCode, nil
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the endpoint event: %v", err)
		}
		if strings.HasPrefix(line, "data:") {
			break
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, br) // returns when the server ends the stream
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	return resp.StatusCode, done
}

// TestNearlyFullServerEndsIdleSSEStreams: SSE streams that only idle are
// ended to make room, oldest first, like streamable sessions. 10 places, 10
// idle streams from one address: a stream from another address gets the
// eleventh place, and the two oldest streams are closed (the server drops
// under nine tenths). Before, streams were never ended and the newcomer got
// 503.
func TestNearlyFullServerEndsIdleSSEStreams(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxSessions: 10, MaxSessionsPerClient: 10, SessionIdleUnderPressure: time.Nanosecond})
	hog := dialFrom(t, "127.0.0.1")
	var ended []<-chan struct{}
	for i := range 10 {
		status, done := openSSE(t, hog, srv.base)
		if status != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, status)
		}
		ended = append(ended, done)
	}
	if status, _ := openSSE(t, dialFrom(t, "127.0.0.2"), srv.base); status != http.StatusOK {
		t.Fatalf("a stream from another address on a full server of idle streams: %d, want 200", status)
	}
	for i := range 2 {
		select {
		case <-ended[i]:
		case <-time.After(testTimeout):
			t.Fatalf("stream %d, among the two idle longest, was not ended", i+1)
		}
	}
	waitSessions(t, srv.base, 9)
	for i := 2; i < 10; i++ {
		select {
		case <-ended[i]:
			t.Errorf("stream %d was ended; only the two oldest should be", i+1)
		default:
		}
	}
}

// TestClientAtItsBoundEndsItsOwnIdleWebSocket: a client at its bound that
// opens another WebSocket ends its own connection idle longest, which gets
// close 1013 (try again later), rather than being refused; a connection
// with a call running is not idle. Before, WebSocket connections were never
// ended and the newcomer got 429.
func TestClientAtItsBoundEndsItsOwnIdleWebSocket(t *testing.T) {
	g := newGate()
	srv := serveNetwork(t, KindWebSocket, newTestServer(g), Options{MaxSessionsPerClient: 3, SessionIdleUnderPressure: time.Nanosecond})
	busy := mustDialWS(t, srv.base)
	if _, err := busy.send("tools/call", callParams("block", nil)); err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)
	idle := mustDialWS(t, srv.base)
	mustDialWS(t, srv.base)
	_, resp, err := dialWS(t, srv.base, nil, "mcp")
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("a fourth connection from a client at its bound of 3 with idle ones: %d, %v; want it admitted", status, err)
	}
	_ = idle.conn.SetReadDeadline(time.Now().Add(testTimeout))
	_, _, err = idle.conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseTryAgainLater {
		t.Fatalf("the idle connection read %v; want close 1013", err)
	}
	g.open()
	if m, err := busy.read(); err != nil || toolText(m) == "" {
		t.Fatalf("the busy connection's call: %v %v; want its answer", m, err)
	}
}

// TestRemoteClientBehindTrustedProxyIsBounded: behind a trusted proxy each
// client is its forwarded address, bounded by the default 16 sessions
// while the proxy's own loopback address is not what counts; the 429 and
// its log line name the setting that raises the bound. Before, every
// client had the proxy's address: the 17th session of anyone was refused.
func TestRemoteClientBehindTrustedProxyIsBounded(t *testing.T) {
	proxies, _ := ParseTrustedProxies("127.0.0.1")
	logs := &logbuf.Buffer{}
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{TrustedProxies: proxies, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	proxy := dialFrom(t, "127.0.0.1")
	from := func(ip string) http.Header { return http.Header{"X-Forwarded-For": {ip}} }
	ok, limited := 0, 0
	for i := range 20 {
		status, _, body := post(t, proxy, srv.base, from("203.0.113.1"), initFrame)
		switch {
		case status == 200:
			ok++
		case status == http.StatusTooManyRequests && strings.Contains(body, "your address holds 16") && strings.Contains(body, "MCP_MAX_SESSIONS_PER_CLIENT"):
			limited++
		default:
			t.Fatalf("initialize %d: %d %s", i+1, status, body)
		}
	}
	if ok != DefaultMaxSessionsPerClient || limited != 20-DefaultMaxSessionsPerClient {
		t.Fatalf("20 initializes of one remote client: %d sessions, %d refused; want %d and %d", ok, limited, DefaultMaxSessionsPerClient, 20-DefaultMaxSessionsPerClient)
	}
	if status, id, body := post(t, proxy, srv.base, from("203.0.113.2"), initFrame); status != 200 || id == "" {
		t.Fatalf("another client through the same proxy: %d %s", status, body)
	}
	refusals := logs.Messages(t, "refused a session: the client holds its most")
	if len(refusals) != 4 || refusals[0]["client"] != "addr:203.0.113.1" || refusals[0]["setting"] != "MCP_MAX_SESSIONS_PER_CLIENT" || refusals[0]["limit"] != 16.0 {
		t.Fatalf("refusal log lines %v; want 4 naming the client, the limit and MCP_MAX_SESSIONS_PER_CLIENT", refusals)
	}
}

// TestForwardedForFromUntrustedPeerDoesNotEscapeTheBound: a peer that is
// not a trusted proxy cannot spread its sessions over made-up addresses
// with X-Forwarded-For: all 10 count against its own bound of 4.
func TestForwardedForFromUntrustedPeerDoesNotEscapeTheBound(t *testing.T) {
	proxies, _ := ParseTrustedProxies("127.0.0.1")
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{TrustedProxies: proxies, MaxSessionsPerClient: 4})
	spoofer := dialFrom(t, "127.0.0.2")
	ok := 0
	for i := range 10 {
		status, _, _ := post(t, spoofer, srv.base, http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", i+1)}}, initFrame)
		if status == 200 {
			ok++
		}
	}
	if ok != 4 {
		t.Fatalf("10 initializes from an untrusted peer, each claiming another address: %d sessions; want its bound, 4", ok)
	}
}
