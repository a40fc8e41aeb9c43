package transport

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Path and subprotocol of the websocket transport.
const (
	wsPath        = "/ws"
	wsSubprotocol = "mcp" // the TypeScript SDK's client asks for it and gives up without it
)

// notificationBuffer is how many notifications a connection holds for its
// writer; mcp-go drops a notification rather than wait when it is full.
const notificationBuffer = 64

// ServeWebSocket serves MCP over WebSocket at /ws, one JSON-RPC message per
// text frame in each direction, plus /healthz and /readyz. It returns after
// a graceful shutdown once ctx ends.
func ServeWebSocket(ctx context.Context, s *server.MCPServer, opts Options) error {
	o := opts.withDefaults()
	ln, err := o.listen()
	if err != nil {
		return err
	}
	st := newSite(KindWebSocket, o)
	hub := &wsHub{site: st, mcp: s, conns: map[*wsConn]struct{}{}}
	hub.upgrader = websocket.Upgrader{
		HandshakeTimeout: o.ReadHeaderTimeout,
		Subprotocols:     []string{wsSubprotocol},
		// site.handler has already vetted Host and Origin.
		CheckOrigin: func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			http.Error(w, "websocket handshake failed: "+reason.Error(), status)
		},
	}
	mux := http.NewServeMux()
	st.addHealth(mux)
	mux.Handle("GET "+wsPath, hub)
	endpoints := st.addApp(mux, append([]string{wsPath}, st.monitoring()...))
	return st.serve(ctx, ln, mux, endpoints, hub.closeAll)
}

// wsHub accepts connections and keeps them for shutdown.
type wsHub struct {
	site     *site
	mcp      *server.MCPServer
	upgrader websocket.Upgrader
	mu       sync.Mutex
	conns    map[*wsConn]struct{}
	closing  bool // set by closeAll: no connection registers after it
	wg       sync.WaitGroup
}

func (h *wsHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ls, ok := h.site.admit(w, r, "websocket")
	if !ok {
		return
	}
	defer ls.release()
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		h.site.log.Debug("websocket upgrade failed", "remote", r.RemoteAddr, "error", err)
		return // the upgrader has answered the request
	}
	h.mu.Lock()
	if h.closing {
		// The upgrade raced shutdown: closeAll has already gone through the
		// connections and may be waiting for them, so this one is turned
		// away rather than added behind its back.
		h.mu.Unlock()
		msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down")
		_ = conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		_ = conn.Close()
		return
	}
	c := newWSConn(h, conn, caller.Request(r.Context()))
	h.conns[c] = struct{}{}
	h.wg.Add(1)
	h.mu.Unlock()
	c.live = ls
	ls.busy = func() bool { return len(c.slots) > 0 }
	ls.stop = func() {
		c.closeWith(websocket.CloseTryAgainLater, "idle connection ended to make room for others; reconnect when needed")
		closeQuietly(c.conn)
	}
	key := "ws/" + c.id
	h.site.live.add(key, ls)
	defer func() {
		h.site.live.remove(key)
		h.mu.Lock()
		delete(h.conns, c)
		h.mu.Unlock()
		h.wg.Done()
	}()
	c.log.Info("websocket session opened", "remote", r.RemoteAddr, "client", ls.client, "subprotocol", conn.Subprotocol(), "origin", r.Header.Get("Origin"))
	c.serve()
}

// closeAll runs after calls in flight have finished: it asks every peer to
// close, waits a moment for them to agree, then cuts whatever is left.
func (h *wsHub) closeAll(ctx context.Context) {
	h.mu.Lock()
	h.closing = true
	for c := range h.conns {
		c.closeWith(websocket.CloseGoingAway, "server shutting down")
	}
	h.mu.Unlock()
	done := make(chan struct{})
	go func() { h.wg.Wait(); close(done) }()
	grace, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	select {
	case <-done:
		return
	case <-grace.Done():
	}
	h.mu.Lock()
	for c := range h.conns {
		closeQuietly(c.conn)
	}
	h.mu.Unlock()
	<-done
}

