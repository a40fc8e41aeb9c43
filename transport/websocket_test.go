package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// wsClient is a bare JSON-RPC client over gorilla/websocket, so that tests
// control every frame.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
	next int
}

// rpcMessage is any JSON-RPC message as the client sees it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params map[string]any  `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func wsURL(base string) string { return "ws" + strings.TrimPrefix(base, "http") + "/ws" }

// dialWS opens /ws; header may carry Origin, Host or subprotocols.
func dialWS(t *testing.T, base string, header http.Header, subprotocols ...string) (*wsClient, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: testTimeout, Subprotocols: subprotocols}
	conn, resp, err := d.Dial(wsURL(base), header)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, resp, err
	}
	t.Cleanup(func() { conn.Close() })
	return &wsClient{t: t, conn: conn}, resp, nil
}

// mustDialWS opens /ws and completes the MCP handshake.
func mustDialWS(t *testing.T, base string) *wsClient {
	t.Helper()
	c, _, err := dialWS(t, base, nil, "mcp")
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if err := c.handshake(); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *wsClient) handshake() error {
	res, err := c.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "ws-test", "version": "1"},
	})
	if err != nil {
		return err
	}
	if res.Error != nil || !strings.Contains(string(res.Result), `"transport-test"`) {
		return fmt.Errorf("initialize answered %s %v", res.Result, res.Error)
	}
	return c.writeJSON(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (c *wsClient) writeJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.conn.WriteMessage(websocket.TextMessage, b)
}

// send writes a request and returns its id.
func (c *wsClient) send(method string, params any) (string, error) {
	c.next++
	id := fmt.Sprint(c.next)
	return id, c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
}

// read returns the next message.
func (c *wsClient) read() (rpcMessage, error) {
	var m rpcMessage
	_ = c.conn.SetReadDeadline(time.Now().Add(testTimeout))
	_, data, err := c.conn.ReadMessage()
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("frame %q is not JSON: %w", data, err)
	}
	return m, nil
}

// call sends a request and reads until its answer.
func (c *wsClient) call(method string, params any) (rpcMessage, error) {
	id, err := c.send(method, params)
	if err != nil {
		return rpcMessage{}, err
	}
	for {
		m, err := c.read()
		if err != nil || string(m.ID) == id {
			return m, err
		}
	}
}

// toolText is the first text content of a tools/call result.
func toolText(m rpcMessage) string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(m.Result, &res) != nil || len(res.Content) == 0 {
		return fmt.Sprintf("<no text: result %s error %v>", m.Result, m.Error)
	}
	return res.Content[0].Text
}

func callParams(tool string, args map[string]any) map[string]any {
	return map[string]any{"name": tool, "arguments": args}
}

