package session

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// A call outside any session is left as it is: nothing ends it but its own
// context.
func TestCallOutsideASessionIsNotTracked(t *testing.T) {
	var sc Calls
	ctx, c := sc.Begin(context.Background())
	if ctx != context.Background() || c != nil {
		t.Error("a call outside a session got a context of its own")
	}
	sc.Done(c)
	if n := sc.End(""); n != 0 {
		t.Errorf("End of no session cancelled %d calls", n)
	}
}

// A session's end cancels its tool calls and resource reads still running,
// with ErrEnded as the cause, and logs how many; calls that finished are
// forgotten, and other sessions' calls run on.
func TestSessionEndCancelsItsCalls(t *testing.T) {
	var sc Calls
	var seen sessions
	logs := &logbuf.Buffer{}
	h := &server.Hooks{}
	seen.hook(h)
	opts := sc.Options(h, slog.New(slog.NewTextHandler(logs, nil)))
	started := make(chan struct{}, 4)
	causes := make(chan error, 4)
	wait := func(ctx context.Context) {
		started <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
	}
	srv := server.NewMCPServer("t", "0", append(opts, server.WithHooks(h), server.WithResourceCapabilities(false, false))...)
	srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		wait(ctx)
		return mcp.NewToolResultText("ended"), nil
	})
	srv.AddTool(mcp.NewTool("quick"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("done"), nil
	})
	srv.AddResource(mcp.NewResource("nsip://wait", "wait"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		wait(ctx)
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "ended"}}, nil
	})

	c := connect(t, srv)
	id := seen.last(t)
	other := connect(t, srv)
	callTool(t, c, "quick", nil) // finished: nothing of it is left to cancel
	callTool(t, other, "quick", nil)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, _ = c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "wait"}})
	}()
	go func() {
		defer wg.Done()
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "nsip://wait"
		_, _ = c.ReadResource(context.Background(), req)
	}()
	<-started
	<-started

	if n := sc.End(id); n != 2 {
		t.Errorf("End cancelled %d calls, want the 2 running", n)
	}
	for range 2 {
		if err := <-causes; !errors.Is(err, ErrEnded) {
			t.Errorf("a call ended with %v, want ErrEnded", err)
		}
	}
	wg.Wait()
	if n := sc.End(id); n != 0 {
		t.Errorf("a second End cancelled %d calls", n)
	}

	// Through the hook: the session's end cancels its running call and
	// logs it.
	go func() {
		_, _ = c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "wait"}})
	}()
	<-started
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-causes; !errors.Is(err, ErrEnded) {
		t.Errorf("at the session's end a call ended with %v, want ErrEnded", err)
	}
	line := logs.String()
	if !strings.Contains(line, "calls of an ended session were cancelled") || !strings.Contains(line, "session="+id) || !strings.Contains(line, "running=1") {
		t.Errorf("log %q; want the session and the 1 call it had running", line)
	}
	// A session ending with nothing running logs nothing.
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "cancelled"); n != 1 {
		t.Errorf("%d cancellation lines, want 1:\n%s", n, logs.String())
	}
}

// A call in a session its transport ends itself (a WebSocket connection)
// is not registered: its context is the one it came with, and the
// session's end finds nothing to cancel.
func TestSessionBoundCallsAreLeftToTheirTransport(t *testing.T) {
	srv := server.NewMCPServer("t", "1")
	var sc Calls
	bound := srv.WithContext(caller.WithSessionBound(context.Background()), stubSession("ws"))
	ctx, c := sc.Begin(bound)
	if ctx != bound || c != nil {
		t.Error("a session-bound call was given a context of its own")
	}
	if n := sc.End("ws"); n != 0 {
		t.Errorf("the session's end cancelled %d calls", n)
	}
	sc.Done(c)
	other := srv.WithContext(context.Background(), stubSession("http"))
	ctx, c = sc.Begin(other)
	defer sc.Done(c)
	if n := sc.End("http"); n != 1 || !errors.Is(context.Cause(ctx), ErrEnded) {
		t.Errorf("a call of a session its transport does not end: %d cancelled, cause %v", n, context.Cause(ctx))
	}
	// A call that finished is forgotten: the session's end finds nothing.
	ctx, c = sc.Begin(other)
	sc.Done(c)
	if n := sc.End("http"); n != 0 || context.Cause(ctx) != context.Canceled {
		t.Errorf("a finished call: %d cancelled at the end, cause %v", n, context.Cause(ctx))
	}
}
