package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A wireSession is one initialized MCP session driven with raw bytes, so
// that tests can send what no well-behaved client would.
type wireSession interface {
	// exchange sends frame, then an echo call as a probe, and returns every
	// message that came back for frame, reading until the probe and at
	// least want others are answered. The probe's answer is checked: it
	// proves the session survived.
	exchange(t *testing.T, frame []byte, want int) []rpcMessage
}

// probe is the echo call sent after each frame under test.
func probe(n int) (id string, frame []byte) {
	id = fmt.Sprintf("probe-%d", n)
	frame = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, id)
	return id, frame
}

// checkProbe fails unless m is the echo of probe id.
func checkProbe(t *testing.T, m rpcMessage, id string) {
	t.Helper()
	if got := toolText(m); got != "echo: "+id {
		t.Fatalf("the session did not survive: probe %s answered %q", id, got)
	}
}

// isProbe reports whether m answers probe id.
func isProbe(m rpcMessage, id string) bool { return string(m.ID) == fmt.Sprintf("%q", id) }

// --- WebSocket

type wsWire struct {
	c *wsClient
	n int
}

func newWSWire(t *testing.T, base string) wireSession { return &wsWire{c: mustDialWS(t, base)} }

func (w *wsWire) exchange(t *testing.T, frame []byte, want int) []rpcMessage {
	t.Helper()
	w.n++
	id, pr := probe(w.n)
	for _, f := range [][]byte{frame, pr} {
		if err := w.c.conn.WriteMessage(websocket.TextMessage, f); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	return collect(t, id, want, nil, w.c.read)
}

// collect reads messages until the probe's answer and at least want others
// have arrived: requests run concurrently, so either may come first. got
// holds answers that came by another way.
func collect(t *testing.T, id string, want int, got []rpcMessage, read func() (rpcMessage, error)) []rpcMessage {
	t.Helper()
	probed := false
	for !probed || len(got) < want {
		m, err := read()
		if err != nil {
			t.Fatalf("reading answers (probe seen: %v, others: %d): %v", probed, len(got), err)
		}
		if isProbe(m, id) {
			checkProbe(t, m, id)
			probed = true
			continue
		}
		got = append(got, m)
	}
	return got
}

// --- stdio

type stdioWire struct {
	raw *rawStdio
	n   int
}

func newStdioWire(t *testing.T) wireSession {
	r := startStdio(t, newTestServer(newGate()), Options{})
	s := newRawStdio(t, r)
	s.write(stdioInit)
	if m := s.read(); m.Error != nil {
		t.Fatalf("initialize: %+v", m.Error)
	}
	s.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return &stdioWire{raw: s}
}

func (w *stdioWire) exchange(t *testing.T, frame []byte, want int) []rpcMessage {
	t.Helper()
	w.n++
	id, pr := probe(w.n)
	w.raw.write(string(frame))
	w.raw.write(string(pr))
	return collect(t, id, want, nil, func() (rpcMessage, error) { return w.raw.read(), nil })
}

// --- streamable HTTP

// streamWire is a streamable HTTP session: every message is a POST to /mcp
// carrying the session ID, answered in the response body.
type streamWire struct {
	base, session string
	hc            *http.Client
	n             int
}

const initFrame = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`

func newStreamWire(t *testing.T, base string) *streamWire {
	t.Helper()
	w := &streamWire{base: base, hc: newHTTPClient(t)}
	status, header, msgs := w.post(t, []byte(initFrame))
	w.session = header.Get("Mcp-Session-Id")
	if status != http.StatusOK || w.session == "" || len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("initialize: status %d, session %q, answers %+v", status, w.session, msgs)
	}
	if status, _, _ := w.post(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, want 202", status)
	}
	t.Cleanup(w.close)
	return w
}

// close ends the session as a polite client does, with DELETE.
func (w *streamWire) close() {
	req, err := http.NewRequest(http.MethodDelete, w.base+"/mcp", nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", w.session)
	if resp, err := w.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// post sends one body and returns the status, headers and the JSON-RPC
// messages of the answer, whether sent as JSON or as an event stream.
func (w *streamWire) post(t *testing.T, body []byte) (int, http.Header, []rpcMessage) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.base+"/mcp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if w.session != "" {
		req.Header.Set("Mcp-Session-Id", w.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		t.Fatalf("POST /mcp: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, parseMessages(t, resp.Header.Get("Content-Type"), raw)
}

// parseMessages reads JSON-RPC messages from a JSON body or from the data
// lines of an event stream.
func parseMessages(t *testing.T, contentType string, raw []byte) []rpcMessage {
	t.Helper()
	var out []rpcMessage
	for _, d := range rawMessages(contentType, raw) {
		var m rpcMessage
		if err := json.Unmarshal(d, &m); err != nil {
			t.Fatalf("answer %q is not a JSON-RPC message: %v", d, err)
		}
		out = append(out, m)
	}
	return out
}

func (w *streamWire) exchange(t *testing.T, frame []byte, _ int) []rpcMessage {
	t.Helper()
	w.n++
	_, _, got := w.post(t, frame)
	id, pr := probe(w.n)
	_, _, answers := w.post(t, pr)
	if len(answers) != 1 {
		t.Fatalf("probe %s: %d answers, want 1", id, len(answers))
	}
	checkProbe(t, answers[0], id)
	return got
}

// --- legacy HTTP+SSE

// sseWire is a legacy SSE session: an event stream from GET /sse and POSTs
// to the message endpoint it names. A POST is refused in its own response or
// accepted with 202 and answered on the stream.
type sseWire struct {
	endpoint string
	hc       *http.Client
	events   chan json.RawMessage // data of each message event
	n        int
}

func newSSEWire(t *testing.T, base string) wireSession {
	t.Helper()
	w := &sseWire{hc: newHTTPClient(t), events: make(chan json.RawMessage, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := w.hc.Do(req)
	if err != nil {
		t.Fatalf("GET /sse: %v", err)
	}
	endpoint := make(chan string, 1)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event:"):
				event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
				if event == "endpoint" {
					endpoint <- data
					continue
				}
				select {
				case w.events <- json.RawMessage(data):
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	select {
	case ep := <-endpoint:
		w.endpoint = base + ep
	case <-time.After(testTimeout):
		t.Fatal("no endpoint event on /sse")
	}
	if got := w.exchangeOne(t, []byte(initFrame)); len(got) != 1 || got[0].Error != nil {
		t.Fatalf("initialize: %+v", got)
	}
	if status, _ := w.post(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, want 202", status)
	}
	return w
}

func (w *sseWire) post(t *testing.T, body []byte) (int, []byte) {
	t.Helper()
	resp, err := w.hc.Post(w.endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", w.endpoint, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func (w *sseWire) read() (rpcMessage, error) {
	var m rpcMessage
	data, err := w.readRaw(testTimeout)
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	return m, err
}

// readRaw returns the data of the next message event.
func (w *sseWire) readRaw(wait time.Duration) (json.RawMessage, error) {
	select {
	case d := <-w.events:
		return d, nil
	case <-time.After(wait):
		return nil, fmt.Errorf("no event on the stream within %v", wait)
	}
}

// exchangeOne posts body and returns its answer: the POST's own body when it
// was refused, otherwise the next message on the stream.
func (w *sseWire) exchangeOne(t *testing.T, body []byte) []rpcMessage {
	t.Helper()
	status, raw := w.post(t, body)
	if status != http.StatusAccepted {
		return parseMessages(t, "application/json", raw)
	}
	m, err := w.read()
	if err != nil {
		t.Fatal(err)
	}
	return []rpcMessage{m}
}

func (w *sseWire) exchange(t *testing.T, frame []byte, want int) []rpcMessage {
	t.Helper()
	w.n++
	status, raw := w.post(t, frame)
	var direct []rpcMessage
	if status != http.StatusAccepted {
		direct = parseMessages(t, "application/json", raw)
	}
	id, pr := probe(w.n)
	if status, raw := w.post(t, pr); status != http.StatusAccepted {
		t.Fatalf("probe %s refused: %d %s", id, status, raw)
	}
	return collect(t, id, want, direct, w.read)
}

// malformedFrames are messages no correct client sends, with the error the
// JSON-RPC 2.0 spec asks for: -32700 for text that is not JSON, -32600 for
// JSON that is not a valid request object, -32601 for an unknown method,
// -32602 for bad parameters. code 0 means no answer: the message is a
// well-formed notification or response, which JSON-RPC never answers.
var malformedFrames = []struct {
	name  string
	frame string
	code  int
	id    string // the id the error must carry: the request's when it could be read, else null
}{
	{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, "null"},
	{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"} }`, -32700, "null"},
	{"trailing word", `{"jsonrpc":"2.0","id":1,"method":"ping"} xyz`, -32700, "null"},
	{"vertical tab after", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\v", -32700, "null"},
	{"form feed before", "\f{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", -32700, "null"},
	{"no-break space after", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\u00a0", -32700, "null"},
	{"NEL after", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\u0085", -32700, "null"},
	{"bare string", `"tools/list"`, -32600, "null"},
	{"bare number", `0`, -32600, "null"},
	{"batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, "null"},
	{"empty batch", `[]`, -32600, "null"},
	{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}`, -32600, "3"},
	{"no method", `{"jsonrpc":"2.0","id":4}`, -32600, "4"},
	{"empty method", `{"jsonrpc":"2.0","id":10,"method":""}`, -32600, "10"},
	{"wrong version", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5"},
	{"no version", `{"id":11,"method":"ping"}`, -32600, "11"},
	{"id an object", `{"jsonrpc":"2.0","id":{"n":12},"method":"ping"}`, -32600, "null"},
	{"id a bool", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
	{"huge id", `{"jsonrpc":"2.0","id":1e999,"method":"ping"}`, -32600, "null"},
	{"params a string", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"echo"}`, -32600, "8"},
	{"params a number", `{"jsonrpc":"2.0","id":13,"method":"ping","params":1}`, -32600, "13"},
	{"request and result", `{"jsonrpc":"2.0","id":14,"method":"ping","result":{}}`, -32600, "14"},
	{"result and error", `{"jsonrpc":"2.0","id":15,"result":{},"error":{"code":1,"message":"m"}}`, -32600, "15"},
	{"member name in capitals", `{"jsonrpc":"2.0","id":16,"METHOD":"ping"}`, -32600, "null"},
	{"member name twice", `{"jsonrpc":"2.0","id":17,"method":"ping","method":"tools/list"}`, -32600, "null"},
	{"notification, method not a string", `{"jsonrpc":"2.0","method":7}`, -32600, "null"},
	{"notification, params a string", `{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}`, -32600, "null"},
	{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"sheep/shear"}`, -32601, "6"},
	{"unknown tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shear","arguments":{}}}`, -32602, "7"},
	{"deep nesting", `{"jsonrpc":"2.0","id":9,"method":"ping","params":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat(`}`, 20000) + `}`, -32700, "null"},
	{"unknown notification", `{"jsonrpc":"2.0","method":"sheep/counted"}`, 0, ""},
	{"notification with id null", `{"jsonrpc":"2.0","id":null,"method":"sheep/counted"}`, 0, ""},
	{"cancelling nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}`, 0, ""},
	{"unsolicited result", `{"jsonrpc":"2.0","id":"nobody","result":{}}`, 0, ""},
}

