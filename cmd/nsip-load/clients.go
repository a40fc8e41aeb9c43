package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/client"
	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// outcome is what one tool call came to.
type outcome struct {
	cache uint8  // where the answer came from, per _meta.cache
	kind  string // "" for success, otherwise the error kind
	fatal bool   // the session cannot be used any more
}

// Error kinds. A tool error result adds its code: "tool:not_found".
const (
	errConnect   = "connect"   // the session could not be opened
	errTimeout   = "timeout"   // no answer within --call-timeout
	errTransport = "transport" // the connection failed or closed
	errRPC       = "rpc"       // a JSON-RPC error instead of a result
	errProtocol  = "protocol"  // an answer that is not a tool result
	errToolPfx   = "tool:"
)

// session is one MCP client connection.
type session interface {
	call(ctx context.Context, c call) outcome
	close()
	pid() int // the server process this session started, or 0
}

// toolResult is the part of a tools/call result nsip-load reads.
type toolResult struct {
	Meta struct {
		Cache string `json:"cache"`
	} `json:"_meta"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// judge turns a decoded tool result into an outcome.
func judge(cache, text string, isError bool) outcome {
	if !isError {
		return outcome{cache: cacheCode(cache)}
	}
	var body struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(text), &body) != nil || body.Error.Code == "" {
		return outcome{kind: errToolPfx + "unrecognised"}
	}
	return outcome{kind: errToolPfx + body.Error.Code}
}

func initParams(protocol string) map[string]any {
	return map[string]any{
		"protocolVersion": protocol,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "nsip-load", "version": "1"},
	}
}

// wsSession speaks JSON-RPC over /ws, one message per text frame, one call
// at a time.
type wsSession struct {
	conn *websocket.Conn
	id   int64
	buf  []byte
}

type rpcEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dialWS(ctx context.Context, base, protocol string) (*wsSession, error) {
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"mcp"}}
	conn, resp, err := d.DialContext(ctx, u, nil)
	if err != nil {
		if resp != nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			return nil, fmt.Errorf("websocket %s: %s: %s", u, resp.Status, strings.TrimSpace(string(body)))
		}
		return nil, fmt.Errorf("websocket %s: %w", u, err)
	}
	s := &wsSession{conn: conn}
	env, err := s.roundTrip(ctx, "initialize", initParams(protocol))
	if err == nil && env.Error != nil {
		err = fmt.Errorf("initialize: %d %s", env.Error.Code, env.Error.Message)
	}
	if err == nil {
		err = s.write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *wsSession) write(ctx context.Context, b []byte) error {
	dl, _ := ctx.Deadline() // zero: no deadline
	if err := s.conn.SetWriteDeadline(dl); err != nil {
		return err
	}
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

// roundTrip sends one request and reads until its answer, skipping
// notifications. ctx ending interrupts the read.
func (s *wsSession) roundTrip(ctx context.Context, method string, params any) (*rpcEnvelope, error) {
	s.id++
	id := strconv.FormatInt(s.id, 10)
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	s.buf = append(s.buf[:0], `{"jsonrpc":"2.0","id":`...)
	s.buf = append(s.buf, id...)
	s.buf = append(s.buf, `,"method":"`...)
	s.buf = append(s.buf, method...)
	s.buf = append(s.buf, `","params":`...)
	s.buf = append(s.buf, p...)
	s.buf = append(s.buf, '}')
	if err := s.write(ctx, s.buf); err != nil {
		return nil, err
	}
	dl, _ := ctx.Deadline()
	if err := s.conn.SetReadDeadline(dl); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = s.conn.SetReadDeadline(time.Now()) })
	defer stop()
	for {
		_, data, err := s.conn.ReadMessage()
		if err != nil {
			return nil, err
		}
		var env rpcEnvelope
		if err := json.Unmarshal(data, &env); err != nil {
			return nil, fmt.Errorf("%w: %v", errBadMessage, err)
		}
		if string(env.ID) == id {
			return &env, nil
		}
	}
}

var errBadMessage = errors.New("unparseable message")

