package gateway

import (
	"slices"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
)

// Which tools each configured toolset (gateway/toolsets) offers.

// offersToolset reports whether the configuration lists the toolset.
func (g *Gateway) offersToolset(name string) bool { return slices.Contains(g.cfg.Toolsets, name) }

// offers reports whether the tool called name is listed and callable.
func (g *Gateway) offers(name string) bool {
	if lookup.Named(name) != nil {
		return g.offersToolset(toolsets.Lookup)
	}
	if analysisNamedTool(name) != nil {
		return g.offersToolset(toolsets.Analysis)
	}
	return false
}

func analysisNamedTool(name string) *analysisEntry {
	for _, a := range analyses {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// offeredToolNames are the names of the tools this gateway offers, in table
// order.
func (g *Gateway) offeredToolNames() []string {
	var names []string
	for _, n := range allToolNames() {
		if g.offers(n) {
			names = append(names, n)
		}
	}
	return names
}

// allToolNames are every tool's name in table order: the lookups, then the
// analyses.
func allToolNames() []string {
	names := make([]string, 0, len(lookup.All)+len(analyses))
	for _, d := range lookup.All {
		names = append(names, d.Name)
	}
	for _, a := range analyses {
		names = append(names, a.Name)
	}
	return names
}
