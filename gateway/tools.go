package gateway

import (
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	appviews "github.com/nsip-tools/nsip-mcp/gateway/views"
)

// toolDef is a tool as the call path serves it: the definition every
// tool has, and what answers it, a lookup (gateway/lookup) or an analysis
// (analyses).
type toolDef struct {
	*tooldef.Def
	// lookup, for a lookup tool, is the lookup every call makes (unless
	// it asks for percentiles: percentilesCall).
	lookup *lookup.Def
	// analysis, for an analysis tool, is the analysis every call runs.
	analysis *analysisEntry
}

// lookupToolDefs are the nine lookup tools, in the order tools/list shows them.
var lookupToolDefs = func() []*toolDef {
	out := make([]*toolDef, len(lookup.All))
	for i, d := range lookup.All {
		out[i] = &toolDef{Def: &d.Def, lookup: d}
	}
	return out
}()

// registry is every tool, in the order tools/list shows them: the
// lookups, then the analyses computed from their answers. A tool that
// could not be served stops the server at start-up.
var registry = func() []*toolDef {
	out := slices.Clone(lookupToolDefs)
	for _, a := range analyses {
		out = append(out, a.tool)
	}
	for _, d := range out {
		if err := d.Check(); err != nil {
			panic(err)
		}
		if (d.lookup == nil) == (d.analysis == nil) {
			panic(fmt.Sprintf("gateway: %s must be answered by a lookup or an analysis, and by one only", d.Name))
		}
	}
	return out
}()

// toolNamed is the tool called name, or nil.
func toolNamed(name string) *toolDef {
	for _, d := range registry {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// analysisOf is the analysis a validated call of d runs: the tool's own,
// or nsip_get_animal's with percentiles; nil for a lookup.
func (d *toolDef) analysisOf(c toolCall) *analysisEntry {
	if d.analysis != nil {
		return d.analysis
	}
	return percentilesCall(d.lookup, c)
}

// example is a correct call of d for an error message.
func (d *toolDef) example(sent param.Sent) *param.Call {
	if d.analysis != nil {
		return d.analysis.Example(sent)
	}
	return d.Args.Example(sent)
}

// Tools returns the tools of the configured toolsets bound to this
// gateway, in registry order.
func (g *Gateway) Tools() []server.ServerTool {
	var out []server.ServerTool
	for _, d := range registry {
		switch {
		case !g.offersToolset(d.Toolset):
		case d.analysis != nil:
			out = append(out, g.analysisTool(d.analysis))
		default:
			out = append(out, g.serverTool(d))
		}
	}
	for i := range out {
		out[i].Handler = g.forms.Wrap(out[i].Handler)
	}
	return out
}

func (g *Gateway) serverTool(d *toolDef) server.ServerTool {
	t := mcp.NewTool(d.Name,
		mcp.WithToolIcons(toolsets.Icon(d.Toolset)),
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
	t.InputSchema = d.Args.InputSchema()
	if d.lookup != nil && d.lookup.Answer() != nil {
		t.RawOutputSchema = lookupSchema(d.lookup)
	}
	appviews.Declare(&t)
	return server.ServerTool{Tool: t, Handler: g.handler(d)}
}
