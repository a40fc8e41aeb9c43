package gateway

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	appviews "github.com/nsip-tools/nsip-mcp/gateway/views"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// toolDef is everything the pipeline needs to know about one tool.
type toolDef struct {
	name   string
	title  string
	method string // the cache key's method name: the NSIP client method, snake_cased
	desc   string
	// args is the tool's argument struct as the call path uses it: its
	// Specs are what the schema and the validation come from.
	args param.Args
	kind summarize.Kind
	// composite tools are assembled from other tools' cached answers
	// instead of fetched (nsip_search_by_lpn).
	composite bool
	// breedTraits: the trait codes the call names are checked against the
	// breed's own (gateway/argcheck) before NSIP is asked.
	breedTraits bool
	// percentiles: percentiles: true makes the call the breed-percentile
	// analysis (animalpct.go) instead of one lookup, so its answer may be
	// that analysis's too.
	percentiles bool
	// subject names what a not-found answer was about: the argument and a
	// phrase for the message, plus the next step to suggest.
	subject string
	what    string
	next    string
	// analysis, for an analysis tool, is the analysis every call runs.
	analysis *analysisEntry
	// fields describe the tool's own argument structs: what their Go
	// types and json tags cannot say (argTable holds the shared ones).
	fields param.Table
	// fetch binds the validated arguments to the tool's typed ones
	// (toolargs.go) for one upstream request.
	fetch fetchSpec
}

// lookup completes a lookup tool's definition from its argument struct,
// the fetch's (or, for a composite tool, argsOnly's) type argument.
func lookup(d *toolDef) *toolDef {
	tb := maps.Clone(argTable)
	maps.Copy(tb, d.fields)
	a, err := tb.Struct(d.fetch.args)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", d.name, err))
	}
	d.args = a
	return d
}

// key is the cache key of a call of d with the validated arguments args:
// its method and the arguments that go to NSIP, or that key its answer,
// without those that only choose how the answer is shown.
func (d *toolDef) key(args map[string]any) string {
	base, _ := d.splitView(args)
	return cache.Key(d.method, base)
}

// analysisOf is the analysis a validated call of d runs: the tool's own,
// or nsip_get_animal's with percentiles; nil for a lookup.
func (d *toolDef) analysisOf(args map[string]any) *analysisEntry {
	if d.analysis != nil {
		return d.analysis
	}
	return percentilesCall(d, args)
}

// example is a correct call of d for an error message.
func (d *toolDef) example(sent map[string]any) map[string]any {
	if d.analysis != nil {
		return d.analysis.Example(sent)
	}
	return d.args.Example(sent)
}

// hasParam reports whether the tool takes the argument name.
func (d *toolDef) hasParam(name string) bool {
	for _, p := range d.args.Specs {
		if p.Name == name {
			return true
		}
	}
	return false
}

// The nine tools, in the order tools/list shows them.
var toolDefs = []*toolDef{
	lastUpdateDef, listBreedsDef, statusesDef, traitRangesDef,
	searchAnimalsDef, animalDef, lineageDef, progenyDef, searchByLPNDef,
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
	t := mcp.NewTool(d.name,
		mcp.WithToolIcons(toolsets.Icon(toolsets.Lookup)),
		mcp.WithToolTitle(d.title),
		mcp.WithDescription(d.desc),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           d.title,
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(true),
		}),
	)
	t.InputSchema = param.InputSchema(d.args.Specs)
	if d.fetch.model != nil || d.composite {
		t.RawOutputSchema = lookupSchema(d)
	}
	appviews.Declare(&t)
	return server.ServerTool{Tool: t, Handler: g.handler(d)}
}

// raw returns the exact upstream body a model was decoded from, or, for a
// value that did not come off the wire, its JSON encoding.
func raw(v any, body json.RawMessage) (any, json.RawMessage, error) {
	if len(body) > 0 {
		return v, body, nil
	}
	b, err := json.Marshal(v)
	return v, b, err
}

// fetched adapts a client call's (model, error) to the pipeline's shape.
func fetched[T any](v *T, err error, body func(*T) json.RawMessage) (any, json.RawMessage, error) {
	if err != nil {
		return nil, nil, err
	}
	if v == nil {
		return nil, nil, &nsip.Error{Kind: nsip.KindUnexpectedResponse, Reason: "the client returned no answer and no error"}
	}
	return raw(v, body(v))
}
