package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// newAskingServer has one tool, ask, that sends the server request named by
// its "what" argument (elicit, sample, roots, ping) to the calling client and
// answers with what came back. Each handler error is also sent on errs.
func newAskingServer(errs chan<- error) *server.MCPServer {
	s := server.NewMCPServer("transport-test", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	s.EnableSampling()
	s.AddTool(mcp.NewTool("ask", mcp.WithString("what", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := askClient(ctx, req.GetString("what", ""))
			if err != nil {
				if errs != nil {
					errs <- err
				}
				return mcp.NewToolResultError("ask failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	return s
}

func askClient(ctx context.Context, what string) (string, error) {
	s := server.ServerFromContext(ctx)
	switch what {
	case "elicit":
		res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message: "Which breed?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
				"breed": map[string]any{"type": "string"},
			}},
		}})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("elicited %s %v", res.Action, res.Content), nil
	case "sample":
		// MCPServer.RequestSampling is deprecated with the feature in
		// protocol 2026-07-28; older clients still answer it, so the
		// session's own method is exercised.
		ss, ok := server.ClientSessionFromContext(ctx).(server.SessionWithSampling)
		if !ok {
			return "", errors.New("session does not support sampling")
		}
		res, err := ss.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("Name a hardy breed")}},
			MaxTokens: 20,
		}})
		if err != nil {
			return "", err
		}
		text, _ := res.Content.(mcp.TextContent)
		return fmt.Sprintf("sampled %s from %s", text.Text, res.Model), nil
	case "roots":
		res, err := s.RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return "", err
		}
		uris := make([]string, len(res.Roots))
		for i, r := range res.Roots {
			uris[i] = r.URI
		}
		return "roots " + strings.Join(uris, ","), nil
	case "ping":
		p, ok := server.ClientSessionFromContext(ctx).(interface{ Ping(context.Context) error })
		if !ok {
			return "", errors.New("this session cannot ping its client")
		}
		if err := p.Ping(ctx); err != nil {
			return "", err
		}
		return "pong", nil
	}
	return "", fmt.Errorf("unknown what %q", what)
}

// readUntilRequest reads messages until the server sends a request, which
// it returns; a tool result arriving first is an error.
func (c *wsClient) readUntilRequest() (rpcMessage, error) {
	for {
		m, err := c.read()
		if err != nil {
			return m, err
		}
		if m.Method != "" && m.ID != nil {
			return m, nil
		}
		if m.Result != nil || m.Error != nil {
			return m, fmt.Errorf("got an answer %s %v before any server request", m.Result, m.Error)
		}
	}
}

// readAnswer reads until the answer to the request with id.
func (c *wsClient) readAnswer(id string) (rpcMessage, error) {
	for {
		m, err := c.read()
		if err != nil || (m.Method == "" && string(m.ID) == id) {
			return m, err
		}
	}
}

func TestWebSocketServerRequestsReachTheClientAndItsAnswersComeBack(t *testing.T) {
	cases := []struct {
		what, method string
		result       any
		want         string
	}{
		{"elicit", "elicitation/create", map[string]any{"action": "accept", "content": map[string]any{"breed": "Katahdin"}}, "elicited accept map[breed:Katahdin]"},
		{"sample", "sampling/createMessage", map[string]any{"role": "assistant", "model": "flock-model", "content": map[string]any{"type": "text", "text": "Katahdin"}}, "sampled Katahdin from flock-model"},
		{"roots", "roots/list", map[string]any{"roots": []any{map[string]any{"uri": "file:///flocks/north", "name": "north"}}}, "roots file:///flocks/north"},
		{"ping", "ping", map[string]any{}, "pong"},
	}
	srv := serveNetwork(t, KindWebSocket, newAskingServer(nil), Options{})
	c := mustDialWS(t, srv.base)
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			id, err := c.send("tools/call", callParams("ask", map[string]any{"what": tc.what}))
			if err != nil {
				t.Fatal(err)
			}
			req, err := c.readUntilRequest()
			if err != nil {
				t.Fatal(err)
			}
			if req.Method != tc.method {
				t.Fatalf("server sent %q, want %q", req.Method, tc.method)
			}
			if tc.what == "elicit" && req.Params["message"] != "Which breed?" {
				t.Errorf("elicitation params %v lack the question", req.Params)
			}
			if err := c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": tc.result}); err != nil {
				t.Fatal(err)
			}
			res, err := c.readAnswer(id)
			if err != nil {
				t.Fatal(err)
			}
			if got := toolText(res); got != tc.want {
				t.Errorf("tool answered %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWebSocketServerRequestSeesTheClientsError(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newAskingServer(nil), Options{})
	c := mustDialWS(t, srv.base)
	id, _ := c.send("tools/call", callParams("ask", map[string]any{"what": "roots"}))
	req, err := c.readUntilRequest()
	if err != nil {
		t.Fatal(err)
	}
	// An answer to an id the server never used is ignored, not mistaken
	// for the one it waits for.
	_ = c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": 9999, "result": map[string]any{"roots": []any{}}})
	_ = c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "roots are not offered"}})
	res, err := c.readAnswer(id)
	if err != nil {
		t.Fatal(err)
	}
	want := "ask failed: the client answered roots/list with error -32601: roots are not offered"
	if got := toolText(res); got != want {
		t.Errorf("tool answered %q, want %q", got, want)
	}
}

