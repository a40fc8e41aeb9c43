package transport

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
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
)

// message is the shape of one classified JSON-RPC message.
type message struct {
	kind   msgKind
	method string
	id     json.RawMessage // as sent, nil when absent
	key    string          // id in canonical form, for matching answers to calls
}

// classify looks at one message without decoding its params.
func classify(raw []byte) message {
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return message{kind: msgInvalidJSON}
	}
	if len(raw) > 0 && raw[0] == '[' {
		return message{kind: msgBatch}
	}
	var env struct {
		Method *string          `json:"method"`
		ID     json.RawMessage  `json:"id"`
		Result json.RawMessage  `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &env) != nil {
		return message{kind: msgInvalid}
	}
	m := message{id: env.ID}
	if env.Method != nil {
		m.method = *env.Method
	}
	hasID := len(env.ID) > 0 && string(env.ID) != "null"
	if hasID {
		key, ok := idKey(env.ID)
		if !ok {
			return message{kind: msgInvalid}
		}
		m.key = key
	}
	switch {
	case env.Method != nil && hasID:
		m.kind = msgRequest
	case env.Method != nil:
		m.kind = msgNotification
	case hasID && (env.Result != nil || env.Error != nil):
		m.kind = msgResponse
	default:
		m.kind = msgInvalid
	}
	return m
}

// idKey canonicalises an id so that the server's echo of it matches: mcp-go
// decodes numeric ids into float64 and re-encodes them, so 1 and 1.0 are the
// same call.
func idKey(id json.RawMessage) (string, bool) {
	switch id[0] {
	case '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
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
	msgNotJSONRPC   = "invalid request: expected a JSON-RPC 2.0 request, notification or response object"
)

// tracker counts calls in flight so that shutdown can wait for them. Keys let
// a transport match an answer it sees on the wire to the call it saw earlier.
type tracker struct {
	mu      sync.Mutex
	pending map[string]int
	n       int
	idle    chan struct{} // closed whenever n == 0
	seq     uint64
}

func newTracker() *tracker {
	idle := make(chan struct{})
	close(idle)
	return &tracker{pending: map[string]int{}, idle: idle}
}

// anon returns a key no other call has.
func (t *tracker) anon() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	return "#" + strconv.FormatUint(t.seq, 10)
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
			if m := classify(data); m.kind == msgResponse {
				answered(m.key)
			}
		}
	}
}
