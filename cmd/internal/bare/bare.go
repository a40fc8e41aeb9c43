// Package bare is an MCP server that does nothing but answer: every tool
// it names answers at once with one fixed result. It stands beside
// nsip-mcp where what nsip-mcp adds to a cached call is measured
// (nsip-load --versus-bare, nsip-mcp's BenchmarkCachedCallOverTransport),
// answering with the very result nsip-mcp gave, so that both servers write
// the same bytes and the difference is nsip-mcp's own work.
package bare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// New is mcp-go with nothing of nsip-mcp's: the tools named, each
// answering with result, the JSON of a tool result as nsip-mcp sent it
// (content, _meta and structuredContent alike).
func New(result json.RawMessage, tools []string) (*server.MCPServer, error) {
	var fixed mcp.CallToolResult
	if err := json.Unmarshal(result, &fixed); err != nil {
		return nil, fmt.Errorf("the bare server's answer is not a tool result: %w", err)
	}
	if len(fixed.Content) == 0 {
		return nil, errors.New("the bare server's answer has no content")
	}
	s := server.NewMCPServer("bare", "1", server.WithToolCapabilities(false))
	answer := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A copy per call, since mcp-go may set fields of the result it
		// is handed; the parts it only reads are shared.
		r := fixed
		return &r, nil
	}
	for _, name := range tools {
		s.AddTool(mcp.NewTool(name, mcp.WithDescription("Answers with a fixed result.")), answer)
	}
	return s, nil
}