// afterSilence is a call sent after a frame that must get no answer: an
// answer to that frame arriving late would show up before this one's.
const afterSilence = `{"jsonrpc":"2.0","id":"after-silence","method":"ping"}`

// TestMalformedJSONRPC sends each transport what a broken or hostile client
// might, and checks that all four answer each message alike, with the
// JSON-RPC error the spec names, and that the session answers the next call.
func TestMalformedJSONRPC(t *testing.T) {
	g := newGate()
	hs := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{})
	ws := serveNetwork(t, KindWebSocket, newTestServer(g), Options{})
	wires := []struct {
		name string
		open func(t *testing.T) wireSession
	}{
		{"websocket", func(t *testing.T) wireSession { return newWSWire(t, ws.base) }},
		{"streamable", func(t *testing.T) wireSession { return newStreamWire(t, hs.base) }},
		{"sse", func(t *testing.T) wireSession { return newSSEWire(t, hs.base) }},
		{"stdio", func(t *testing.T) wireSession { return newStdioWire(t) }},
	}
	for _, wire := range wires {
		t.Run(wire.name, func(t *testing.T) {
			w := wire.open(t)
			for _, f := range malformedFrames {
				if f.code == 0 {
					got := w.exchange(t, []byte(f.frame), 0)
					after := w.exchange(t, []byte(afterSilence), 1)
					if len(got) != 0 || len(after) != 1 || string(after[0].ID) != `"after-silence"` || after[0].Error != nil {
						t.Errorf("%s: answers %s, then %s; want none, then the ping's result", f.name, describeAnswers(got), describeAnswers(after))
					}
					continue
				}
				got := w.exchange(t, []byte(f.frame), 1)
				if len(got) != 1 || got[0].Error == nil {
					t.Errorf("%s: answers %s, want one error %d", f.name, describeAnswers(got), f.code)
					continue
				}
				e, id := got[0].Error, string(got[0].ID)
				if e.Code != f.code || e.Message == "" || id != f.id {
					t.Errorf("%s: error %d %q with id %s, want %d with id %s", f.name, e.Code, e.Message, id, f.code, f.id)
				}
			}
		})
	}
}

