package transport

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"
)

// msgAbandoned answers a streamable HTTP call still running when the
// shutdown grace period ends.
const msgAbandoned = "server shut down before the call finished; reconnect and retry"

var errAbandoned = errors.New("transport: the call was answered at shutdown")

// answerOrAbandon runs a streamable HTTP call and waits for it, or, when
// the shutdown grace period ends first, answers it with a JSON-RPC error
// itself: a client that gets an error knows to retry, one whose connection
// is cut does not know what happened. The handler keeps running until its
// request's context ends, which is when this returns, but cannot write any
// more.
func (st *site) answerOrAbandon(next http.Handler, w http.ResponseWriter, r *http.Request, id []byte) {
	cw := &callWriter{w: w, h: http.Header{}}
	done := make(chan struct{})
	st.workers.run(func() {
		defer close(done)
		next.ServeHTTP(cw, r)
	})
	select {
	case <-done:
		cw.finish()
	case <-st.abandon:
		cw.abandon(id)
	}
}

// callWriter is the response of one streamable HTTP call as mcp-go sees it:
// headers are its own until it writes, and after abandon its writes fail,
// so that the transport and mcp-go never write at once or after the
// request's end.
type callWriter struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	h      http.Header
	status int // sent; 0 until then
	over   bool
}

func (c *callWriter) Header() http.Header { return c.h }

func (c *callWriter) WriteHeader(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeHeaderLocked(status)
}

func (c *callWriter) writeHeaderLocked(status int) {
	if c.over || c.status != 0 {
		return
	}
	c.status = status
	h := c.w.Header()
	for k, v := range c.h {
		h[k] = v
	}
	c.w.WriteHeader(status)
}

func (c *callWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return 0, errAbandoned
	}
	c.writeHeaderLocked(http.StatusOK)
	return c.w.Write(p)
}

// Flush is what tells mcp-go it may stream.
func (c *callWriter) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return
	}
	c.writeHeaderLocked(http.StatusOK)
	if f, ok := c.w.(http.Flusher); ok {
		f.Flush()
	}
}

// SetWriteDeadline serves http.ResponseController, which mcp-go uses.
func (c *callWriter) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return errAbandoned
	}
	return http.NewResponseController(c.w).SetWriteDeadline(t)
}

// finish passes on headers set by a handler that wrote nothing.
func (c *callWriter) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.over && c.status == 0 && len(c.h) > 0 {
		c.writeHeaderLocked(http.StatusOK)
	}
	c.over = true
}

// abandon answers the call with an error, as a JSON body when nothing was
// sent yet or as one more event when the answer had become a stream.
func (c *callWriter) abandon(id []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.over {
		return
	}
	c.over = true
	switch {
	case c.status == 0:
		c.w.Header().Set("Retry-After", "1")
		refuse(c.w, http.StatusServiceUnavailable, id, codeServerBusy, msgAbandoned)
	case strings.HasPrefix(c.w.Header().Get("Content-Type"), "text/event-stream"):
		msg := errorResponse(id, codeServerBusy, msgAbandoned)
		_, _ = c.w.Write([]byte("event: message\ndata: " + string(msg) + "\n\n"))
		if f, ok := c.w.(http.Flusher); ok {
			f.Flush()
		}
	}
	// Otherwise a JSON answer already went out whole.
}

// pendingWith lists the keys of the calls running whose key starts with
// prefix, once per call.
func (t *tracker) pendingWith(prefix string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var keys []string
	for k, c := range t.pending {
		if strings.HasPrefix(k, prefix) {
			for range c {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// keyID turns a canonical call key (idKey) back into a JSON-RPC id.
func keyID(key string) (json.RawMessage, bool) {
	if n, ok := strings.CutPrefix(key, "n:"); ok {
		return json.RawMessage(n), json.Valid([]byte(n))
	}
	if s, ok := strings.CutPrefix(key, "s:"); ok {
		b, err := json.Marshal(s)
		return b, err == nil
	}
	return nil, false
}
