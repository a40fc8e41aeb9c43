package gateway

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/structured"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
)

// Every tool declares an output schema and returns its answer a second
// time as structuredContent (gateway/structured); here are the tool
// table's parts of them.

// structuredOrNot is tools as served: with Config.NoStructured, without
// output schemas, and their results without structuredContent.
func (g *Gateway) structuredOrNot(tools []server.ServerTool) []server.ServerTool {
	if !g.cfg.NoStructured {
		return tools
	}
	return structured.Strip(tools)
}

// withStructured adds the structured copy of a successful lookup answer to
// res: the copy kept with a cached answer, or one written now from its
// text or, for a bare list, its model (structured.Copy).
func withStructured(res *mcp.CallToolResult, d *tooldef.Def, o toolcall.Outcome) *mcp.CallToolResult {
	if o.Structured != nil {
		res.RawStructuredContent = o.Structured // kept when cached, or an analysis's own JSON
		return res
	}
	var model any
	if o.FormatNote == "" {
		model = o.Value
	}
	if b := structured.Copy(d.Kind, o.Res.Text, o.Res.IsObject(), model); b != nil {
		res.RawStructuredContent = b
	}
	return res
}
