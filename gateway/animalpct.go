package gateway

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
)

// nsip_get_animal with percentiles: true is no single lookup: each EBV's
// breed percentile takes NSIP's sorted pages of the breed. It is served as
// an analysis under the tool's own name and arguments, its lookups
// counted against their ceiling and its answer fitted like theirs; without
// percentiles the tool answers as NSIP sent the record.
var animalPercentiles = func() *analysisEntry {
	own := *percentile.AnimalPercentiles
	own.Args = lookup.Animal.Args
	tool := lookup.Animal.Def
	tool.Kind = own.Kind
	return &analysisEntry{Def: &own, tool: &toolDef{Def: &tool}}
}()

// argPercentiles is the argument that asks for them.
var argPercentiles = lookup.Animal.Args.Name("Percentiles")

// percentilesCall is the analysis a validated call of d is, when it asks
// for percentiles; nil otherwise.
func percentilesCall(d *lookup.Def, c toolCall) *analysisEntry {
	if !d.Percentiles || !c.args.Bool(argPercentiles) {
		return nil
	}
	return animalPercentiles
}