// wsConn is one WebSocket connection and the mcp-go session it carries.
type wsConn struct {
	hub    *wsHub
	conn   *websocket.Conn
	id     string
	log    *slog.Logger
	ctx    context.Context // carries the session; ends with the connection
	cancel context.CancelFunc

	notes      chan mcp.JSONRPCNotification
	out        chan reply // unbuffered: a reply is either written or its call ended
	slots      chan struct{}
	calls      sync.WaitGroup
	stop       chan struct{} // closed when no more replies will come
	writerDone chan struct{}

	initialized atomic.Bool
	logLevel    atomic.Value // mcp.LoggingLevel
	infoMu      sync.RWMutex
	clientInfo  mcp.Implementation
	clientCaps  mcp.ClientCapabilities

	pending wsPending // server requests awaiting the client's answer

	live *liveSession // its place among the sessions; touched by each message
}

// reply is one answer for the writer, the tracked call it ends, and whether
// it holds one of the connection's call slots.
type reply struct {
	data    []byte // nil when the call produced no answer
	key     string
	slot    bool
	backlog *callBacklog // the call's account, ended once written or dropped
}

var (
	_ server.ClientSession         = (*wsConn)(nil)
	_ server.SessionWithLogging    = (*wsConn)(nil)
	_ server.SessionWithClientInfo = (*wsConn)(nil)
)

// newWSConn makes the connection's session; its calls keep the caller the
// handshake came from.
func newWSConn(h *wsHub, conn *websocket.Conn, from caller.ID) *wsConn {
	c := &wsConn{
		hub:        h,
		conn:       conn,
		id:         rand.Text(),
		notes:      make(chan mcp.JSONRPCNotification, notificationBuffer),
		out:        make(chan reply),
		slots:      make(chan struct{}, h.site.opts.MaxInFlightPerSession),
		stop:       make(chan struct{}),
		writerDone: make(chan struct{}),
	}
	c.log = h.site.log.With("session", c.id)
	// Calls outlive the server's context on purpose: shutdown lets them
	// finish. They end early only when their connection, which is their
	// session, does (serve cancels ctx first).
	ctx, cancel := context.WithCancel(caller.WithSessionBound(caller.WithRequest(context.Background(), from)))
	c.ctx, c.cancel = h.mcp.WithContext(ctx, c), cancel
	return c
}

// SessionID identifies the connection to mcp-go.
func (c *wsConn) SessionID() string { return c.id }

// NotificationChannel is where mcp-go puts notifications for this client.
func (c *wsConn) NotificationChannel() chan<- mcp.JSONRPCNotification { return c.notes }

// Initialize marks the session ready for notifications.
func (c *wsConn) Initialize() {
	c.logLevel.CompareAndSwap(nil, mcp.LoggingLevelError)
	c.initialized.Store(true)
}

// Initialized reports whether the client has completed the handshake.
func (c *wsConn) Initialized() bool { return c.initialized.Load() }

// SetLogLevel records the level the client asked for with logging/setLevel.
func (c *wsConn) SetLogLevel(level mcp.LoggingLevel) { c.logLevel.Store(level) }