func TestWebSocketListsAndCallsTools(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)
	list, err := c.call("tools/list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"block"`, `"echo"`, `"log"`, `"progress"`} {
		if !strings.Contains(string(list.Result), name) {
			t.Errorf("tools/list result lacks %s: %s", name, list.Result)
		}
	}
	res, err := c.call("tools/call", callParams("echo", map[string]any{"text": "ram 42"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(res); got != "echo: ram 42" {
		t.Fatalf("echo answered %q, want %q", got, "echo: ram 42")
	}
}

func TestWebSocketEchoesSubprotocol(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	cases := []struct {
		name string
		ask  []string
		want string
	}{
		{"mcp requested", []string{"mcp"}, "mcp"},
		{"mcp among others", []string{"graphql-ws", "mcp"}, "mcp"},
		{"none requested", nil, ""},
		{"unknown only", []string{"graphql-ws"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, resp, err := dialWS(t, srv.base, nil, tc.ask...)
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != tc.want {
				t.Fatalf("Sec-WebSocket-Protocol %q, want %q", got, tc.want)
			}
			if err := c.handshake(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWebSocketBadMessagesKeepTheConnection(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)
	cases := []struct {
		name     string
		frame    []byte
		binary   bool
		wantCode int
		wantID   string
	}{
		{"not json", []byte(`{"jsonrpc":"2.0","id":1,"method":`), false, -32700, "null"},
		{"batch", []byte(`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`), false, -32600, "null"},
		{"no method", []byte(`{"jsonrpc":"2.0","id":3}`), false, -32600, "3"},
		{"binary frame", []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`), true, -32600, "null"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kind := websocket.TextMessage
			if tc.binary {
				kind = websocket.BinaryMessage
			}
			if err := c.conn.WriteMessage(kind, tc.frame); err != nil {
				t.Fatal(err)
			}
			m, err := c.read()
			if err != nil {
				t.Fatal(err)
			}
			if m.Error == nil || m.Error.Code != tc.wantCode || string(m.ID) != tc.wantID {
				t.Fatalf("answer id %s error %+v, want id %s code %d", m.ID, m.Error, tc.wantID, tc.wantCode)
			}
			res, err := c.call("tools/call", callParams("echo", map[string]any{"text": "still here"}))
			if err != nil || toolText(res) != "echo: still here" {
				t.Fatalf("call after a bad frame: %q, %v", toolText(res), err)
			}
		})
	}
}

func TestWebSocketIgnoresResponsesFromTheClient(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`,
	} {
		if err := c.conn.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	// The next frame must be the answer to this call: the two responses
	// above get no reply of their own.
	id, err := c.send("tools/call", callParams("echo", map[string]any{"text": "after"}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != id || toolText(m) != "echo: after" {
		t.Fatalf("first frame after client responses: id %s text %q, want id %s and the echo", m.ID, toolText(m), id)
	}
}

func TestWebSocketOversizeMessageClosesWith1009(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{WSReadLimit: 1024})
	c := mustDialWS(t, srv.base)
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, strings.Repeat("x", 4096))
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	_, err := c.read()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("read after an oversize message: %v, want close 1009", err)
	}
}

func TestWebSocketOriginAndHostChecks(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{AllowedOrigins: []string{"https://flock.example.org"}})
	cases := []struct {
		name       string
		header     http.Header
		wantStatus int
	}{
		{"no origin", nil, http.StatusSwitchingProtocols},
		{"same host", http.Header{"Origin": {srv.base}}, http.StatusSwitchingProtocols},
		{"listed origin", http.Header{"Origin": {"https://flock.example.org"}}, http.StatusSwitchingProtocols},
		{"loopback page", http.Header{"Origin": {"http://localhost:3000"}}, http.StatusSwitchingProtocols},
		{"foreign origin", http.Header{"Origin": {"https://evil.example"}}, http.StatusForbidden},
		{"listed origin on another port", http.Header{"Origin": {"https://flock.example.org:8443"}}, http.StatusForbidden},
		{"rebinding host", http.Header{"Host": {"evil.example"}}, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// gorilla sends a Host given in the header as the request's Host.
			d := websocket.Dialer{HandshakeTimeout: testTimeout}
			conn, resp, err := d.Dial(wsURL(srv.base), tc.header)
			if conn != nil {
				conn.Close()
			}
			if resp == nil {
				t.Fatalf("no HTTP response: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("handshake status %d, want %d (err %v)", resp.StatusCode, tc.wantStatus, err)
			}
		})
	}
}

func TestWebSocketProgressNotificationPrecedesResult(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)
	id, err := c.send("tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "tok-9"}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	if first.Method != "notifications/progress" || first.Params["progressToken"] != "tok-9" || first.Params["message"] != "half way" {
		t.Fatalf("first frame: method %q params %v, want the progress notification for tok-9", first.Method, first.Params)
	}
	second, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	if string(second.ID) != id || toolText(second) != "progress done" {
		t.Fatalf("second frame: id %s text %q, want the result of call %s", second.ID, toolText(second), id)
	}
}

// SC-005 over WebSocket.
func TestWebSocketFiftyConcurrentSessions(t *testing.T) {
	// Every client of the test shares 127.0.0.1.
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{MaxSessionsPerClient: 100})
	const sessions = 50
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Go(func() {
			c, _, err := dialWS(t, srv.base, nil, "mcp")
			if err == nil {
				err = c.handshake()
			}
			if err != nil {
				errs <- fmt.Errorf("session %d: %w", i, err)
				return
			}
			res, err := c.call("tools/call", callParams("echo", map[string]any{"text": fmt.Sprint("session ", i)}))
			if want := fmt.Sprint("echo: session ", i); err == nil && toolText(res) != want {
				err = fmt.Errorf("session %d got %q, want %q", i, toolText(res), want)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	reportErrors(t, errs)
}

func TestWebSocketSlowCallBlocksNothingElse(t *testing.T) {
	g := newGate()
	srv := serveNetwork(t, KindWebSocket, newTestServer(g), Options{})
	c, other := mustDialWS(t, srv.base), mustDialWS(t, srv.base)
	slowID, err := c.send("tools/call", callParams("block", map[string]any{"label": "slow"}))
	if err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)

	// Same connection: the next call is answered first.
	res, err := c.call("tools/call", callParams("echo", map[string]any{"text": "same conn"}))
	if err != nil || toolText(res) != "echo: same conn" {
		t.Fatalf("call behind a slow one on the same connection: %q, %v", toolText(res), err)
	}
	// Another connection is not held up either.
	res, err = other.call("tools/call", callParams("echo", map[string]any{"text": "other conn"}))
	if err != nil || toolText(res) != "echo: other conn" {
		t.Fatalf("call on another connection: %q, %v", toolText(res), err)
	}
	g.open()
	m, err := c.read()
	if err != nil || string(m.ID) != slowID || toolText(m) != "released: slow" {
		t.Fatalf("slow call: id %s text %q err %v, want id %s released", m.ID, toolText(m), err, slowID)
	}
}

func TestWebSocketBoundsCallsPerConnection(t *testing.T) {
	g := newGate()
	defer g.open()
	srv := serveNetwork(t, KindWebSocket, newTestServer(g), Options{MaxInFlightPerSession: 1})
	c := mustDialWS(t, srv.base)
	if _, err := c.send("tools/call", callParams("block", map[string]any{"label": "one"})); err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)
	m, err := c.call("tools/call", callParams("echo", map[string]any{"text": "two"}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, "1 calls are already running") {
		t.Fatalf("second call past the bound: error %+v, want -32000 naming the bound", m.Error)
	}
}

func TestWebSocketShutdownLetsCallsInFlightFinish(t *testing.T) {
	g := newGate()
	srv := serveNetwork(t, KindWebSocket, newTestServer(g), Options{})
	c := mustDialWS(t, srv.base)
	slowID, err := c.send("tools/call", callParams("block", map[string]any{"label": "in flight"}))
	if err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)
	stopped := make(chan error, 1)
	go func() { stopped <- srv.stop() }()
	waitDraining(t, srv.base)

	refused, err := c.call("tools/call", callParams("echo", map[string]any{"text": "late"}))
	if err != nil {
		t.Fatal(err)
	}
	if refused.Error == nil || refused.Error.Code != -32000 || !strings.Contains(refused.Error.Message, "shutting down") {
		t.Fatalf("call made while draining: error %+v, want -32000 shutting down", refused.Error)
	}
	g.open()
	m, err := c.read()
	if err != nil || string(m.ID) != slowID || toolText(m) != "released: in flight" {
		t.Fatalf("call in flight: id %s text %q err %v, want its result", m.ID, toolText(m), err)
	}
	_, err = c.read()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("after the last answer: %v, want close 1001", err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Serve returned %v, want nil", err)
	}
}

// A peer that never answers a ping is dropped after PongTimeout. The
// client reads, so that it sees the server end the connection, but
// ignores pings. Waiting to see one open session first would race the
// 200 ms the session lives.
func TestWebSocketDropsSilentPeer(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{PingInterval: 50 * time.Millisecond, PongTimeout: 200 * time.Millisecond})
	c, _, err := dialWS(t, srv.base, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.conn.SetPingHandler(func(string) error { return nil })
	_ = c.conn.SetReadDeadline(time.Now().Add(testTimeout))
	for {
		if _, _, err = c.conn.ReadMessage(); err != nil {
			break
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the silent peer was still connected after %v", testTimeout)
	}
	waitSessions(t, srv.base, 0)
}

// waitSessions polls /healthz until open_sessions equals want.
func waitSessions(t *testing.T, base string, want int) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	var got any
	for time.Now().Before(deadline) {
		_, body := getJSON(t, base+"/healthz", nil)
		if got = body["open_sessions"]; got == float64(want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("open_sessions stayed %v, want %d", got, want)
}

func TestWebSocketHealthCountsConnections(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{Version: "2.0.0"})
	mustDialWS(t, srv.base)
	mustDialWS(t, srv.base)
	waitSessions(t, srv.base, 2)
	status, body := getJSON(t, srv.base+"/healthz", nil)
	if status != 200 || body["transport"] != "websocket" || body["version"] != "2.0.0" || body["status"] != "ok" {
		t.Fatalf("healthz %d %v, want 200 ok websocket 2.0.0", status, body)
	}
}

func TestWebSocketLogNotificationsFollowTheClientsLevel(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)

	// The default level is error, so an info message is not sent.
	res, err := c.call("tools/call", callParams("log", nil))
	if err != nil || toolText(res) != "logged" {
		t.Fatalf("log call at the default level: %q, %v", toolText(res), err)
	}
	if m, err := c.call("logging/setLevel", map[string]any{"level": "info"}); err != nil || m.Error != nil {
		t.Fatalf("logging/setLevel: %v %+v", err, m.Error)
	}
	id, err := c.send("tools/call", callParams("log", nil))
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.read()
	if err != nil {
		t.Fatal(err)
	}
	if first.Method != "notifications/message" || first.Params["level"] != "info" || first.Params["data"] != "looked up 3 rams" {
		t.Fatalf("first frame after setLevel info: %s %v, want the info log message", first.Method, first.Params)
	}
	if m, err := c.read(); err != nil || string(m.ID) != id {
		t.Fatalf("then: id %s err %v, want the result of call %s", m.ID, err, id)
	}
}

// TestUpgradeThatRacesShutdownIsTurnedAway: a handshake that passed the
// draining check just before shutdown began completes after closeAll has
// gone through the connections. The connection must be closed with
// "going away", not registered behind closeAll's back, where it would
// outlive the server (and race its wait for connections to end).
func TestUpgradeThatRacesShutdownIsTurnedAway(t *testing.T) {
	o := Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}.withDefaults()
	hub := &wsHub{
		site:     newSite(KindWebSocket, o),
		mcp:      server.NewMCPServer("test", "0"),
		conns:    map[*wsConn]struct{}{},
		upgrader: websocket.Upgrader{Subprotocols: []string{wsSubprotocol}},
	}
	hub.closeAll(context.Background())

	// The hub gives the session's place back as its handler returns, which
	// is after the client may already have read the close frame: the count
	// is checked once the handler has returned, not when the close arrives.
	served := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hub.ServeHTTP(w, r)
		served <- struct{}{}
	}))
	defer srv.Close()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+wsPath, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err = conn.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway || ce.Text != "server shutting down" {
		t.Fatalf("read after shutdown began: %v, want close 1001 \"server shutting down\"", err)
	}
	select {
	case <-served:
	case <-time.After(testTimeout):
		t.Fatal("the handler of the refused connection never returned")
	}
	hub.mu.Lock()
	n := len(hub.conns)
	hub.mu.Unlock()
	if n != 0 {
		t.Errorf("%d connections registered after closeAll, want 0", n)
	}
	if s := hub.site.sessions.Load(); s != 0 {
		t.Errorf("open sessions = %d after the refused connection, want 0", s)
	}
}

// A WebSocket connection is its session: when it closes, the calls it
// started end, before mcp-go hears the session has ended, and each call's
// context says so (caller.SessionBound), so that nothing above need end
// them again.
func TestWebSocketClosingEndsItsCalls(t *testing.T) {
	g := newGate()
	defer g.open()
	s := newTestServer(g)
	type seen struct {
		bound bool
		err   error
	}
	// The call's end is a closed channel, not a value passed around, so
	// that the hook's look at it never finds it taken for a moment.
	var got seen
	ended := make(chan struct{})
	s.AddTool(mcp.NewTool("hold"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		g.entered <- "hold"
		<-ctx.Done()
		got = seen{bound: caller.SessionBound(ctx), err: ctx.Err()}
		close(ended)
		return mcp.NewToolResultText("ended"), nil
	})
	unregistered := make(chan bool, 1)
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) {
		select {
		case <-ended:
			unregistered <- true
		default:
			unregistered <- false
		}
	})
	server.WithHooks(hooks)(s)
	srv := serveNetwork(t, KindWebSocket, s, Options{})
	c := mustDialWS(t, srv.base)
	if _, err := c.send("tools/call", callParams("hold", nil)); err != nil {
		t.Fatal(err)
	}
	g.waitEntered(t)
	c.conn.Close()
	<-ended
	if !got.bound || !errors.Is(got.err, context.Canceled) {
		t.Errorf("the call ended with %v, session-bound %v; want cancelled, session-bound", got.err, got.bound)
	}
	if !<-unregistered {
		t.Error("mcp-go heard the session end before its call did")
	}
}
