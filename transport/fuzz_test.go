package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
type expectation struct {
	parseError bool            // not JSON: exactly one -32700
	notObject  bool            // JSON but not an object: exactly one -32600
	requestID  json.RawMessage // a well-formed request: exactly one answer with this id
}

func expect(msg []byte) expectation {
	if !json.Valid(msg) {
		return expectation{parseError: true}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(msg, &obj) != nil {
		return expectation{notObject: true}
	}
	var version, method string
	if json.Unmarshal(obj["jsonrpc"], &version) != nil || version != "2.0" || json.Unmarshal(obj["method"], &method) != nil {
		return expectation{}
	}
	id := obj["id"]
	if _, ok := idValue(id); !ok {
		return expectation{}
	}
	return expectation{requestID: id}
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
	case e.parseError, e.notObject:
		code := -32700
		if e.notObject {
			code = -32600
		}
		if len(ms) != 1 || ms[0].Error == nil || ms[0].Error.Code != code || string(ms[0].ID) != "null" {
			t.Fatalf("answers to %q: %s; want one error %d with id null", msg, answers, code)
		}
	case e.requestID != nil:
		if len(ms) != 1 || !sameID(ms[0].ID, e.requestID) {
			t.Fatalf("answers to request %q: %s; want one answer with id %s", msg, answers, e.requestID)
		}
	default:
		if len(ms) > 1 {
			t.Fatalf("answers to %q: %s; want at most one", msg, answers)
		}
	}
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
// session. mcp-go answers it there, so the codes it gives JSON that is not a
// request are not held to the spec (see malformedGaps); what must hold is no
// 5xx, only well-formed JSON-RPC answers, the right answer to text that is
// not JSON and to well-formed requests, and a session that still answers.
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
		if resp.StatusCode >= 400 && !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "text/event-stream") {
			// mcp-go refuses some bodies at the HTTP level, in plain text
			// (an answer to a request it never sent, for one).
			if len(raw) == 0 {
				t.Fatalf("POST %q: %d with an empty body", body, resp.StatusCode)
			}
		} else {
			checkAnswers(t, body, streamableExpectation(body), rawMessages(ct, raw))
		}
		_, _, probe := w.post(t, fuzzProbe)
		if len(probe) != 1 || toolText(probe[0]) != "echo: alive" {
			t.Fatalf("after %q the probe got %+v", body, probe)
		}
	})
}

// streamableExpectation is expect for /mcp, whose answers to JSON that is
// not a request are mcp-go's own (see malformedGaps). mcp-go also takes a
// request with an empty method for a response and does not answer it.
func streamableExpectation(body []byte) expectation {
	e := expect(body)
	var m struct{ Method string }
	if !e.parseError && (e.requestID == nil || json.Unmarshal(body, &m) == nil && m.Method == "") {
		return expectation{}
	}
	return e
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
// an initialized SSE session. A body mcp-go refuses is answered in the POST
// response; an accepted one on the stream. The codes for JSON that is not a
// request are mcp-go's own, and it runs the first value of a body with
// trailing bytes (see malformedGaps); the rest must hold as on /mcp.
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
		e := sseExpectation(body)
		answers = untilProbe(t, body, e, answers, func() ([]byte, error) { return w.readRaw(5 * time.Second) })
		checkAnswers(t, body, e, answers)
	})
}

// sseExpectation is expect for the legacy message endpoint.
func sseExpectation(body []byte) expectation {
	e := expect(body)
	if e.parseError {
		var first json.RawMessage
		if json.NewDecoder(bytes.NewReader(body)).Decode(&first) == nil {
			return expectation{} // the first value is run, the rest ignored
		}
		return e
	}
	if e.requestID == nil {
		return expectation{}
	}
	return e
}
