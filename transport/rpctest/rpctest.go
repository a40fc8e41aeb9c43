// Package rpctest holds what the tests of several packages do as an MCP
// client: connect to a server in process, send one request to it, and
// list what a server offers besides its tools.
package rpctest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Connect starts an in-process client of srv with opts and initializes it
// speaking protocol version ("" for the latest), closing it when tb ends,
// and returns what initialize (or server/discover, from 2026-07-28 on)
// answered.
func Connect(tb testing.TB, srv *server.MCPServer, version string, opts ...client.ClientOption) (*client.Client, *mcp.InitializeResult) {
	tb.Helper()
	c, err := client.NewInProcessClientWithOptions(srv, opts...)
	if err != nil {
		tb.Fatalf("in-process client: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatalf("start the in-process client: %v", err)
	}
	if version == "" {
		version = mcp.LATEST_PROTOCOL_VERSION
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "rpctest", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		tb.Fatalf("initialize %s: %v", version, err)
	}
	return c, res
}

// ids numbers the requests Send makes, so that no two share an ID.
var ids atomic.Int64

// Send sends method with params to srv as a request made in ctx (whose
// session and caller it carries) and returns the result as JSON decodes
// it, or the message of the JSON-RPC error it was answered with.
func Send(tb testing.TB, ctx context.Context, srv *server.MCPServer, method string, params any) (map[string]any, string) {
	tb.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		tb.Fatalf("%s: params: %v", method, err)
	}
	return SendRaw(tb, ctx, srv, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, ids.Add(1), method, p))
}

// SendRaw is Send of a message exactly as written.
func SendRaw(tb testing.TB, ctx context.Context, srv *server.MCPServer, msg string) (map[string]any, string) {
	tb.Helper()
	switch r := srv.HandleMessage(ctx, json.RawMessage(msg)).(type) {
	case mcp.JSONRPCResponse:
		b, err := json.Marshal(r.Result)
		if err != nil {
			tb.Fatalf("%s: %v", msg, err)
		}
		var out map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			tb.Fatalf("%s: result %s: %v", msg, b, err)
		}
		return out, ""
	case mcp.JSONRPCError:
		return nil, r.Error.Message
	default:
		tb.Fatalf("%s: answered %T", msg, r)
		return nil, ""
	}
}

// Features are the resources, resource templates and prompts a client is
// offered.
type Features struct {
	Resources *mcp.ListResourcesResult
	Templates *mcp.ListResourceTemplatesResult
	Prompts   *mcp.ListPromptsResult
}

// ListFeatures lists the features c is offered; a list that fails fails
// the test.
func ListFeatures(tb testing.TB, ctx context.Context, c *client.Client) Features {
	tb.Helper()
	var f Features
	var err error
	if f.Resources, err = c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
		tb.Fatalf("resources/list: %v", err)
	}
	if f.Templates, err = c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{}); err != nil {
		tb.Fatalf("resources/templates/list: %v", err)
	}
	if f.Prompts, err = c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
		tb.Fatalf("prompts/list: %v", err)
	}
	return f
}
