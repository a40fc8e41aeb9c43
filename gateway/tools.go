package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/diversity"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"
	"github.com/nsip-tools/nsip-mcp/gateway/argcheck"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/structured"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
)

// toolDef is a tool as the one call path serves it: the definition every
// tool has, and its run over the call's source of NSIP reads. What tells
// one tool from another is in these fields, set once when it is
// registered, so the call path never asks what kind of tool it serves.
type toolDef struct {
	*tooldef.Def
	// run answers a validated call.
	run func(ctx context.Context, c toolcall.Call, src lookup.Source) toolcall.Outcome
	// analysis is what the run's Analyze computes: the tool's own, or the
	// one a lookup's call may choose (nsip_get_animal's percentiles).
	analysis *analysisEntry
	// schema is the output schema; nil for none.
	schema json.RawMessage
	// tasks: a call may run as an MCP task (gateway/tasks).
	tasks bool
	// breedTraits: the trait codes a call names are checked against the
	// breed's own (gateway/argcheck) before NSIP is asked.
	breedTraits bool
	// asksInRun: what validation finds missing is asked of the user by
	// the run itself, in its forms (elicit.LeftToAsk), rather than before.
	asksInRun bool
	// example is a correct call for an error message, from the arguments
	// as sent.
	example func(param.Sent) *param.Call
	// breedPaths are the dotted paths of the breed IDs a call may name
	// as text (argcheck.Breeds.ReadNames).
	breedPaths []string
	// index is the tool's place in registry, where each gateway keeps its
	// source (Gateway.sources).
	index int
}

// lookupTool is lookup d as the call path serves it; pct is the analysis
// a call of d may choose instead (lookup.Def.Percentiles), or nil.
func lookupTool(d *lookup.Def, pct *analysis.Def) *toolDef {
	if d.Percentiles != (pct != nil) {
		panic(fmt.Sprintf("gateway: %s takes percentiles only with their analysis", d.Name))
	}
	t := &toolDef{Def: &d.Def, breedTraits: d.BreedTraits, example: d.Args.Example, breedPaths: argcheck.BreedPaths(d.Args.Specs),
		run: func(ctx context.Context, c toolcall.Call, src lookup.Source) toolcall.Outcome {
			return d.Run(ctx, c, src)
		}}
	if d.Answer() != nil {
		t.schema = structured.Lookup(d.Answer(), d.Kind, d.Percentiles)
	}
	if pct != nil {
		// The analysis under the tool's own name and arguments, its
		// answer fitted as an analysis's is.
		own := *pct
		own.Args = d.Args
		def := d.Def
		def.Kind = own.Kind
		t.analysis = &analysisEntry{Def: &own, tool: &def}
	}
	return t
}

// analysisTool is analysis a as the call path serves it.
func analysisTool(a *analysis.Def) *toolDef {
	e := &analysisEntry{Def: a, tool: &a.Def}
	return &toolDef{Def: &a.Def, analysis: e, schema: structured.Analysis(a), tasks: true, asksInRun: true, example: a.Example, breedPaths: argcheck.BreedPaths(a.Args.Specs),
		run: func(ctx context.Context, c toolcall.Call, src lookup.Source) toolcall.Outcome {
			return src.Analyze(ctx, c)
		}}
}

// registry is every tool, in the order tools/list shows them: the
// lookups, then the analyses computed from their answers. A tool that
// could not be served stops the server at start-up.
var registry = func() []*toolDef {
	out := []*toolDef{
		lookupTool(lookup.LastUpdate, nil), lookupTool(lookup.ListBreeds, nil), lookupTool(lookup.Statuses, nil),
		lookupTool(lookup.TraitRanges, nil), lookupTool(lookup.SearchAnimals, nil),
		lookupTool(lookup.Animal, percentile.AnimalPercentiles),
		lookupTool(lookup.Lineage, nil), lookupTool(lookup.Progeny, nil), lookupTool(lookup.SearchByLPN, nil),
		analysisTool(mating.CheckMating), analysisTool(compare.Compare), analysisTool(rank.Rank),
		analysisTool(flock.FlockSummary), analysisTool(plan.PlanMatings),
		analysisTool(diversity.BreedDiversity),
	}
	for i, d := range out {
		if err := d.Check(); err != nil {
			panic(err)
		}
		d.index = i
	}
	return out
}()

// lookupToolDefs are the nine lookup tools, as registered.
var lookupToolDefs = registry[:len(lookup.All)]

// analyses are the analysis tools' analyses, as registered.
var analyses = func() []*analysisEntry {
	var out []*analysisEntry
	for _, d := range registry[len(lookup.All):] {
		out = append(out, d.analysis)
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

// An analysisEntry is an analysis as the gateway runs it: its definition
// and the tool definition its answer is fitted, logged and its errors
// worded under. Each answer it reads goes through the same path as the
// lookups (cache, collapse, breaker, rate limit), the number it may read
// is capped per call, and the result is fitted into the token budget like
// theirs.
type analysisEntry struct {
	*analysis.Def
	tool *tooldef.Def
}
