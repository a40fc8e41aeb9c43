package gateway

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/structured"
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

// lookupSchema is lookup d's output schema.
func lookupSchema(d *lookup.Def) json.RawMessage {
	return structured.Lookup(d.Answer(), d.Kind, d.Percentiles)
}

// withStructured adds the structured copy of a successful lookup answer to
// res: the copy kept with a cached answer, or one written now from its
// text or, for a bare list, its model (structured.Copy).
func withStructured(res *mcp.CallToolResult, d *tooldef.Def, o outcome) *mcp.CallToolResult {
	if o.structured != nil {
		res.RawStructuredContent = o.structured // kept when cached
		return res
	}
	var model any
	if o.formatNote == "" {
		model = o.value
	}
	if b := structured.Copy(d.Kind, o.res.Text, o.res.IsObject(), model); b != nil {
		res.RawStructuredContent = b
	}
	return res
}
