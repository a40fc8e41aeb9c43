package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testTimeout bounds every wait in these tests; far above what any step needs.
const testTimeout = 20 * time.Second

// gate lets a test hold the "block" tool until it chooses to release it, and
// learn when a call has entered the tool.
type gate struct {
	entered chan string
	release chan struct{}
	once    sync.Once
}

func newGate() *gate {
	return &gate{entered: make(chan string, 100), release: make(chan struct{})}
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// waitEntered returns the label of the next call to reach the block tool.
func (g *gate) waitEntered(t *testing.T) string {
	t.Helper()
	select {
	case label := <-g.entered:
		return label
	case <-time.After(testTimeout):
		t.Fatal("no call reached the block tool")
		return ""
	}
}

// newTestServer builds an MCP server with tools that exercise a transport:
// echo answers at once, block waits for the gate, progress sends a progress
// notification before answering (after the gate opens, when asked to hold),
// log sends a log notification.
func newTestServer(g *gate) *server.MCPServer {
	s := server.NewMCPServer("transport-test", "1.0.0", server.WithToolCapabilities(false), server.WithLogging())
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo text back"), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("block", mcp.WithDescription("Wait for the test to release"), mcp.WithString("label")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			label := req.GetString("label", "")
			g.entered <- label
			select {
			case <-g.release:
				return mcp.NewToolResultText("released: " + label), nil
			case <-ctx.Done():
				return mcp.NewToolResultError("cancelled: " + label), nil
			}
		})
	s.AddTool(mcp.NewTool("progress", mcp.WithDescription("Report progress, then answer"), mcp.WithBoolean("hold")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var token mcp.ProgressToken
			if req.Params.Meta != nil {
				token = req.Params.Meta.ProgressToken
			}
			if token != nil {
				err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token, "progress": 1, "total": 2, "message": "half way",
				})
				if err != nil {
					return mcp.NewToolResultError("notify: " + err.Error()), nil
				}
			}
			// hold keeps the call open until the test has seen the
			// notification: mcp-go's streamable HTTP server can drop one
			// queued in the instant its call returns.
			if req.GetBool("hold", false) {
				select {
				case <-g.release:
				case <-ctx.Done():
				}
			}
			return mcp.NewToolResultText("progress done"), nil
		})
	s.AddTool(mcp.NewTool("log", mcp.WithDescription("Log a message to the client, then answer")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := server.ServerFromContext(ctx).SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "flock", "looked up 3 rams"))
			if err != nil {
				return mcp.NewToolResultError("log: " + err.Error()), nil
			}
			return mcp.NewToolResultText("logged"), nil
		})
	return s
}

// testLogger writes transport logs into the test's output.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// served is a network transport running in the background of a test.
type served struct {
	base string // http://127.0.0.1:port
	addr string // 127.0.0.1:port
	stop func() error
}

// serveNetwork starts kind on a loopback port and registers its shutdown.
func serveNetwork(t *testing.T, kind string, s *server.MCPServer, opts Options) *served {
	t.Helper()
	ln := opts.Listener // a test's own listener, else one on loopback
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		opts.Listener = ln
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	if opts.Version == "" {
		opts.Version = "test-1"
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, kind, s, opts) }()
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(testTimeout):
				stopErr = fmt.Errorf("Serve did not return %v after cancel", testTimeout)
			}
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	addr := ln.Addr().String()
	return &served{base: "http://" + addr, addr: addr, stop: stop}
}

// newHTTPClient gives each test client its own connection pool so that
// cleanup can close it and leave no goroutines behind.
func newHTTPClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// newMCPClient connects mcp-go's client over the legacy SSE transport
// ("sse") or streamable HTTP ("streamable") and completes the handshake.
func newMCPClient(t *testing.T, flavour, base string) *client.Client {
	t.Helper()
	c, err := connectMCP(t, flavour, base)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// connectMCP is newMCPClient for use off the test goroutine.
func connectMCP(t *testing.T, flavour, base string) (*client.Client, error) {
	var c *client.Client
	var err error
	switch flavour {
	case "sse":
		c, err = client.NewSSEMCPClient(base+"/sse", client.WithHTTPClient(newHTTPClient(t)))
	case "streamable":
		c, err = client.NewStreamableHttpClient(base+"/mcp", clienttransport.WithHTTPBasicClient(newHTTPClient(t)))
	default:
		err = fmt.Errorf("unknown client flavour %q", flavour)
	}
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", flavour, err)
	}
	// The SSE client keeps its stream on Start's context, so that context
	// must live as long as the client.
	life, end := context.WithCancel(context.Background())
	t.Cleanup(func() { _ = c.Close(); end() })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := c.Start(life); err != nil {
		return nil, fmt.Errorf("%s client start: %w", flavour, err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "transport-test", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s initialize: %w", flavour, err)
	}
	if res.ServerInfo.Name != "transport-test" {
		return nil, fmt.Errorf("%s initialize: server name %q, want transport-test", flavour, res.ServerInfo.Name)
	}
	return c, nil
}

// callText calls a tool and returns the text of its single content item.
func callText(ctx context.Context, c *client.Client, tool string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("%s: %d content items, want 1", tool, len(res.Content))
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("%s: content is %T, want text", tool, res.Content[0])
	}
	return text.Text, nil
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// getJSON fetches url and decodes the JSON body; a body that is not JSON
// comes back under "_raw".
func getJSON(t *testing.T, url string, header http.Header) (int, map[string]any) {
	t.Helper()
	status, body := doRequest(t, http.MethodGet, url, header, nil)
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return status, map[string]any{"_raw": body}
	}
	return status, v
}

// postRaw sends body to url and returns status and body text.
func postRaw(t *testing.T, url string, header http.Header, body []byte) (int, string) {
	t.Helper()
	return doRequest(t, http.MethodPost, url, header, body)
}

// doRequest sends one request as an MCP client would; a "Host" entry in
// header becomes the request's Host.
func doRequest(t *testing.T, method, url string, header http.Header, body []byte) (int, string) {
	t.Helper()
	status, _, text := doRequestHeader(t, method, url, header, body)
	return status, text
}

// doRequestHeader is doRequest that also returns the response headers.
func doRequestHeader(t *testing.T, method, url string, header http.Header, body []byte) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	// A client of its own, closed once the answer is read: an idle
	// connection left per request would add goroutines on both ends at
	// every call, and tests that count goroutines poll /healthz.
	c := newHTTPClient(t)
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// reportErrors fails the test for every non-nil error sent on errs, which
// must be closed.
func reportErrors(t *testing.T, errs <-chan error) {
	t.Helper()
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
