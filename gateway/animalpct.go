package gateway

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
)

// nsip_get_animal with percentiles: true is no single lookup: each EBV's
// breed percentile takes NSIP's sorted pages of the breed. It is served as
// an analysis under the tool's own name and arguments, its lookups
// counted against their ceiling and its answer fitted like theirs; without
// percentiles the tool answers as NSIP sent the record.
var animalPercentiles = func() *analysisEntry {
	own := *analysis.AnimalPercentiles
	own.Params = animalDef.params
	tool := *animalDef
	tool.kind = analysisKind
	return &analysisEntry{Def: &own, tool: &tool}
}()

// percentilesCall is the analysis a call of d is, when its arguments (sent,
// as param.Decode gave them; nil when they did not decode) ask for
// percentiles; nil otherwise (an invalid value is left to d's validation).
func percentilesCall(d *toolDef, sent map[string]any) *analysisEntry {
	if !d.percentiles {
		return nil
	}
	if on, _ := sent["percentiles"].(bool); !on {
		return nil
	}
	return animalPercentiles
}