func describeAnswers(ms []rpcMessage) string {
	var parts []string
	for _, m := range ms {
		if m.Error != nil {
			parts = append(parts, fmt.Sprintf("{id %s error %d %q}", m.ID, m.Error.Code, m.Error.Message))
		} else {
			parts = append(parts, fmt.Sprintf("{id %s result %.60s}", m.ID, m.Result))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// TestSlowHeadersAreCutOff: a client that sends its request headers a byte
// at a time (slowloris) is disconnected once ReadHeaderTimeout passes, long
// before it could finish, on every listener the transports open.
func TestSlowHeadersAreCutOff(t *testing.T) {
	const limit = 300 * time.Millisecond
	opts := Options{ReadHeaderTimeout: limit}
	listeners := []struct {
		name string
		addr func(t *testing.T) string
	}{
		{"http-sse", func(t *testing.T) string { return serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), opts).addr }},
		{"websocket", func(t *testing.T) string { return serveNetwork(t, KindWebSocket, newTestServer(newGate()), opts).addr }},
		{"stdio health", func(t *testing.T) string {
			addr := freeAddr(t)
			o := opts
			o.HealthAddr = addr
			startStdio(t, newTestServer(newGate()), o)
			waitHealthStatus(t, "http://"+addr, "ok")
			return addr
		}},
	}
	// A byte every gap, the whole request takes longer than testTimeout:
	// a server that let it finish would have waited out the test's own
	// deadline, so no clock but that one decides the outcome.
	const gap = 50 * time.Millisecond
	req := "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: " + strings.Repeat("s", int(testTimeout/gap)) + "\r\n\r\n"
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", l.addr(t))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			closed := make(chan []byte, 1)
			go func() { b, _ := io.ReadAll(conn); closed <- b }()
			start := time.Now()
			sent := 0
			var answer []byte
			cut := false
			for !cut && sent < len(req) {
				select {
				case answer = <-closed:
					cut = true
					continue
				case <-time.After(gap):
				}
				if _, err := conn.Write([]byte{req[sent]}); err != nil {
					break
				}
				sent++
			}
			if !cut {
				select {
				case answer = <-closed:
				case <-time.After(testTimeout):
					t.Fatal("the connection is still open")
				}
			}
			took := time.Since(start)
			// How soon the cut came is left to the machine's load; that
			// it came before the request was whole is what counts.
			if sent == len(req) {
				t.Fatalf("the server let a byte-a-minute client send %d of %d header bytes over %v (limit %v)", sent, len(req), took, limit)
			}
			if bytes.Contains(answer, []byte(`"status"`)) {
				t.Fatalf("the server answered a request whose headers never finished: %q", answer)
			}
		})
	}
}

