package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
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
	// breed's own (traitcheck.go) before NSIP is asked.
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
	// fetch binds the validated arguments to the tool's typed ones
	// (toolargs.go) for one upstream request.
	fetch fetchSpec
}

// lookup completes a lookup tool's definition from its argument struct,
// the fetch's (or, for a composite tool, argsOnly's) type argument.
func lookup(d *toolDef) *toolDef {
	a, err := argTable.Struct(d.fetch.args)
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
	if g.offersToolset(ToolsetLookup) {
		out = append(out, LastUpdateTool(g), ListBreedsTool(g), StatusesTool(g), TraitRangesTool(g),
			SearchAnimalsTool(g), AnimalTool(g), LineageTool(g), ProgenyTool(g), SearchByLPNTool(g))
	}
	if g.offersToolset(ToolsetAnalysis) {
		out = append(out, g.analysisTools()...)
	}
	for i := range out {
		out[i].Handler = g.askForms(out[i].Handler)
	}
	return out
}

// LastUpdateTool is nsip_get_last_update.
func LastUpdateTool(g *Gateway) server.ServerTool { return g.serverTool(lastUpdateDef) }

// ListBreedsTool is nsip_list_breeds.
func ListBreedsTool(g *Gateway) server.ServerTool { return g.serverTool(listBreedsDef) }

// StatusesTool is nsip_get_statuses.
func StatusesTool(g *Gateway) server.ServerTool { return g.serverTool(statusesDef) }

// TraitRangesTool is nsip_get_trait_ranges.
func TraitRangesTool(g *Gateway) server.ServerTool { return g.serverTool(traitRangesDef) }

// SearchAnimalsTool is nsip_search_animals.
func SearchAnimalsTool(g *Gateway) server.ServerTool { return g.serverTool(searchAnimalsDef) }

// AnimalTool is nsip_get_animal.
func AnimalTool(g *Gateway) server.ServerTool { return g.serverTool(animalDef) }

// LineageTool is nsip_get_lineage.
func LineageTool(g *Gateway) server.ServerTool { return g.serverTool(lineageDef) }

// ProgenyTool is nsip_get_progeny.
func ProgenyTool(g *Gateway) server.ServerTool { return g.serverTool(progenyDef) }

// SearchByLPNTool is nsip_search_by_lpn.
func SearchByLPNTool(g *Gateway) server.ServerTool { return g.serverTool(searchByLPNDef) }

func (g *Gateway) serverTool(d *toolDef) server.ServerTool {
	t := mcp.NewTool(d.name,
		mcp.WithToolIcons(lookupIcon),
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

var lastUpdateDef = lookup(&toolDef{
	name: "nsip_get_last_update", title: "NSIP last evaluation date", method: "get_date_last_updated",
	kind: summarize.KindGeneric,
	desc: `Date of the latest NSIP evaluation, e.g. {"date":"09/23/2025"}: how current the EBVs are. Only argument: max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ noArgs) (*nsip.LastUpdate, error) {
		return up.DateLastUpdated(ctx)
	}, func(v *nsip.LastUpdate) json.RawMessage { return v.Raw }),
})

var listBreedsDef = lookup(&toolDef{
	name: "nsip_list_breeds", title: "NSIP breed groups and breeds", method: "get_available_breed_groups",
	kind: summarize.KindGeneric,
	desc: `NSIP breed groups (Range, Maternal Wool, Hair, Terminal) with each breed's ID (breed_id elsewhere) and name; group IDs are breed_group_id. Only argument: max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ noArgs) (*nsip.BreedGroups, error) {
		return up.BreedGroups(ctx)
	}, func(v *nsip.BreedGroups) json.RawMessage { return v.Raw }),
})

var statusesDef = lookup(&toolDef{
	name: "nsip_get_statuses", title: "NSIP animal statuses", method: "get_statuses_by_breed_group",
	kind: summarize.KindGeneric,
	desc: `Animal statuses NSIP records, e.g. ["CURRENT","SOLD","DEAD"], for search_criteria.status. Only argument: max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ noArgs) (*nsip.Statuses, error) {
		return up.Statuses(ctx)
	}, func(v *nsip.Statuses) json.RawMessage { return v.Raw }),
})

var traitRangesDef = lookup(&toolDef{
	name: "nsip_get_trait_ranges", title: "NSIP trait ranges for a breed", method: "get_trait_ranges_by_breed",
	kind:    summarize.KindGeneric,
	subject: "breed_id", what: "trait ranges for breed", next: "list valid breed IDs with nsip_list_breeds",
	desc: `Min and max EBV of each trait a breed has, e.g. {"BWT":{"min":-0.71,"max":0.93}}: the codes to sort and filter it by. ` +
		`Too few evaluated animals: no_data. Arguments: breed_id (from nsip_list_breeds); max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, a breedArgs) (*nsip.TraitRanges, error) {
		return up.TraitRanges(ctx, a.BreedID)
	}, func(v *nsip.TraitRanges) json.RawMessage { return v.Raw }),
})

