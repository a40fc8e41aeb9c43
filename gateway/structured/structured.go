// Package structured gives every tool an output schema and its answer a
// second time as structuredContent, for clients that read typed data (the
// web app's tables) rather than text.
//
// A server declares [Lookup] or [Analysis] as a tool's output schema, adds
// [Copy] of each successful answer to its result, and, when a deployment
// wants no structured copies at all, serves its tools through [Strip]:
//
//	tool.RawOutputSchema = structured.Lookup(model, kind, false)
//	res.RawStructuredContent = structured.Copy(kind, text, isObject, model)
//
// The schema is generated from the Go types that produce the answer
// (gateway/outschema): a lookup's answer is NSIP's, as the client's model
// reads it, or one of the summaries of its kind; an analysis's is one of
// its answer types (analysis.Def.Answers) or a summary of it.
//
// The text stays what it was, and the structured copy carries the same
// answer. Where the text is JSON the server wrote (a summary, an analysis),
// the copy is the same bytes; a lookup's text passed through is NSIP's own
// JSON, whose shape nothing promises (nsip-api.md), so its copy is the
// decoded model, which has one. Hosts that show their model the structured
// copy instead of the text (specs/answers.md) then see a summary or an
// analysis at exactly its counted tokens, and a pass-through at its model's.
package structured

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/diversity"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/outschema"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Strip is tools as served without output schemas, and their results
// without structuredContent, so that a host that shows its model every
// part of a result shows each answer once. The text, and so every budget,
// is the same either way. It changes tools in place and returns them.
func Strip(tools []server.ServerTool) []server.ServerTool {
	for i := range tools {
		tools[i].Tool.RawOutputSchema, tools[i].Tool.OutputSchema = nil, mcp.ToolOutputSchema{}
		h := tools[i].Handler
		tools[i].Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := h(ctx, req)
			if res != nil {
				res.StructuredContent, res.RawStructuredContent = nil, nil
			}
			return res, err
		}
	}
	return tools
}

// nsipSchemaNames are the published names of the NSIP models a lookup
// answers with; the nsip package knows nothing of schemas, so they are
// chosen here.
var nsipSchemaNames = outschema.Names{
	reflect.TypeFor[nsip.AnimalDetails](): "AnimalDetails",
	reflect.TypeFor[nsip.AnimalProfile](): "AnimalProfile",
	reflect.TypeFor[nsip.AnimalRow]():     "AnimalRow",
	reflect.TypeFor[nsip.Breed]():         "Breed",
	reflect.TypeFor[nsip.BreedGroup]():    "BreedGroup",
	reflect.TypeFor[nsip.BreedGroups]():   "BreedGroups",
	reflect.TypeFor[nsip.ContactInfo]():   "ContactInfo",
	reflect.TypeFor[nsip.IgnoredValue]():  "IgnoredNSIPValue",
	reflect.TypeFor[nsip.Index]():         "Index",
	reflect.TypeFor[nsip.LastUpdate]():    "LastUpdate",
	reflect.TypeFor[nsip.Lineage]():       "Lineage",
	reflect.TypeFor[nsip.LineageNode]():   "LineageNode",
	reflect.TypeFor[nsip.ProgenyPage]():   "ProgenyPage",
	reflect.TypeFor[nsip.ProgenyRow]():    "ProgenyRow",
	reflect.TypeFor[nsip.SearchResults](): "SearchResults",
	reflect.TypeFor[nsip.Statuses]():      "Statuses",
	reflect.TypeFor[nsip.Trait]():         "Trait",
	reflect.TypeFor[nsip.TraitRange]():    "TraitRange",
	reflect.TypeFor[nsip.TraitRanges]():   "TraitRanges",
}

// schemaNames are every published type name, checked once for clashes.
var schemaNames = nsipSchemaNames.Merge(analysis.SchemaNames(), mating.SchemaNames(), compare.SchemaNames(), rank.SchemaNames(),
	flock.SchemaNames(), plan.SchemaNames(), percentile.SchemaNames(), diversity.SchemaNames(), summarize.SchemaNames())

// The pass-through branch of a lookup's output schema.
const (
	// PassThroughTitle titles the branch of a lookup's schema that is
	// NSIP's own answer, passed through.
	PassThroughTitle = "NSIP's own answer"
	passThroughDesc  = "NSIP's JSON object exactly as the text carries it, passed through because it fits the budget. " +
		"Its members are NSIP's and may change without notice; the other branches are the shapes this server writes."
)

// Lookup is the output schema of a lookup answering with NSIP's model,
// summarized as kind; with percentiles, its answer may also be the
// percentile analysis's.
func Lookup(model reflect.Type, kind summarize.Kind, percentiles bool) json.RawMessage {
	// A pass-through's copy is NSIP's own object, whose members nothing
	// promises (nsip-api.md); the model stands in only for a bare list.
	doc := outschema.New(schemaNames).AddObject(PassThroughTitle, passThroughDesc).Add("NSIP answer, decoded", model)
	if percentiles {
		// With percentiles the answer is the percentile analysis's,
		// summarized as analyses are when over the budget.
		addAnswers(doc, percentile.AnimalPercentiles)
		for _, s := range summarize.Shapes(percentile.AnimalPercentiles.Kind) {
			doc.Add(s.Name, s.Type)
		}
	}
	return withSummaries(doc, kind)
}

// Analysis is analysis a's output schema: one of the answer types its
// computation builds (gateway/analysis), or a summary of one. It panics
// when a names no answer type, a mistake of the code that defines it.
func Analysis(a *analysis.Def) json.RawMessage {
	return withSummaries(addAnswers(outschema.New(schemaNames), a), a.Kind)
}

// addAnswers adds the shapes of a's answers, titled by their published
// names.
func addAnswers(doc *outschema.Doc, a *analysis.Def) *outschema.Doc {
	if len(a.Answers) == 0 {
		panic("analysis " + a.Name + " names no answer type") // caught by every test that builds the tools
	}
	for _, t := range a.Answers {
		doc.Add(doc.Name(t), t)
	}
	return doc
}

func withSummaries(doc *outschema.Doc, kind summarize.Kind) json.RawMessage {
	for _, s := range summarize.Shapes(kind) {
		doc.Add(s.Name, s.Type)
	}
	return doc.JSON()
}

// Copy is the structured copy of a successful lookup answer whose text is
// text, summarized as kind. A text that is a JSON object (object: NSIP's
// own answer passed through, a view of it or a summary) is its own copy,
// byte for byte: a host that hands its model the structured copy instead
// of the text, or both unless they are the same, then hands it exactly the
// text's tokens, which the budget counted. Only an answer NSIP sent as a
// bare list, which structuredContent cannot be, is copied as its decoded
// model (nil when there is none), or failing that in the generic form; nil
// when neither can be written.
func Copy(kind summarize.Kind, text string, object bool, model any) json.RawMessage {
	if object {
		return json.RawMessage(text) // a view made for this call
	}
	if model != nil {
		if b, err := nsip.PlainJSON(model); err == nil {
			return b
		}
	}
	if b, err := summarize.Unrecognized(kind, text); err == nil {
		return b
	}
	return nil
}
