package transport

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A call over streamable HTTP can name its client's address, which a
// stateless server's logs need: its calls belong to no session.
func TestClientAddressReachesStreamableCalls(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		s := server.NewMCPServer("transport-test", "1.0.0", server.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("who", mcp.WithDescription("Name the caller's address")),
			func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("client " + ClientAddress(ctx)), nil
			})
		srv := serveNetwork(t, KindHTTPSSE, s, Options{Stateless: stateless})
		c := newMCPClient(t, "streamable", srv.base)
		got, err := callText(context.Background(), c, "who", nil)
		if err != nil || got != "client 127.0.0.1" {
			t.Errorf("stateless %v: %q, %v; want the loopback address", stateless, got, err)
		}
	}
	if a := ClientAddress(context.Background()); a != "" {
		t.Errorf("outside a request: %q", a)
	}
}