// GetLogLevel returns the client's log level, error until it asks otherwise.
func (c *wsConn) GetLogLevel() mcp.LoggingLevel {
	if l, ok := c.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

// GetClientInfo returns what the client said about itself.
func (c *wsConn) GetClientInfo() mcp.Implementation {
	c.infoMu.RLock()
	defer c.infoMu.RUnlock()
	return c.clientInfo
}

// SetClientInfo stores what the client said about itself.
func (c *wsConn) SetClientInfo(info mcp.Implementation) {
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	c.clientInfo = info
}

// GetClientCapabilities returns the client's declared capabilities.
func (c *wsConn) GetClientCapabilities() mcp.ClientCapabilities {
	c.infoMu.RLock()
	defer c.infoMu.RUnlock()
	return c.clientCaps
}

// SetClientCapabilities stores the client's declared capabilities.
func (c *wsConn) SetClientCapabilities(caps mcp.ClientCapabilities) {
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	c.clientCaps = caps
}

// serve runs the connection to its end: register the session, read until the
// peer goes, let the calls it started finish, then flush and close.
func (c *wsConn) serve() {
	defer closeQuietly(c.conn)
	if err := c.hub.mcp.RegisterSession(c.ctx, c); err != nil {
		c.log.Error("registering websocket session", "error", err)
		c.closeWith(websocket.CloseInternalServerErr, "session registration failed")
		return
	}
	defer c.hub.mcp.UnregisterSession(context.WithoutCancel(c.ctx), c.id)
	go c.writeLoop()
	reason := c.readLoop()
	c.cancel() // nobody is left to read the answers
	c.calls.Wait()
	close(c.stop)
	<-c.writerDone
	c.log.Info("websocket session closed", "reason", reason)
}

func (c *wsConn) readLoop() string {
	o := c.hub.site.opts
	c.conn.SetReadLimit(o.WSReadLimit)
	_ = c.conn.SetReadDeadline(time.Now().Add(o.PongTimeout))
	c.conn.SetPongHandler(func(string) error {
		return c.conn.SetReadDeadline(time.Now().Add(o.PongTimeout))
	})
	for {
		kind, data, err := c.conn.ReadMessage()
		if err != nil {
			return c.readEnded(err)
		}
		_ = c.conn.SetReadDeadline(time.Now().Add(o.PongTimeout))
		if c.live != nil {
			c.live.touch()
		}
		if kind != websocket.TextMessage {
			c.send(reply{data: errorResponse(nil, codeInvalidRequest, "invalid request: binary frames are not accepted; send each JSON-RPC message as one text frame")})
			continue
		}
		if !utf8.Valid(data) {
			// RFC 6455 section 8.1: a text message that is not UTF-8
			// fails the connection with 1007.
			c.closeWith(websocket.CloseInvalidFramePayloadData, "text message is not valid UTF-8")
			return "text message is not valid UTF-8"
		}
		// A large message waits for its client's turn to be parsed,
		// and reading this connection waits with it.
		release, err := c.hub.site.takeParse(c.ctx, caller.Request(c.ctx), len(data))
		switch {
		case errors.Is(err, errParseBusy):
			c.send(reply{data: errorResponse(nil, codeServerBusy, err.Error())})
			continue
		case err != nil:
			return "connection ended while a large message waited to be read"
		}
		c.dispatch(data, release)
	}
}

// readEnded explains why reading stopped. After an oversized message gorilla
// has already sent close 1009; reading out what the peer still sends lets
// that close frame arrive instead of a connection reset.
func (c *wsConn) readEnded(err error) string {
	var ce *websocket.CloseError
	switch {
	case errors.Is(err, websocket.ErrReadLimit):
		c.log.Warn("websocket message too large; closing with 1009", "limit_bytes", c.hub.site.opts.WSReadLimit)
		nc := c.conn.NetConn()
		_ = nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, _ = io.Copy(io.Discard, nc)
		return "message too large"
	case errors.As(err, &ce):
		return fmt.Sprintf("peer closed: %d %s", ce.Code, ce.Text)
	default:
		return err.Error()
	}
}

// dispatch routes one message. Requests run on their own goroutines, bounded
// per connection, so that a slow call never holds up the next message.
// release ends the message's parse turn (takeParse) once it is handled.
func (c *wsConn) dispatch(data []byte, release func()) {
	handled := false
	defer func() {
		if !handled {
			release()
		}
	}()
	m := classify(data)
	if code, text, refused := m.refusal(); refused {
		if code != 0 {
			c.send(reply{data: errorResponse(m.id, code, text)})
		}
		return
	}
	switch m.kind {
	case msgResponse:
		c.answer(m, data) // to a request of the server's (wsrequest.go)
	case msgNotification:
		// Handled in order: notifications/initialized must precede what follows.
		if resp := c.handle(c.ctx, m, data); resp != nil {
			c.send(reply{data: resp})
		}
	case msgRequest:
		handled = c.startCall(m, data, release)
	}
}

// startCall runs a request on its own goroutine, which calls release when
// it is handled; it reports whether it did start one.
func (c *wsConn) startCall(m message, data []byte, release func()) bool {
	st := c.hub.site
	if st.draining.Load() {
		c.send(reply{data: errorResponse(m.id, codeServerBusy, msgShuttingDown)})
		return false
	}
	select {
	case c.slots <- struct{}{}:
	default:
		c.send(reply{data: errorResponse(m.id, codeServerBusy, st.busyMessage("connection", requester{}))})
		return false
	}
	st.calls.begin(wsCallKey)
	c.calls.Add(1)
	// The reply's bytes count against its client until written out
	// (backlog.go).
	cb := st.backlog.open(caller.Request(c.ctx))
	// The slot is held until the writer takes the answer, so a client that
	// never reads cannot make answers pile up: past the bound its calls are
	// refused, and once the writer blocks, so does reading.
	st.workers.run(func() {
		defer c.calls.Done()
		out := c.handle(withBacklog(c.ctx, cb), m, data)
		release()
		cb.wrote(int64(len(out)))
		c.send(reply{data: out, key: wsCallKey, slot: true, backlog: cb})
	})
	return true
}

// handle passes one message to mcp-go, turning a panic into an internal error
// for the caller instead of a dead process.
func (c *wsConn) handle(ctx context.Context, m message, data []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("panic while handling a message", "panic", fmt.Sprint(p))
			if m.kind == msgRequest {
				out = errorResponse(m.id, mcp.INTERNAL_ERROR, "internal error")
			}
		}
	}()
	resp := c.hub.mcp.HandleMessage(ctx, data)
	if resp == nil {
		return nil
	}
	b, err := json.Marshal(resp)
	if err != nil {
		c.log.Error("encoding a response", "error", err)
		return errorResponse(m.id, mcp.INTERNAL_ERROR, "internal error: the response could not be encoded")
	}
	return b
}

