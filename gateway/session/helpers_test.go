package session

import (
	"context"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// sessions records the IDs of the sessions a server registers, in order.
type sessions struct {
	mu  sync.Mutex
	ids []string
}

func (s *sessions) hook(h *server.Hooks) {
	h.AddOnRegisterSession(func(_ context.Context, cs server.ClientSession) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.ids = append(s.ids, cs.SessionID())
	})
}

func (s *sessions) last(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ids) == 0 {
		t.Fatal("no session registered")
	}
	return s.ids[len(s.ids)-1]
}

// connect starts an in-process client of srv; closing it ends its session.
func connect(t *testing.T, srv *server.MCPServer) *client.Client {
	t.Helper()
	c, _ := rpctest.Connect(t, srv, "")
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}
