package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// fuzzSeeds are messages for both transport fuzz targets: well-formed MCP,
// broken JSON, wrong JSON-RPC shapes, deep nesting and huge numbers.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"ewe"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"result":{}}`,
	`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":"text"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"debug"}}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-0.0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":8,"method":"ping"}`,
	`{"ID":9,"METHOD":"ping","JSONRPC":"2.0"}`,
	`{"jsonrpc":"2.0","id":10,"method":"ping","method":5}`,
	`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
	`[{"jsonrpc":"2.0","id":11,"method":"ping"}]`,
	`[]`, `{}`, `null`, `0`, `"x"`, ``, ` `, "\x00", "\xff\xfe",
	`{"jsonrpc":"2.0","id":12,"method":`,
	strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000),
	`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":` + strings.Repeat(`{"a":`, 12000) + `1` + strings.Repeat(`}`, 12000) + `}`,
	`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"text":` + strings.Repeat("9", 400) + `}}}`,
}

// fuzzServer has one tool that answers at once, so that no message a fuzzer
// makes up can hold a call open.
func fuzzServer() *server.MCPServer {
	s := server.NewMCPServer("transport-test", "1.0.0", server.WithToolCapabilities(false), server.WithLogging())
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	return s
}

// serveForFuzz runs kind for the rest of the fuzz target and returns its
// base URL.
func serveForFuzz(f *testing.F, kind string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, kind, fuzzServer(), Options{Listener: ln, Logger: slog.New(slog.DiscardHandler)})
	}()
	f.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			f.Error(err)
		}
	})
	return "http://" + ln.Addr().String()
}

// fuzzProbeID is the id of the call that checks a session after each input;
// inputs that mention it are left alone, so that no answer is ambiguous.
const fuzzProbeID = "zz-probe-7d1"

var fuzzProbe = []byte(`{"jsonrpc":"2.0","id":"` + fuzzProbeID + `","method":"tools/call","params":{"name":"echo","arguments":{"text":"alive"}}}`)

// The error codes a server may answer a made-up message with. -32603
// (internal error) is not among them: it means a handler broke.
var fuzzCodes = []int{-32700, -32600, -32601, -32602, codeServerBusy}

// expectation is what JSON-RPC 2.0 requires in answer to one message.
// The zero value, for a response from the client, allows at most one answer.
type expectation struct {
	code      int             // -32700 or -32600: exactly one such error
	errID     json.RawMessage // the id that error carries; nil means null
	requestID json.RawMessage // a valid request: exactly one answer with this id
	silent    bool            // a valid notification: no answer at all
}

// response reports whether e is for a response from the client.
func (e expectation) response() bool { return e.code == 0 && e.requestID == nil && !e.silent }

// expect reads msg the way JSON-RPC 2.0 defines it: JSON whitespace only,
// case-sensitive member names, each at most once.
func expect(msg []byte) expectation {
	msg = bytes.Trim(msg, " \t\r\n")
	if !json.Valid(msg) {
		return expectation{code: -32700}
	}
	var obj map[string]json.RawMessage
	if msg[0] != '{' || ambiguousNames(msg) || json.Unmarshal(msg, &obj) != nil {
		return expectation{code: -32600}
	}
	id, hasID := obj["id"]
	if hasID && string(id) == "null" {
		id = nil
	} else if _, ok := idValue(id); hasID && !ok {
		return expectation{code: -32600}
	}
	bad := expectation{code: -32600, errID: id}
	var version, method string
	if json.Unmarshal(obj["jsonrpc"], &version) != nil || version != "2.0" {
		return bad
	}
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	if _, ok := obj["method"]; !ok {
		if hasID && hasResult != hasError {
			return expectation{}
		}
		return bad
	}
	if json.Unmarshal(obj["method"], &method) != nil || method == "" || hasResult || hasError {
		return bad
	}
	if p, ok := obj["params"]; ok && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return bad
	}
	if id == nil {
		return expectation{silent: true}
	}
	if _, repeated := repeatedMember(obj["params"]); repeated {
		return bad
	}
	return expectation{requestID: id}
}