func (s *wsSession) call(ctx context.Context, c call) outcome {
	env, err := s.roundTrip(ctx, "tools/call", map[string]any{"name": c.name(), "arguments": c.args})
	switch {
	case err != nil && ctx.Err() != nil:
		return outcome{kind: errTimeout, fatal: true}
	case errors.Is(err, errBadMessage):
		return outcome{kind: errProtocol, fatal: true}
	case err != nil:
		return outcome{kind: errTransport, fatal: true}
	case env.Error != nil:
		return outcome{kind: errRPC}
	}
	var r toolResult
	if json.Unmarshal(env.Result, &r) != nil {
		return outcome{kind: errProtocol}
	}
	text := ""
	if len(r.Content) > 0 {
		text = r.Content[0].Text
	}
	return judge(r.Meta.Cache, text, r.IsError)
}

func (s *wsSession) close() {
	_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	_ = s.conn.Close()
}

func (s *wsSession) pid() int { return 0 }

// mcpSession is an mcp-go client over SSE, streamable HTTP or stdio.
type mcpSession struct {
	c    *client.Client
	proc int
}

// sharedHTTP is one connection pool for all HTTP sessions, sized so that
// every session can keep its connections alive.
func sharedHTTP(sessions int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns:        2*sessions + 16,
		MaxIdleConnsPerHost: 2*sessions + 16,
		IdleConnTimeout:     time.Minute,
	}}
}

func dialSSE(ctx context.Context, base, protocol string, hc *http.Client) (*mcpSession, error) {
	t, err := clienttransport.NewSSE(base+"/sse", clienttransport.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	return startMCP(ctx, t, protocol, 0, mcp.ClientCapabilities{})
}

func dialStreamable(ctx context.Context, base, protocol string, hc *http.Client) (*mcpSession, error) {
	t, err := clienttransport.NewStreamableHTTP(base+"/mcp", clienttransport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	return startMCP(ctx, t, protocol, 0, mcp.ClientCapabilities{})
}

// dialStdio starts one server process and talks to it over its stdin and
// stdout, declaring caps. Its stderr goes to logs.
func dialStdio(ctx context.Context, bin string, env []string, protocol string, caps mcp.ClientCapabilities, logs io.Writer) (*mcpSession, error) {
	var mu sync.Mutex
	var started *exec.Cmd
	t := clienttransport.NewStdioWithOptions(bin, env, nil,
		clienttransport.WithCommandStderrWriter(logs),
		clienttransport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			mu.Lock()
			started = cmd
			mu.Unlock()
			return cmd, nil
		}))
	// The process lives as long as the transport, not as long as ctx.
	if err := t.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	mu.Lock()
	proc := 0
	if started != nil && started.Process != nil {
		proc = started.Process.Pid
	}
	mu.Unlock()
	return startMCP(ctx, t, protocol, proc, caps)
}

// startMCP starts the transport and completes the handshake within ctx,
// declaring caps.
// The transport itself (the SSE stream, for one) outlives ctx: it ends when
// the session is closed.
func startMCP(ctx context.Context, t clienttransport.Interface, protocol string, proc int, caps mcp.ClientCapabilities) (*mcpSession, error) {
	c := client.NewClient(t)
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		_ = c.Close()
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocol
	req.Params.ClientInfo = mcp.Implementation{Name: "nsip-load", Version: "1"}
	req.Params.Capabilities = caps
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return &mcpSession{c: c, proc: proc}, nil
}

func (s *mcpSession) call(ctx context.Context, c call) outcome {
	req := mcp.CallToolRequest{}
	req.Params.Name = c.name()
	req.Params.Arguments = c.args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		var te *clienttransport.Error
		switch {
		case ctx.Err() != nil:
			return outcome{kind: errTimeout}
		case errors.As(err, &te):
			return outcome{kind: errTransport, fatal: true}
		}
		return outcome{kind: errRPC}
	}
	cache := ""
	if res.Meta != nil {
		cache, _ = res.Meta.AdditionalFields["cache"].(string)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return judge(cache, text, res.IsError)
}

func (s *mcpSession) close() { _ = s.c.Close() }

func (s *mcpSession) pid() int { return s.proc }
