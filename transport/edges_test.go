package transport

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestRepeatedMembersInsideParams: a name repeated in any object inside
// params is refused like one repeated at the top level, since mcp-go would
// act on the last while a check may have read the first; the refusal
// echoes the id. Names repeated in different objects, and case variants
// below params' own members, are distinct names.
func TestRepeatedMembersInsideParams(t *testing.T) {
	cases := []struct {
		params, repeated string
	}{
		{`{"name":"echo","name":"block"}`, "name"},
		{`{"name":"echo","NAME":"block"}`, "NAME"},
		{`{"name":"echo","arguments":{"text":"a","text":"b"}}`, "text"},
		{`{"name":"echo","arguments":{"list":[{"a":1},{"b":{"c":1,"c":2}}]}}`, "c"},
		{`{"_meta":{"progressToken":1,"progressToken":2},"name":"echo"}`, "progressToken"},
		{`[{"a":1,"a":1}]`, "a"},
		{`{"name":"echo","arguments":{"text":"a","Text":"b"},"x":{"text":1}}`, ""},
		{`{"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":2}],"d":"k","e":["k","k"]}`, ""},
	}
	for _, tc := range cases {
		m := classify([]byte(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":` + tc.params + `}`))
		if tc.repeated == "" {
			if m.kind != msgRequest {
				t.Errorf("params %s: refused (%s), want it passed on", tc.params, m.problem)
			}
			continue
		}
		code, text, refused := m.refusal()
		if !refused || code != codeInvalidRequest || string(m.id) != "41" || !strings.Contains(text, `"`+tc.repeated+`" appears more than once`) {
			t.Errorf("params %s: kind %d code %d id %s %q; want -32600 with id 41 naming %q", tc.params, m.kind, code, m.id, text, tc.repeated)
		}
	}
	// A notification is never answered, not even to refuse it.
	if m := classify([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`)); m.kind != msgIgnored {
		t.Errorf("a notification with a repeated member: kind %d, want it dropped unanswered", m.kind)
	} else if code, _, refused := m.refusal(); !refused || code != 0 {
		t.Errorf("a dropped notification: refusal code %d refused %v, want no answer", code, refused)
	}
	// The same on the wire.
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)
	got, err := c.call("tools/call", map[string]any{"name": "echo", "arguments": rawJSON(`{"text":"a","text":"b"}`)})
	if err != nil || got.Error == nil || got.Error.Code != codeInvalidRequest || !strings.Contains(got.Error.Message, `"text" appears more than once`) {
		t.Fatalf("a call with a repeated argument: %+v %v, want -32600 naming it", got, err)
	}
}

// rawJSON is JSON passed through encoding untouched.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestWebSocketInvalidUTF8ClosesWith1007: a text frame that is not UTF-8
// fails the connection with close code 1007, as RFC 6455 requires.
func TestWebSocketInvalidUTF8ClosesWith1007(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	c := mustDialWS(t, srv.base)
	if err := c.conn.WriteMessage(websocket.TextMessage, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}")); err != nil {
		t.Fatal(err)
	}
	m, err := c.read()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseInvalidFramePayloadData {
		t.Fatalf("after a text frame of invalid UTF-8: %+v %v, want close 1007", m, err)
	}
}

// TestBearerSchemeInAnyCase: the auth scheme name is matched without
// regard to case (RFC 7235); the token itself is not.
func TestBearerSchemeInAnyCase(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{AuthToken: testToken})
	// A path no route serves: past the token check it is a 404.
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		if code, _, _ := doRequestHeader(t, http.MethodGet, srv.base+"/nowhere", http.Header{"Authorization": {scheme + " " + testToken}}, nil); code != http.StatusNotFound {
			t.Errorf("scheme %q with the right token: %d, want 404 (admitted, no such route)", scheme, code)
		}
	}
	for _, h := range []string{"Basic " + testToken, "Bearer " + strings.ToUpper(testToken), "Bearer" + testToken} {
		if code, _, _ := doRequestHeader(t, http.MethodGet, srv.base+"/nowhere", http.Header{"Authorization": {h}}, nil); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", h, code)
		}
	}
}

// heldCall is the answer to a streamable HTTP call, as a client reads it.
type heldCall struct {
	status int
	body   string
	err    error
}

// startHeldCall opens a session and sends a call that waits in the block
// tool until g opens; its answer arrives on the channel. It returns once
// the call has reached the tool.
func startHeldCall(t *testing.T, c *http.Client, base string, g *gate) <-chan heldCall {
	t.Helper()
	_, session, _ := post(t, c, base, nil, initFrame)
	answered := make(chan heldCall, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":"held","method":"tools/call","params":{"name":"block","arguments":{"label":"held"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := c.Do(req)
		if err != nil {
			answered <- heldCall{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- heldCall{resp.StatusCode, string(b), err}
	}()
	g.waitEntered(t)
	return answered
}

// TestDrainingIsVisible: once shutdown begins, /healthz says "draining"
// (503) while a call is still running, rather than the listener being
// gone, and the call may still finish with its own answer. The grace
// period outlasts the test's own deadline, so however slowly /healthz is
// asked, the call is what keeps the server draining.
func TestDrainingIsVisible(t *testing.T) {
	g := newGate()
	defer g.open()
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{ShutdownTimeout: 3 * testTimeout})
	c := newHTTPClient(t)
	answered := startHeldCall(t, c, srv.base, g)
	stopped := make(chan error, 1)
	go func() { stopped <- srv.stop() }()
	for deadline := time.Now().Add(testTimeout); ; time.Sleep(5 * time.Millisecond) {
		resp, err := c.Get(srv.base + "/healthz")
		if err != nil {
			t.Fatalf("/healthz while a call is draining: %v; want the listener still open saying draining", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(b), `"status":"draining"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz never said draining: %d %s", resp.StatusCode, b)
		}
	}
	g.open()
	a := <-answered
	if a.err != nil || a.status != http.StatusOK || !strings.Contains(a.body, `"id":"held"`) || !strings.Contains(a.body, "released: held") {
		t.Fatalf("the call that finished while draining: %d %q %v; want 200 with its own result for id held", a.status, a.body, a.err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// TestCallsInFlightGetAnErrorAtShutdown: a streamable HTTP call still
// running when the grace period ends is answered with a JSON-RPC error
// instead of a cut connection, and Serve returns. The call never finishes
// on its own, so the grace period can be short.
func TestCallsInFlightGetAnErrorAtShutdown(t *testing.T) {
	g := newGate()
	defer g.open()
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{ShutdownTimeout: 200 * time.Millisecond})
	answered := startHeldCall(t, newHTTPClient(t), srv.base, g)
	stopped := make(chan error, 1)
	go func() { stopped <- srv.stop() }()
	a := <-answered
	if a.err != nil || a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, `"id":"held"`) || !strings.Contains(a.body, msgAbandoned) {
		t.Fatalf("the call still running when the grace period ended: %d %q %v; want 503 with a JSON-RPC error for id held", a.status, a.body, a.err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// TestLegacySSECallsInFlightGetAnErrorAtShutdown: on the legacy SSE
// transport too, a call still running when the grace period ends gets a
// JSON-RPC error on its stream before the stream closes.
func TestLegacySSECallsInFlightGetAnErrorAtShutdown(t *testing.T) {
	g := newGate()
	defer g.open()
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{ShutdownTimeout: 500 * time.Millisecond})
	w := newSSEWire(t, srv.base).(*sseWire)
	if status, body := w.post(t, []byte(`{"jsonrpc":"2.0","id":"held-sse","method":"tools/call","params":{"name":"block","arguments":{"label":"held"}}}`)); status != http.StatusAccepted {
		t.Fatalf("call: %d %s", status, body)
	}
	g.waitEntered(t)
	stopped := make(chan error, 1)
	go func() { stopped <- srv.stop() }()
	m, err := w.read()
	if err != nil || string(m.ID) != `"held-sse"` || m.Error == nil || m.Error.Code != codeServerBusy || m.Error.Message != msgAbandoned {
		t.Fatalf("the call still running when the grace period ended: %+v %v; want -32000 %q for id held-sse", m, err, msgAbandoned)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}
