package transport

import (
	"context"
	"net"
	"net/http"
	"sync"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// backlogs is each client's account of the answers made for it and not
// yet taken (caller.Backlog): on streamable HTTP, a response whose handler
// has not finished writing or, on Linux, whose bytes the client has not
// yet acknowledged (finish); on the legacy SSE transport, an answer not
// yet written to its stream; on WebSocket, a reply queued for its
// connection and not yet written out. An answer that the client does not
// read holds the server's memory until then, so whoever makes a large one
// (a full-answer link's read) asks the account first and refuses while
// the client's earlier answers lie unread. stdio has one client, whom an
// unread answer slows alone: it keeps no account.
type backlogs struct {
	mu      sync.Mutex
	clients map[caller.ID]*clientBacklog
	// pending are the legacy SSE calls whose answers have not yet
	// appeared on their stream, by session and call key.
	pending map[string][]*callBacklog
	// lingering are the streamable HTTP responses written whole into
	// their connection's kernel buffer and not yet acknowledged by the
	// client, by connection (unsent).
	lingering map[net.Conn][]*callBacklog
}

type connKey struct{}

// connContext records a connection for its requests' accounts: the
// http.Server's ConnContext.
func (b *backlogs) connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// connState ends the accounts of a connection's lingering responses once
// it closes or is taken over: the http.Server's ConnState.
func (b *backlogs) connState(c net.Conn, s http.ConnState) {
	if s != http.StateClosed && s != http.StateHijacked {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// Taken out of the map first: releasing one edits the map's list.
	cbs := b.lingering[c]
	delete(b.lingering, c)
	for _, cb := range cbs {
		cb.releaseLocked()
	}
}

type clientBacklog struct {
	id    caller.ID
	bytes int64 // what the client's open calls count
	calls int   // its open calls; the account goes when the last ends
	// lingering are its responses written into their connection's
	// kernel buffer that the client has not yet acknowledged.
	lingering []*callBacklog
}

// callBacklog is one call's part of its client's account: the larger of
// what the call held for its answer (Hold) and the bytes of the answer
// written or queued so far, until the answer is written out.
type callBacklog struct {
	b             *backlogs
	c             *clientBacklog
	held, written int64
	done          bool
	conn          net.Conn // while lingering: the connection it was written to
}

var _ caller.Backlog = (*callBacklog)(nil)

// open starts a call's account for client.
func (b *backlogs) open(client caller.ID) *callBacklog {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.clients == nil {
		b.clients = map[caller.ID]*clientBacklog{}
	}
	c := b.clients[client]
	if c == nil {
		c = &clientBacklog{id: client}
		b.clients[client] = c
	}
	c.calls++
	return &callBacklog{b: b, c: c}
}

// unread is what client's open calls count.
func (b *backlogs) unread(client caller.ID) int64 {
	b.mu.Lock()
	c := b.clients[client]
	b.mu.Unlock()
	if c == nil {
		return 0
	}
	b.settle(c)
	b.mu.Lock()
	defer b.mu.Unlock()
	return c.bytes
}

// settle brings c's lingering responses up to date: each counts what its
// connection still holds unacknowledged, and ends once that is nothing
// or the connection has gone. The kernel is asked outside the lock.
func (b *backlogs) settle(c *clientBacklog) {
	b.mu.Lock()
	if len(c.lingering) == 0 {
		b.mu.Unlock()
		return
	}
	cbs := append([]*callBacklog(nil), c.lingering...)
	b.mu.Unlock()
	left := make([]int64, len(cbs))
	for i, cb := range cbs {
		if q, ok := unsent(cb.conn); ok {
			left[i] = q
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, cb := range cbs {
		if cb.done {
			continue
		}
		if left[i] <= 0 {
			cb.releaseLocked()
			continue
		}
		cb.shrinkLocked(left[i])
	}
}

// shrinkLocked makes the call's part at most n.
func (cb *callBacklog) shrinkLocked(n int64) {
	was := cb.part()
	cb.held, cb.written = min(was, n), 0
	cb.c.bytes += cb.part() - was
}

// finish ends a streamable HTTP call's part once its handler has
// returned, unless its connection's kernel buffer still holds some of
// what it wrote: a client that does not read has not taken an answer just
// because the kernel has, and the kernel's memory is the server's too.
// Then it lingers, counting what is left, until the client acknowledges
// it or the connection closes.
func (cb *callBacklog) finish(conn net.Conn) {
	q, ok := int64(0), false
	if conn != nil {
		q, ok = unsent(conn)
	}
	b := cb.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if !ok || q <= 0 || cb.done {
		cb.releaseLocked()
		return
	}
	cb.shrinkLocked(q)
	cb.conn = conn
	cb.c.lingering = append(cb.c.lingering, cb)
	if b.lingering == nil {
		b.lingering = map[net.Conn][]*callBacklog{}
	}
	b.lingering[conn] = append(b.lingering[conn], cb)
}

func (cb *callBacklog) part() int64 { return max(cb.held, cb.written) }

// Unread is what the client's calls count, this one's included.
func (cb *callBacklog) Unread() int64 {
	cb.b.settle(cb.c)
	cb.b.mu.Lock()
	defer cb.b.mu.Unlock()
	return cb.c.bytes
}

// Hold counts n bytes for this call's answer unless the client's other
// unread answers and this one would pass limit. A client with nothing
// unread is always let through, so that an answer larger than the limit
// can still be read by a client that reads.
func (cb *callBacklog) Hold(n, limit int64) (int64, bool) {
	cb.b.settle(cb.c)
	cb.b.mu.Lock()
	defer cb.b.mu.Unlock()
	others := cb.c.bytes - cb.part()
	if cb.done {
		return others, true
	}
	if others > 0 && others+max(n, cb.written) > limit {
		return others, false
	}
	was := cb.part()
	cb.held = n
	cb.c.bytes += cb.part() - was
	return others, true
}

// wrote counts n more bytes of the call's answer.
func (cb *callBacklog) wrote(n int64) {
	if cb == nil || n <= 0 {
		return
	}
	cb.b.mu.Lock()
	defer cb.b.mu.Unlock()
	if cb.done {
		return
	}
	was := cb.part()
	cb.written += n
	cb.c.bytes += cb.part() - was
}

// release ends the call's part once its answer is written out, or will
// never be; more than once does nothing.
func (cb *callBacklog) release() {
	if cb == nil {
		return
	}
	cb.b.mu.Lock()
	defer cb.b.mu.Unlock()
	cb.releaseLocked()
}

func (cb *callBacklog) releaseLocked() {
	if cb.done {
		return
	}
	cb.done = true
	if cb.conn != nil {
		cb.c.lingering = dropOne(cb.c.lingering, cb)
		if rest := dropOne(cb.b.lingering[cb.conn], cb); len(rest) > 0 {
			cb.b.lingering[cb.conn] = rest
		} else {
			delete(cb.b.lingering, cb.conn)
		}
		cb.conn = nil
	}
	cb.c.bytes -= cb.part()
	cb.c.calls--
	if cb.c.calls == 0 && cb.b.clients[cb.c.id] == cb.c {
		delete(cb.b.clients, cb.c.id)
	}
}

func dropOne(cbs []*callBacklog, cb *callBacklog) []*callBacklog {
	for i, x := range cbs {
		if x == cb {
			return append(cbs[:i], cbs[i+1:]...)
		}
	}
	return cbs
}

// track gives a streamable HTTP call its account: the request carries it
// to the handlers, and the writer counts what the response writes. done,
// called once the handler has returned, ends the call's part or leaves it
// lingering (finish).
func (b *backlogs) track(w http.ResponseWriter, r *http.Request, client caller.ID) (http.ResponseWriter, *http.Request, func()) {
	cb := b.open(client)
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	return &backlogWriter{ResponseWriter: w, cb: cb}, r.WithContext(caller.WithBacklog(r.Context(), cb)), func() { cb.finish(conn) }
}

// backlogWriter counts a response's bytes against its call's account.
type backlogWriter struct {
	http.ResponseWriter
	cb *callBacklog
}

func (w *backlogWriter) Write(p []byte) (int, error) {
	// Counted before the write: a write to a client that does not read
	// blocks, and its bytes are held meanwhile.
	w.cb.wrote(int64(len(p)))
	return w.ResponseWriter.Write(p)
}

// Flush is required: mcp-go streams only through a writer that flushes.
func (w *backlogWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *backlogWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// await gives a legacy SSE call its account, which ends when its answer
// appears on the session's stream (answered), when the call is refused
// (the returned func), or when the stream closes (forget).
func (b *backlogs) await(r *http.Request, client caller.ID, key string) (*http.Request, func()) {
	cb := b.open(client)
	b.mu.Lock()
	if b.pending == nil {
		b.pending = map[string][]*callBacklog{}
	}
	b.pending[key] = append(b.pending[key], cb)
	b.mu.Unlock()
	return r.WithContext(caller.WithBacklog(r.Context(), cb)), func() { b.answered(key) }
}

// answered ends the account of the oldest call awaiting an answer under
// key.
func (b *backlogs) answered(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cbs := b.pending[key]
	if len(cbs) == 0 {
		return
	}
	cbs[0].releaseLocked()
	if len(cbs) == 1 {
		delete(b.pending, key)
		return
	}
	b.pending[key] = cbs[1:]
}

// forget ends the accounts of the calls whose key starts with prefix: the
// stream their answers were to go out on has closed.
func (b *backlogs) forget(prefix string) {
	if prefix == "/" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, cbs := range b.pending {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			for _, cb := range cbs {
				cb.releaseLocked()
			}
			delete(b.pending, k)
		}
	}
}

// withBacklog is ctx carrying cb, for a WebSocket call.
func withBacklog(ctx context.Context, cb *callBacklog) context.Context {
	return caller.WithBacklog(ctx, cb)
}
