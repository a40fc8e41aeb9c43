package session

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// While the work runs, a call that asked for progress hears of it, each
// notification numbered after the last and carrying the call's token;
// none comes after Progress returns, so none after the call's result.
func TestProgressIsSentWhileTheWorkRuns(t *testing.T) {
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	s := server.NewInProcessSession("progress", nil)
	if err := srv.RegisterSession(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Initialize()
	var heard []mcp.JSONRPCNotification
	ran := 0
	srv.AddTool(mcp.NewTool("work"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		Progress(ctx, req, time.Millisecond, slog.New(slog.DiscardHandler), func() {
			ran++
			// With a token the work ends once two notifications have
			// come; without one it ends at once.
			for req.Params.Meta != nil && len(heard) < 2 {
				heard = append(heard, <-s.ClientNotifications())
			}
		})
		return mcp.NewToolResultText("done"), nil
	})
	ctx := srv.WithContext(context.Background(), s)
	call := func(meta string) {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{}` + meta + `}}`
		if _, ok := srv.HandleMessage(ctx, json.RawMessage(msg)).(mcp.JSONRPCResponse); !ok {
			t.Fatal("the call was not answered")
		}
	}
	call(`,"_meta":{"progressToken":"tok-1"}`)
	for len(s.ClientNotifications()) > 0 { // sent before the work's end was seen
		heard = append(heard, <-s.ClientNotifications())
	}
	if ran != 1 || len(heard) < 2 {
		t.Fatalf("the work ran %d times and heard %d notifications", ran, len(heard))
	}
	for i, n := range heard {
		f := n.Params.AdditionalFields
		msg, _ := f["message"].(string)
		if n.Method != "notifications/progress" || f["progressToken"] != "tok-1" || f["progress"] != i+1 || !strings.HasPrefix(msg, "waiting for NSIP: ") {
			t.Errorf("notification %d: %s %v", i+1, n.Method, f)
		}
	}

	// Without a token the work runs alone, and nothing is sent.
	call("")
	if ran != 2 || len(s.ClientNotifications()) != 0 {
		t.Errorf("without a token the work ran %d times in all, %d notifications", ran, len(s.ClientNotifications()))
	}
	// Outside a server, the same.
	Progress(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Meta: &mcp.Meta{ProgressToken: "tok-2"}}}, time.Nanosecond,
		slog.New(slog.DiscardHandler), func() { ran++ })
	if ran != 3 {
		t.Errorf("outside a server the work ran %d times in all", ran)
	}
}
