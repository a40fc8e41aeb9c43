package gateway

import (
	"slices"
)

// Which tools each configured toolset (gateway/toolsets) offers.

// offersToolset reports whether the configuration lists the toolset.
func (g *Gateway) offersToolset(name string) bool { return slices.Contains(g.cfg.Toolsets, name) }

// offers reports whether the tool called name is listed and callable.
func (g *Gateway) offers(name string) bool {
	d := toolNamed(name)
	return d != nil && g.offersToolset(d.Toolset)
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

// allToolNames are every tool's name in registry order.
func allToolNames() []string {
	names := make([]string, len(registry))
	for i, d := range registry {
		names[i] = d.Name
	}
	return names
}