var searchAnimalsDef = lookup(&toolDef{
	name: "nsip_search_animals", title: "Search NSIP animals", method: "search_animals",
	kind: summarize.KindSearch, breedTraits: true,
	desc: `Search NSIP animals by page (about 290 tokens an animal). ` +
		`Over the budget (2000 tokens; max_tokens raises it to the server cap, 8000 unless configured) pages come as a table: ` +
		`per animal LPN ID, sex, birth date, status, breed (when several), sire, dam, the sort and trait_ranges traits as [value, accuracy], its most accurate others; traits sets exactly which. ` +
		`_meta gives page, page_size, total_count and next (the call for what follows; skip after part of a page). ` +
		`Unsummarized: NSIP's JSON, accuracy 0.80 = 80%; tables in percent. ` +
		`Arguments, all optional: page (0-based), page_size 1..` + strconv.Itoa(nsip.MaxPageSize) + ` (default 15), breed_id, sorted_trait (e.g. "WWT"), reverse, search_criteria, traits, skip, max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, a searchArgs) (*nsip.SearchResults, error) {
		return up.SearchAnimals(ctx, a.params())
	}, func(v *nsip.SearchResults) json.RawMessage { return v.Raw }),
})

var animalDef = lookup(&toolDef{
	name: "nsip_get_animal", title: "NSIP animal details", method: "get_animal_details",
	kind:        summarize.KindAnimal,
	percentiles: true,
	subject:     "search_string", what: "animal matching", next: "check the ID, or find animals and their LPN IDs with nsip_search_animals",
	desc: `One animal's record: breed, birth date, gender, status, parents, progeny count, EBVs with accuracy as NSIP sends it (0.80 = 80%; MWWT may have none), indexes, breeder's contact (about 450 tokens). ` +
		`Arguments: search_string (LPN ID or registration number); percentiles: true adds each EBV's top_percent in its breed (up to ` + strconv.Itoa(analysis.PercentileLookups) + ` more lookups); max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, a detailsArgs) (*nsip.AnimalDetails, error) {
		return up.AnimalDetails(ctx, a.SearchString)
	}, func(v *nsip.AnimalDetails) json.RawMessage { return v.Raw }),
})

var lineageDef = lookup(&toolDef{
	name: "nsip_get_lineage", title: "NSIP pedigree", method: "get_lineage",
	kind:    summarize.KindLineage,
	subject: "lpn_id", what: "pedigree for LPN ID", next: "check the LPN ID, or find animals with nsip_search_animals",
	desc: `An animal's pedigree, each ancestor with LPN ID, farm, birth date, sex, status and indexes (about 85 tokens each); ` +
		`summaries keep the nearest generations, counting the rest. Arguments: lpn_id; max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, a lpnArgs) (*nsip.Lineage, error) {
		return up.Lineage(ctx, a.LPNID)
	}, func(v *nsip.Lineage) json.RawMessage { return v.Raw }),
})

var progenyDef = lookup(&toolDef{
	name: "nsip_get_progeny", title: "NSIP progeny", method: "get_progeny",
	kind:    summarize.KindProgeny,
	subject: "lpn_id", what: "progeny for LPN ID", next: "check the LPN ID, or find animals with nsip_search_animals",
	desc: `One page of an animal's offspring (about 220 tokens each). ` +
		`Unsummarized: NSIP's JSON (sex "1"=M, "2"=F). Over the budget, a table of LPN ID, sex (M/F), birth date and the most accurate EBVs that fit as [value, accuracy], with per-trait statistics naming who has the max and min. ` +
		`_meta gives page, page_size, total_count, next. ` +
		`Arguments: lpn_id; page (0-based); page_size 1..` + strconv.Itoa(nsip.MaxPageSize) + ` (default 10); traits (exactly the codes rows carry); skip; max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, a progenyArgs) (*nsip.ProgenyPage, error) {
		return up.Progeny(ctx, a.LPNID, a.Page, a.PageSize)
	}, func(v *nsip.ProgenyPage) json.RawMessage { return v.Raw }),
})

var searchByLPNDef = lookup(&toolDef{
	name: "nsip_search_by_lpn", title: "NSIP animal profile", method: "search_by_lpn",
	kind: summarize.KindProfile, composite: true,
	subject: "lpn_id", what: "animal with LPN ID", next: "check the LPN ID, or find animals with nsip_search_animals",
	desc: `An animal's profile in one call: details, pedigree and first 10 offspring. ` +
		`Summaries fill the budget with identity, contact, EBVs, indexes, parents, grandparents and offspring, listing each part left out with the call for it. ` +
		`Arguments: lpn_id; traits; max_tokens. Shares the cache of the single-part tools.`,
	fetch: argsOnly[profileArgs](),
})
