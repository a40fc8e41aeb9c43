package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// wsTransport lets mcp-go's client speak to /ws: one JSON-RPC message per
// text frame, answers matched to calls by id.
type wsTransport struct {
	url    string
	header http.Header

	conn    *websocket.Conn
	writeMu sync.Mutex
	mu      sync.Mutex
	pending map[string]chan *transport.JSONRPCResponse
	notify  func(mcp.JSONRPCNotification)
	done    chan struct{}
	readErr error
}

var _ transport.Interface = (*wsTransport)(nil)

func newWSTransport(baseURL string) *wsTransport {
	return &wsTransport{
		url:     "ws" + strings.TrimPrefix(baseURL, "http") + "/ws",
		pending: map[string]chan *transport.JSONRPCResponse{},
		done:    make(chan struct{}),
	}
}

func (w *wsTransport) Start(ctx context.Context) error {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"mcp"}}
	conn, resp, err := d.DialContext(ctx, w.url, w.header)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return fmt.Errorf("dial %s: %w", w.url, err)
	}
	if conn.Subprotocol() != "mcp" {
		conn.Close()
		return fmt.Errorf("server chose subprotocol %q, want mcp", conn.Subprotocol())
	}
	w.conn = conn
	go w.readLoop()
	return nil
}

func (w *wsTransport) readLoop() {
	defer close(w.done)
	for {
		_, data, err := w.conn.ReadMessage()
		if err != nil {
			w.mu.Lock()
			w.readErr = err
			w.mu.Unlock()
			return
		}
		var head struct {
			ID     *mcp.RequestId `json:"id"`
			Method string         `json:"method"`
		}
		if json.Unmarshal(data, &head) != nil {
			continue
		}
		switch {
		case head.Method != "" && head.ID == nil:
			var n mcp.JSONRPCNotification
			if json.Unmarshal(data, &n) == nil {
				w.mu.Lock()
				notify := w.notify
				w.mu.Unlock()
				if notify != nil {
					notify(n)
				}
			}
		case head.Method == "" && head.ID != nil:
			var r transport.JSONRPCResponse
			if json.Unmarshal(data, &r) != nil {
				continue
			}
			w.mu.Lock()
			ch := w.pending[head.ID.String()]
			delete(w.pending, head.ID.String())
			w.mu.Unlock()
			if ch != nil {
				ch <- &r
			}
		}
	}
}

func (w *wsTransport) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.conn.WriteMessage(websocket.TextMessage, b)
}

func (w *wsTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	key := req.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	w.mu.Lock()
	w.pending[key] = ch
	w.mu.Unlock()
	if err := w.write(req); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-w.done:
		w.mu.Lock()
		defer w.mu.Unlock()
		return nil, fmt.Errorf("connection closed before the answer: %w", w.readErr)
	}
}

func (w *wsTransport) SendNotification(_ context.Context, n mcp.JSONRPCNotification) error {
	return w.write(n)
}

func (w *wsTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notify = h
}

func (w *wsTransport) Close() error {
	if w.conn == nil {
		return nil
	}
	w.writeMu.Lock()
	_ = w.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	w.writeMu.Unlock()
	select {
	case <-w.done:
	case <-time.After(2 * time.Second):
	}
	_ = w.conn.Close()
	<-w.done
	return nil
}

func (w *wsTransport) GetSessionId() string { return "" }