// send gives a reply to the writer, or ends its call if the writer is gone.
func (c *wsConn) send(r reply) {
	select {
	case c.out <- r:
	case <-c.writerDone:
		c.release(r)
	}
}

// wsCallKey is the key every WebSocket call is tracked under: the tracker
// counts them for shutdown, and nothing matches an answer to its call by
// key, so one key serves all and none is made per call.
const wsCallKey = "ws#call"

// release frees what a reply held once it is written or dropped.
func (c *wsConn) release(r reply) {
	if r.slot {
		<-c.slots
	}
	c.hub.site.calls.end(r.key)
	r.backlog.release()
}

// writeLoop is the connection's only writer. Before each reply it writes the
// notifications already queued, so progress reaches the client before the
// result it belongs to.
func (c *wsConn) writeLoop() {
	defer close(c.writerDone)
	o := c.hub.site.opts
	ping := time.NewTicker(o.PingInterval)
	defer ping.Stop()
	for {
		var err error
		select {
		case n := <-c.notes:
			err = c.writeNote(n)
		case r := <-c.out:
			// Free the slot before writing: the client may send its next
			// call the moment it reads this answer.
			if r.slot {
				<-c.slots
				r.slot = false
			}
			err = c.writeReply(r)
		case <-ping.C:
			err = c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(o.WriteTimeout))
		case <-c.stop:
			return
		}
		if err != nil {
			c.log.Debug("websocket write failed; closing", "error", err)
			closeQuietly(c.conn) // also ends the read loop
			return
		}
	}
}

func (c *wsConn) writeReply(r reply) error {
	defer c.release(r)
	for drained := false; !drained; {
		select {
		case n := <-c.notes:
			if err := c.writeNote(n); err != nil {
				return err
			}
		default:
			drained = true
		}
	}
	if r.data == nil {
		return nil
	}
	return c.write(r.data)
}

func (c *wsConn) writeNote(n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		c.log.Error("encoding a notification", "method", n.Method, "error", err)
		return nil
	}
	if _, ok := c.hub.site.opts.DropNotifications[n.Method]; ok && c.hub.site.opts.dropsMessage(b) {
		return nil
	}
	return c.write(b)
}

func (c *wsConn) write(b []byte) error {
	if err := c.conn.SetWriteDeadline(time.Now().Add(c.hub.site.opts.WriteTimeout)); err != nil {
		return err
	}
	return c.conn.WriteMessage(websocket.TextMessage, b)
}

// closeWith starts the closing handshake; the read loop ends when the peer
// answers or the connection is cut.
func (c *wsConn) closeWith(code int, text string) {
	_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
}
