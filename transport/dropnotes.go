package transport

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// dropsNote reports whether the notification method with params is one
// Options.DropNotifications keeps off the wire.
func (o Options) dropsNote(method string, params json.RawMessage) bool {
	drop, ok := o.DropNotifications[method]
	return ok && drop(params)
}

// mentionsDropped is the fast path: a write that names no method in
// Options.DropNotifications passes through undecoded.
func (o Options) mentionsDropped(p []byte) bool {
	for method := range o.DropNotifications {
		if bytes.Contains(p, []byte(method)) {
			return true
		}
	}
	return false
}

// eventFilter passes an SSE response through, leaving out each whole event
// whose data is a notification Options.DropNotifications drops. mcp-go
// writes one event per Write (legacy SSE and streamable HTTP alike); an
// event cut across writes is passed through unread.
type eventFilter struct {
	http.ResponseWriter
	opts Options
}

// filterEvents wraps w when there is anything to drop.
func (st *site) filterEvents(w http.ResponseWriter) http.ResponseWriter {
	if len(st.opts.DropNotifications) == 0 {
		return w
	}
	return &eventFilter{ResponseWriter: w, opts: st.opts}
}

func (f *eventFilter) Write(p []byte) (int, error) {
	// A JSON body is one JSON-RPC message, which mcp-go writes compact, so
	// it holds no blank line and keep would return it whole: looking for
	// the methods in it, an answer's every byte, would change nothing.
	if isJSONBody(f.ResponseWriter.Header()) || !f.opts.mentionsDropped(p) {
		return f.ResponseWriter.Write(p)
	}
	kept := f.keep(p)
	if len(kept) == 0 {
		return len(p), nil
	}
	if _, err := f.ResponseWriter.Write(kept); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isJSONBody reports whether h, a response's headers, declare a JSON body
// rather than an event stream.
func isJSONBody(h http.Header) bool {
	ct := h.Get("Content-Type")
	return ct == "application/json" || strings.HasPrefix(ct, "application/json;")
}

// keep is p without the events to drop. Events end with a blank line;
// what follows the last one is kept as it is.
func (f *eventFilter) keep(p []byte) []byte {
	var out []byte
	for len(p) > 0 {
		end := bytes.Index(p, []byte("\n\n"))
		if end < 0 {
			return append(out, p...)
		}
		event := p[:end+2]
		p = p[end+2:]
		if !f.drops(event) {
			out = append(out, event...)
		}
	}
	return out
}

// drops reports whether one SSE event carries a notification to drop.
func (f *eventFilter) drops(event []byte) bool {
	var data []byte
	for line := range bytes.SplitSeq(event, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(rest, []byte(" "))...)
		}
	}
	return data != nil && f.opts.dropsMessage(data)
}

// dropsMessage reports whether a JSON-RPC message is a notification
// Options.DropNotifications drops; a request or an answer never is.
func (o Options) dropsMessage(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil || m.ID != nil || m.Method == "" {
		return false
	}
	return o.dropsNote(m.Method, m.Params)
}

// Flush is required: mcp-go refuses to stream through a writer without it.
func (f *eventFilter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (f *eventFilter) Unwrap() http.ResponseWriter { return f.ResponseWriter }