// ambiguousNames reports whether a valid JSON object names a JSON-RPC member
// twice, or in another case: Go would read either as that member.
func ambiguousNames(obj []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(obj))
	_, _ = dec.Token()
	seen := map[string]bool{}
	for dec.More() {
		tok, _ := dec.Token()
		name, _ := tok.(string)
		var skip json.RawMessage
		_ = dec.Decode(&skip)
		for _, m := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if strings.EqualFold(name, m) && (name != m || seen[m]) {
				return true
			}
		}
		seen[name] = true
	}
	return false
}

// idValue decodes a string id or a finite number id, so that ids can be
// compared however they were spelled.
func idValue(id json.RawMessage) (any, bool) {
	if string(bytes.TrimSpace(id)) == "null" {
		return nil, false // an id of null makes a notification of a request
	}
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s, true
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(id)), 64)
	if err != nil || len(id) == 0 {
		return nil, false
	}
	return f, true
}

func sameID(a, b json.RawMessage) bool {
	x, ok1 := idValue(a)
	y, ok2 := idValue(b)
	return ok1 && ok2 && x == y
}

// checkAnswers applies e to the answers msg got (the probe's excluded).
func checkAnswers(t *testing.T, msg []byte, e expectation, answers []json.RawMessage) {
	t.Helper()
	var ms []rpcMessage
	for _, a := range answers {
		var env map[string]json.RawMessage
		var m rpcMessage
		if json.Unmarshal(a, &env) != nil || json.Unmarshal(a, &m) != nil || string(env["jsonrpc"]) != `"2.0"` || (env["result"] == nil) == (env["error"] == nil) {
			t.Fatalf("answer to %q is not a JSON-RPC 2.0 response: %s", msg, a)
		}
		if m.Error != nil && !slices.Contains(fuzzCodes, m.Error.Code) {
			t.Fatalf("answer to %q: error %d %q", msg, m.Error.Code, m.Error.Message)
		}
		ms = append(ms, m)
	}
	switch {
	case e.code != 0:
		if len(ms) != 1 || ms[0].Error == nil || ms[0].Error.Code != e.code || !errorID(ms[0].ID, e.errID) {
			t.Fatalf("answers to %q: %s; want one error %d with id %s", msg, answers, e.code, orNull(e.errID))
		}
	case e.requestID != nil:
		if len(ms) != 1 || !sameID(ms[0].ID, e.requestID) {
			t.Fatalf("answers to request %q: %s; want one answer with id %s", msg, answers, e.requestID)
		}
	case e.silent:
		if len(ms) != 0 {
			t.Fatalf("answers to notification %q: %s; want none", msg, answers)
		}
	default:
		if len(ms) > 1 {
			t.Fatalf("answers to %q: %s; want at most one", msg, answers)
		}
	}
}

// errorID reports whether an error's id is want, or null when want is nil.
func errorID(got, want json.RawMessage) bool {
	if want == nil {
		return string(got) == "null"
	}
	return sameID(got, want)
}

func orNull(id json.RawMessage) string {
	if id == nil {
		return "null"
	}
	return string(id)
}

// fuzzTransport seeds f, serves kind for it and runs check on every input
// that does not mention the probe.
func fuzzTransport(f *testing.F, kind string, check func(t *testing.T, base string, input []byte)) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	base := serveForFuzz(f, kind)
	f.Fuzz(func(t *testing.T, input []byte) {
		if !bytes.Contains(input, []byte(fuzzProbeID)) {
			check(t, base, input)
		}
	})
}

// untilProbe reads messages until the probe's answer has come and, when
// input is a request, its answer too: requests run concurrently, so that
// one may follow the probe's. It returns answers with the messages other
// than the probe's appended.
func untilProbe(t *testing.T, input []byte, e expectation, answers []json.RawMessage, read func() ([]byte, error)) []json.RawMessage {
	t.Helper()
	for probed := false; !probed || (e.requestID != nil && len(answers) == 0); {
		data, err := read()
		if err != nil {
			t.Fatalf("after %q (probe answered: %v): %v", input, probed, err)
		}
		var m rpcMessage
		if json.Unmarshal(data, &m) == nil && string(m.ID) == `"`+fuzzProbeID+`"` {
			if toolText(m) != "echo: alive" {
				t.Fatalf("after %q the probe got %s", input, data)
			}
			probed = true
			continue
		}
		answers = append(answers, data)
	}
	return answers
}

