package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC error codes the transports answer with themselves.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeServerBusy     = -32000 // implementation-defined range
)

// msgKind says what a JSON-RPC message is, as far as a transport cares.
type msgKind int

const (
	msgInvalidJSON  msgKind = iota // not JSON at all
	msgBatch                       // a JSON array; MCP has no batches since 2025-06-18
	msgInvalid                     // JSON, but not a request, notification or response
	msgRequest                     // method and a non-null id: needs an answer
	msgNotification                // method without id
	msgResponse                    // id with result or error: a client answering the server
	msgIgnored                     // a notification the server cannot read unambiguously: dropped unanswered
)

// message is the shape of one classified JSON-RPC message.
type message struct {
	kind    msgKind
	method  string
	id      json.RawMessage // as sent when usable, nil when absent or unusable
	key     string          // id in canonical form, for matching answers to calls
	problem string          // why a msgInvalid message is not JSON-RPC
}

// jsonSpace is the whitespace JSON allows around a value. bytes.TrimSpace
// would also strip \v, \f, U+0085 and NBSP, which JSON does not accept.
const jsonSpace = " \t\r\n"

// members are the names JSON-RPC 2.0 gives meaning to at the top level.
var members = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// classify checks one message against JSON-RPC 2.0 without decoding its
// params, so that every transport refuses the same malformed messages the
// same way before mcp-go sees them.
func classify(raw []byte) message {
	raw = bytes.Trim(raw, jsonSpace)
	if !json.Valid(raw) {
		return message{kind: msgInvalidJSON}
	}
	switch raw[0] {
	case '[':
		return message{kind: msgBatch}
	case '{':
	default:
		return invalid(nil, "expected a JSON-RPC 2.0 request, notification or response object")
	}
	obj, problem := topMembers(raw)
	if problem != "" {
		return invalid(nil, problem)
	}
	m := message{}
	id, hasID := obj.get("id")
	if hasID && string(id) != "null" {
		key, ok := idKey(id)
		if !ok {
			return invalid(nil, `"id" must be a string, a finite number or null`)
		}
		m.id, m.key = id, key
	}
	if v, ok := obj.get("jsonrpc"); !ok || !isString(v, "2.0") {
		return invalid(m.id, `"jsonrpc" must be "2.0"`)
	}
	method, hasMethod := obj.get("method")
	_, hasResult := obj.get("result")
	_, hasError := obj.get("error")
	if !hasMethod {
		switch {
		case hasID && hasResult != hasError:
			m.kind = msgResponse
			return m
		case hasResult && hasError:
			return invalid(m.id, `a response carries "result" or "error", not both`)
		case hasID:
			return invalid(m.id, `"method" is missing`)
		}
		return invalid(nil, `"method" is missing`)
	}
	if !readString(method, &m.method) || m.method == "" {
		return invalid(m.id, `"method" must be a non-empty string`)
	}
	if hasResult || hasError {
		return invalid(m.id, `a request carries "method", a response "result" or "error"; not both`)
	}
	if p, ok := obj.get("params"); ok && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return invalid(m.id, `"params" must be an object or an array`)
	}
	if name, ok := obj.repeat, obj.hasRepeat; ok {
		if m.key == "" {
			// A notification is never answered, not even with an error.
			return message{kind: msgIgnored, method: m.method, problem: fmt.Sprintf(`member %q appears more than once in one object inside "params"`, name)}
		}
		return invalid(m.id, fmt.Sprintf(`member %q appears more than once in one object inside "params"`, name))
	}
	if m.key != "" {
		m.kind = msgRequest
		return m
	}
	// mcp-go answers a notification it cannot decode (a number in params
	// past float64's range, say) with a parse error, and JSON-RPC forbids
	// answering a notification: it is dropped here instead. Notifications
	// are few (initialized, cancelled, progress), so decoding one twice
	// costs little.
	if json.Unmarshal(raw, new(mcp.JSONRPCNotification)) != nil {
		return message{kind: msgIgnored, method: m.method, problem: "params that mcp-go cannot decode"}
	}
	m.kind = msgNotification
	return m
}

// invalid is a msgInvalid message; id is echoed when it could be read.
func invalid(id json.RawMessage, problem string) message {
	return message{kind: msgInvalid, id: id, problem: problem}
}

// isString reports whether v is the JSON string want, however it is escaped.
func isString(v json.RawMessage, want string) bool {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1:len(v)-1]) == want // want is valid UTF-8, so invalid bytes differ
	}
	var s string
	return json.Unmarshal(v, &s) == nil && s == want
}