func TestWebSocketServerRequestTimesOutAndIsCancelled(t *testing.T) {
	errs := make(chan error, 1)
	srv := serveNetwork(t, KindWebSocket, newAskingServer(errs), Options{ClientRequestTimeout: 50 * time.Millisecond})
	c := mustDialWS(t, srv.base)
	id, _ := c.send("tools/call", callParams("ask", map[string]any{"what": "elicit"}))
	req, err := c.readUntilRequest()
	if err != nil {
		t.Fatal(err)
	}
	// The client stays silent. The server gives up, tells the client to
	// stop, and the tool sees why.
	var cancelled rpcMessage
	for cancelled.Method == "" {
		m, err := c.read()
		if err != nil {
			t.Fatal(err)
		}
		if m.Method == "notifications/cancelled" {
			cancelled = m
		}
	}
	if got, want := fmt.Sprint(cancelled.Params["requestId"]), string(req.ID); got != want {
		t.Errorf("cancelled requestId %s, want %s", got, want)
	}
	res, err := c.readAnswer(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolText(res); !strings.Contains(got, "did not answer elicitation/create within 50ms") {
		t.Errorf("tool answered %q, want the timeout named", got)
	}
	if err := <-errs; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("handler saw %v, want a deadline error", err)
	}
	// A late answer is ignored and the connection still serves calls.
	_ = c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"action": "decline"}})
	again, err := c.call("tools/call", callParams("ask", map[string]any{"what": "nonsense"}))
	if err != nil || toolText(again) != `ask failed: unknown what "nonsense"` {
		t.Errorf("after the timeout: %q, %v", toolText(again), err)
	}
	<-errs
}

func TestWebSocketServerRequestEndsWhenTheConnectionCloses(t *testing.T) {
	errs := make(chan error, 1)
	srv := serveNetwork(t, KindWebSocket, newAskingServer(errs), Options{})
	c := mustDialWS(t, srv.base)
	if _, err := c.send("tools/call", callParams("ask", map[string]any{"what": "sample"})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.readUntilRequest(); err != nil {
		t.Fatal(err)
	}
	_ = c.conn.Close()
	if err := <-errs; !errors.Is(err, ErrConnectionClosed) {
		t.Errorf("handler saw %v, want ErrConnectionClosed", err)
	}
}

func TestWebSocketPendingAnswersMatchCanonicalIDs(t *testing.T) {
	var p wsPending
	_, key, ch := p.open()
	// A client may echo the id as 1.0 or 1e0; classify folds both to the
	// same key, which is what open registered.
	for _, raw := range []string{`1.0`, `1e0`} {
		k, ok := idKey(json.RawMessage(raw))
		if !ok || k != key {
			t.Errorf("idKey(%s) = %q, want %q", raw, k, key)
		}
	}
	if !p.deliver(key, []byte(`{"result":{}}`)) {
		t.Fatal("deliver found nobody waiting")
	}
	if got := string(<-ch); got != `{"result":{}}` {
		t.Errorf("delivered %s", got)
	}
	if p.deliver(key, []byte(`{}`)) {
		t.Error("a second answer to the same id was delivered")
	}
}