// FuzzWebSocketFrame sends one arbitrary text frame on a fresh, initialized
// WebSocket session and checks the answer JSON-RPC 2.0 requires, then that
// the session still answers a call.
func FuzzWebSocketFrame(f *testing.F) {
	fuzzTransport(f, KindWebSocket, func(t *testing.T, base string, frame []byte) {
		c := mustDialWS(t, base)
		if !utf8.Valid(frame) {
			// RFC 6455: not a text message at all; the connection fails.
			_ = c.conn.WriteMessage(websocket.TextMessage, frame)
			_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, _, err := c.conn.ReadMessage()
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.CloseInvalidFramePayloadData {
				t.Fatalf("after %q: %v, want close 1007", frame, err)
			}
			return
		}
		for _, m := range [][]byte{frame, fuzzProbe} {
			if err := c.conn.WriteMessage(websocket.TextMessage, m); err != nil {
				t.Fatalf("write: %v", err)
			}
		}
		e := expect(frame)
		answers := untilProbe(t, frame, e, nil, func() ([]byte, error) {
			_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, data, err := c.conn.ReadMessage()
			return data, err
		})
		checkAnswers(t, frame, e, answers)
	})
}

// FuzzStreamableBody posts one arbitrary body to /mcp in an initialized
// session and checks the same answers as FuzzWebSocketFrame, in the POST
// response, with no 5xx, then that the session still answers a call.
func FuzzStreamableBody(f *testing.F) {
	fuzzTransport(f, KindHTTPSSE, func(t *testing.T, base string, body []byte) {
		w := newStreamWire(t, base)
		req, err := http.NewRequest(http.MethodPost, w.base+"/mcp", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", w.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := w.hc.Do(req)
		if err != nil {
			t.Fatalf("POST %q: %v", body, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("POST %q: %d %s", body, resp.StatusCode, raw)
		}
		ct := resp.Header.Get("Content-Type")
		e := expect(body)
		if resp.StatusCode >= 400 && !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/event-stream") {
			// mcp-go refuses a response to a request it never sent at the
			// HTTP level, in plain text; nothing else may be refused so.
			if len(raw) == 0 || !e.response() {
				t.Fatalf("POST %q: %d %q", body, resp.StatusCode, raw)
			}
		} else {
			checkAnswers(t, body, e, rawMessages(ct, raw))
		}
		_, _, probe := w.post(t, fuzzProbe)
		if len(probe) != 1 || toolText(probe[0]) != "echo: alive" {
			t.Fatalf("after %q the probe got %+v", body, probe)
		}
	})
}

// rawMessages splits an answer into its messages as written: the body of a
// JSON answer, or the data lines of an event stream.
func rawMessages(contentType string, body []byte) []json.RawMessage {
	if !strings.HasPrefix(contentType, "text/event-stream") {
		if len(bytes.TrimSpace(body)) == 0 {
			return nil
		}
		return []json.RawMessage{body}
	}
	var out []json.RawMessage
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if d, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok {
			out = append(out, bytes.TrimSpace(d))
		}
	}
	return out
}

// FuzzSSEMessage posts one arbitrary body to the legacy message endpoint of
// an initialized SSE session and checks the same answers as the other
// targets: a refused body is answered in the POST response, an accepted one
// on the stream.
func FuzzSSEMessage(f *testing.F) {
	fuzzTransport(f, KindHTTPSSE, func(t *testing.T, base string, body []byte) {
		w := newSSEWire(t, base).(*sseWire)
		status, raw := w.post(t, body)
		if status >= 500 {
			t.Fatalf("POST %q: %d %s", body, status, raw)
		}
		var answers []json.RawMessage
		if status != http.StatusAccepted {
			answers = append(answers, raw)
		}
		if status, raw := w.post(t, fuzzProbe); status != http.StatusAccepted {
			t.Fatalf("after %q the probe was refused: %d %s", body, status, raw)
		}
		e := expect(body)
		answers = untilProbe(t, body, e, answers, func() ([]byte, error) { return w.readRaw(5 * time.Second) })
		checkAnswers(t, body, e, answers)
	})
}
