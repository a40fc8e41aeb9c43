package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Requests this server sends to a WebSocket client (elicitation, sampling,
// roots, ping) go out through the connection's writer like any answer; the
// client's answers come back through the read loop, which hands each one to
// the request waiting for its id. A request waits at most
// ClientRequestTimeout, and no longer than the call that made it or the
// connection.

var (
	_ server.SessionWithElicitation = (*wsConn)(nil)
	_ server.SessionWithSampling    = (*wsConn)(nil)
	_ server.SessionWithRoots       = (*wsConn)(nil)
)

// ErrConnectionClosed is returned to a server request whose WebSocket
// connection ended before the client answered.
var ErrConnectionClosed = errors.New("transport: the client's connection closed before it answered")

// ClientError is the JSON-RPC error a client answered a server request with.
type ClientError struct {
	Method  string
	Code    int
	Message string
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("the client answered %s with error %d: %s", e.Method, e.Code, e.Message)
}

// wsPending matches the client's answers to the requests waiting for them.
type wsPending struct {
	mu      sync.Mutex
	next    int64
	waiting map[string]chan json.RawMessage // by canonical id
}

// wsAnswer is the part of a JSON-RPC response a waiting request reads.
type wsAnswer struct {
	Result json.RawMessage          `json:"result"`
	Error  *mcp.JSONRPCErrorDetails `json:"error"`
}

// open reserves an id and the channel its answer will arrive on.
func (p *wsPending) open() (int64, string, chan json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting == nil {
		p.waiting = map[string]chan json.RawMessage{}
	}
	p.next++
	// The same canonical form classify gives the id when the answer arrives.
	key, _ := idKey(json.RawMessage(strconv.FormatInt(p.next, 10)))
	ch := make(chan json.RawMessage, 1)
	p.waiting[key] = ch
	return p.next, key, ch
}

func (p *wsPending) close(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.waiting, key)
}

// deliver hands an answer to the request waiting for it; false means no
// request is waiting (it timed out, or the client made the id up).
func (p *wsPending) deliver(key string, data []byte) bool {
	p.mu.Lock()
	ch, ok := p.waiting[key]
	delete(p.waiting, key)
	p.mu.Unlock()
	if ok {
		ch <- data // buffered, and each key is delivered at most once
	}
	return ok
}

// answer routes a response from the client.
func (c *wsConn) answer(m message, data []byte) {
	if !c.pending.deliver(m.key, data) {
		c.log.Debug("ignoring a response nobody is waiting for", "id", string(m.id))
	}
}

// request sends method to the client and decodes its result into out.
func (c *wsConn) request(ctx context.Context, method mcp.MCPMethod, params any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.hub.site.opts.ClientRequestTimeout)
	defer cancel()
	id, key, ch := c.pending.open()
	defer c.pending.close(key)
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, id, string(method), params}
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("transport: encoding %s: %w", method, err)
	}
	if !c.push(ctx, b) {
		return c.requestEnded(ctx, method)
	}
	select {
	case data := <-ch:
		var a wsAnswer
		if err := json.Unmarshal(data, &a); err != nil {
			return fmt.Errorf("transport: reading the client's answer to %s: %w", method, err)
		}
		if a.Error != nil {
			return &ClientError{Method: string(method), Code: a.Error.Code, Message: a.Error.Message}
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(a.Result, out); err != nil {
			return fmt.Errorf("transport: the client's answer to %s does not fit its schema: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		if c.ctx.Err() == nil {
			// Tell the client to stop asking its user: nobody will read the answer.
			c.push(context.WithoutCancel(ctx), cancelledNote(id, method))
		}
		return c.requestEnded(ctx, method)
	}
}

// push queues a message for the writer; false when ctx ended or the writer
// is gone first.
func (c *wsConn) push(ctx context.Context, b []byte) bool {
	select {
	case c.out <- reply{data: b}:
		return true
	case <-c.writerDone:
	case <-ctx.Done():
	}
	return false
}

func (c *wsConn) requestEnded(ctx context.Context, method mcp.MCPMethod) error {
	switch {
	case c.ctx.Err() != nil:
		return ErrConnectionClosed
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("transport: the client did not answer %s within %s: %w", method, c.hub.site.opts.ClientRequestTimeout, ctx.Err())
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return ErrConnectionClosed
}

func cancelledNote(id int64, method mcp.MCPMethod) []byte {
	b, _ := json.Marshal(mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{
				"requestId": id,
				"reason":    "the server stopped waiting for " + string(method),
			}},
		},
	})
	return b
}

// RequestElicitation asks the client to put a question to its user.
func (c *wsConn) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := c.request(ctx, mcp.MethodElicitationCreate, req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// RequestSampling asks the client's model for a completion.
func (c *wsConn) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := c.request(ctx, mcp.MethodSamplingCreateMessage, req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	// Content arrives as a generic map; mcp-go wants its typed blocks.
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		return nil, fmt.Errorf("transport: the client's sampling answer: %w", err)
	}
	res.Content = content
	return &res, nil
}

// ListRoots asks the client for its roots.
func (c *wsConn) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var res mcp.ListRootsResult
	if err := c.request(ctx, mcp.MethodListRoots, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Ping asks the client whether it is still there, at the MCP level; the
// WebSocket's own pings only show the connection is.
func (c *wsConn) Ping(ctx context.Context) error {
	return c.request(ctx, mcp.MethodPing, nil, nil)
}