// readString decodes the JSON string v into s, without encoding/json's
// reflection when it holds no escape (the usual case).
func readString(v json.RawMessage, s *string) bool {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		if !utf8.Valid(v) {
			return json.Unmarshal(v, s) == nil // invalid UTF-8 becomes U+FFFD
		}
		*s = string(v[1 : len(v)-1])
		return true
	}
	return json.Unmarshal(v, s) == nil
}

// refusal is the error a transport answers a message with itself, before
// mcp-go sees it; ok is false for messages that go on to mcp-go, and code is
// 0 for a message refused without an answer (msgIgnored). Batches
// are refused because mcp-go v1.2.1 handles one message at a time on every
// transport and MCP dropped them in 2025-06-18.
func (m message) refusal() (code int, text string, ok bool) {
	switch m.kind {
	case msgInvalidJSON:
		return codeParseError, msgParseError, true
	case msgBatch:
		return codeInvalidRequest, msgNoBatches, true
	case msgInvalid:
		return codeInvalidRequest, "invalid request: " + m.problem, true
	case msgIgnored:
		return 0, "", true
	}
	return 0, "", false
}

// idKey canonicalises an id so that the server's echo of it matches: mcp-go
// decodes numeric ids into float64 and re-encodes them, so 1 and 1.0 are the
// same call.
func idKey(id json.RawMessage) (string, bool) {
	switch id[0] {
	case '"':
		var s string
		if !readString(id, &s) {
			return "", false
		}
		return "s:" + s, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return "", false
		}
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// errorResponse renders a JSON-RPC error; a nil id becomes null, as the spec
// asks when the request's id could not be read.
func errorResponse(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return b
}

// Messages a client sees when a transport refuses a message itself.
const (
	msgShuttingDown = "server is shutting down; reconnect and retry"
	msgParseError   = "parse error: the message is not valid JSON"
	msgNoBatches    = "invalid request: JSON-RPC batches are not supported; send one message at a time"
)

// tracker counts calls in flight so that shutdown can wait for them. Keys let
// a transport match an answer it sees on the wire to the call it saw earlier.
type tracker struct {
	mu      sync.Mutex
	pending map[string]int
	n       int
	idle    chan struct{} // closed whenever n == 0
}

func newTracker() *tracker {
	idle := make(chan struct{})
	close(idle)
	return &tracker{pending: map[string]int{}, idle: idle}
}

func (t *tracker) begin(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.pending[key]++
	t.n++
}

// end marks one call with key as answered; unknown keys are ignored.
func (t *tracker) end(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.pending[key]
	if !ok {
		return
	}
	if c == 1 {
		delete(t.pending, key)
	} else {
		t.pending[key] = c - 1
	}
	t.dec(1)
}

// forget drops every call whose key starts with prefix: their session ended,
// so no answer will ever be written for them.
func (t *tracker) forget(prefix string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, c := range t.pending {
		if strings.HasPrefix(k, prefix) {
			delete(t.pending, k)
			t.dec(c)
		}
	}
}

// inFlightWith counts the calls whose key starts with prefix: one session's.
func (t *tracker) inFlightWith(prefix string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for k, c := range t.pending {
		if strings.HasPrefix(k, prefix) {
			n += c
		}
	}
	return n
}

func (t *tracker) dec(c int) {
	t.n -= c
	if t.n == 0 {
		close(t.idle)
	}
}

func (t *tracker) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// wait reports whether every call finished before done closed. It checks
// again after each idle moment because a call may slip in while draining
// starts.
func (t *tracker) wait(done <-chan struct{}) bool {
	for {
		t.mu.Lock()
		idle, n := t.idle, t.n
		t.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-idle:
		case <-done:
			return false
		}
	}
}

// answersIn feeds complete lines of buf to answered for every JSON-RPC answer
// among them and returns the unfinished tail. prefix, when set, marks the
// lines that carry messages (SSE "data:" lines) and is stripped first.
func answersIn(buf []byte, prefix string, answered func(key string)) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return buf
		}
		line := bytes.TrimRight(buf[:i], "\r")
		buf = buf[i+1:]
		if data, ok := bytes.CutPrefix(line, []byte(prefix)); ok {
			if key, ok := answerKey(data); ok {
				answered(key)
			}
		}
	}
}

// answerKey returns the canonical id of a JSON-RPC answer the server wrote.
// That output is mcp-go's own, so this skips classify's checks, which would
// cost a second pass over every result on its way out.
func answerKey(data []byte) (string, bool) {
	var env struct {
		Method *string          `json:"method"`
		ID     json.RawMessage  `json:"id"`
		Result json.RawMessage  `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &env) != nil || env.Method != nil || len(env.ID) == 0 || (env.Result == nil && env.Error == nil) {
		return "", false
	}
	return idKey(env.ID)
}
