package gateway

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	appviews "github.com/nsip-tools/nsip-mcp/gateway/views"
)

// toolDef is a tool as the call path serves it: a lookup tool's
// definition (gateway/lookup), or an analysis tool's in the same shape
// (analyses), which also names the analysis every call of it runs.
type toolDef struct {
	*lookup.Def
	// analysis, for an analysis tool, is the analysis every call runs.
	analysis *analysisEntry
}

// toolDefs are the nine lookup tools, in the order tools/list shows them.
var toolDefs = func() []*toolDef {
	out := make([]*toolDef, len(lookup.All))
	for i, d := range lookup.All {
		out[i] = &toolDef{Def: d}
	}
	return out
}()

// analysisOf is the analysis a validated call of d runs: the tool's own,
// or nsip_get_animal's with percentiles; nil for a lookup.
func (d *toolDef) analysisOf(c *toolCall) *analysisEntry {
	if d.analysis != nil {
		return d.analysis
	}
	return percentilesCall(d.Def, c)
}

// example is a correct call of d for an error message.
func (d *toolDef) example(sent map[string]any) map[string]any {
	if d.analysis != nil {
		return d.analysis.Example(sent)
	}
	return d.Args.Example(sent)
}

// Tools returns the tools of the configured toolsets bound to this
// gateway: the nine NSIP lookups, then the analysis tools computed from
// their answers.
func (g *Gateway) Tools() []server.ServerTool {
	var out []server.ServerTool
	if g.offersToolset(toolsets.Lookup) {
		for _, d := range toolDefs {
			out = append(out, g.serverTool(d))
		}
	}
	if g.offersToolset(toolsets.Analysis) {
		out = append(out, g.analysisTools()...)
	}
	for i := range out {
		out[i].Handler = g.forms.Wrap(out[i].Handler)
	}
	return out
}

func (g *Gateway) serverTool(d *toolDef) server.ServerTool {
	t := mcp.NewTool(d.Name,
		mcp.WithToolIcons(toolsets.Icon(toolsets.Lookup)),
		mcp.WithToolTitle(d.Title),
		mcp.WithDescription(d.Desc),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           d.Title,
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(true),
		}),
	)
	t.InputSchema = param.InputSchema(d.Args.Specs)
	if d.Answer() != nil {
		t.RawOutputSchema = lookupSchema(d.Def)
	}
	appviews.Declare(&t)
	return server.ServerTool{Tool: t, Handler: g.handler(d)}
}