// TestChunkedBodyLimit: a body sent without Content-Length is held to the
// same limit as one that declares its length, and refused with 413 naming it.
func TestChunkedBodyLimit(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxBodyBytes: 1024})
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, strings.Repeat("x", 4096))
	for _, path := range []string{"/mcp", "/message?sessionId=none"} {
		t.Run(path, func(t *testing.T) {
			// A reader of unknown length makes the client send it chunked.
			req, err := http.NewRequest(http.MethodPost, srv.base+path, io.MultiReader(strings.NewReader(big)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := newHTTPClient(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var m rpcMessage
			_ = json.Unmarshal(b, &m)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || m.Error == nil || !strings.Contains(m.Error.Message, "limit of 1024 bytes") {
				t.Errorf("chunked 4 KiB body: %d %s, want 413 with a JSON-RPC error naming the 1024-byte limit", resp.StatusCode, b)
			}
		})
	}
}

// TestWebSocketFrameLimit: messages up to WSReadLimit are served, a larger
// one (also when split into fragments) closes that connection with 1009,
// and the server goes on serving everyone else.
func TestWebSocketFrameLimit(t *testing.T) {
	const limit = 4096
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{WSReadLimit: limit})
	bystander := mustDialWS(t, srv.base)
	msg := func(n int) []byte {
		head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
		tail := `"}}}`
		return []byte(head + strings.Repeat("w", n-len(head)-len(tail)) + tail)
	}
	c := mustDialWS(t, srv.base)
	if err := c.conn.WriteMessage(websocket.TextMessage, msg(limit)); err != nil {
		t.Fatal(err)
	}
	if m, err := c.read(); err != nil || !strings.HasPrefix(toolText(m), "echo: www") {
		t.Fatalf("a message of exactly the limit: %v %q, want its echo", err, toolText(m))
	}
	for _, fragmented := range []bool{false, true} {
		c := mustDialWS(t, srv.base)
		big := msg(limit + 1)
		if fragmented {
			w, err := c.conn.NextWriter(websocket.TextMessage)
			if err != nil {
				t.Fatal(err)
			}
			for chunk := range slices.Chunk(big, 512) {
				if _, err := w.Write(chunk); err != nil {
					t.Fatal(err)
				}
			}
			_ = w.Close()
		} else if err := c.conn.WriteMessage(websocket.TextMessage, big); err != nil {
			t.Fatal(err)
		}
		_, err := c.read()
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
			t.Errorf("one byte over the limit (fragmented %v): %v, want close 1009", fragmented, err)
		}
	}
	res, err := bystander.call("tools/call", callParams("echo", map[string]any{"text": "unaffected"}))
	if err != nil || toolText(res) != "echo: unaffected" {
		t.Fatalf("another connection after the oversize ones: %q %v", toolText(res), err)
	}
}

// TestSessionCapRefusesClearlyAndFrees: past MaxSessions a new session is
// refused with 503, Retry-After and a JSON-RPC error naming the cap; once a
// session closes, a new one gets in.
func TestSessionCapRefusesClearlyAndFrees(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{MaxSessions: 2})
	first := mustDialWS(t, srv.base)
	mustDialWS(t, srv.base)
	_, resp, err := dialWS(t, srv.base, nil, "mcp")
	if err == nil || resp == nil {
		t.Fatalf("third session: err %v, want a refused handshake", err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third session: status %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// gorilla has consumed the refusal's body; ask again over plain HTTP to read it.
	status, body := getJSON(t, srv.base+"/ws", http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"},
		"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}})
	if msg := errorMessage(body); status != http.StatusServiceUnavailable || !strings.Contains(msg, "2 sessions are open") {
		t.Fatalf("refusal body: %d %v, want a JSON-RPC error naming the cap of 2", status, body)
	}
	if e, _ := body["error"].(map[string]any); e["code"] != float64(codeServerBusy) {
		t.Errorf("refusal code %v, want %d", e["code"], codeServerBusy)
	}
	first.conn.Close()
	waitSessions(t, srv.base, 1)
	mustDialWS(t, srv.base)
}
