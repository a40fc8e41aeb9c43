package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// toolDef is everything the pipeline needs to know about one tool.
type toolDef struct {
	name   string
	title  string
	method string // the cache key's method name: the NSIP client method, snake_cased
	desc   string
	params []param
	kind   summarize.Kind
	// composite tools are assembled from other tools' cached answers
	// instead of fetched (nsip_search_by_lpn).
	composite bool
	// subject names what a not-found answer was about: the argument and a
	// phrase for the message, plus the next step to suggest.
	subject string
	what    string
	next    string
	fetch   func(ctx context.Context, up Upstream, args map[string]any) (any, json.RawMessage, error)
}

// hasParam reports whether the tool takes the argument name.
func (d *toolDef) hasParam(name string) bool {
	for _, p := range d.params {
		if p.name == name {
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

// Tools returns the nine NSIP tools bound to this gateway, then the
// analysis tools computed from their answers.
func (g *Gateway) Tools() []server.ServerTool {
	return append([]server.ServerTool{
		LastUpdateTool(g), ListBreedsTool(g), StatusesTool(g), TraitRangesTool(g),
		SearchAnimalsTool(g), AnimalTool(g), LineageTool(g), ProgenyTool(g), SearchByLPNTool(g),
	}, g.analysisTools()...)
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
	t.InputSchema = inputSchema(d.params)
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

var (
	breedIDParam = param{
		name: "breed_id", kind: kindInteger, required: true, example: 640,
		min: bound(1), max: bound(99999),
		desc: "Breed ID from nsip_list_breeds, e.g. 640 (Katahdin).",
	}
	pageParam = param{
		name: "page", kind: kindInteger, def: 0, example: 0, min: bound(0), max: bound(100000),
		desc: "0-based page number.",
	}
)

var lastUpdateDef = &toolDef{
	name: "nsip_get_last_update", title: "NSIP last evaluation date", method: "get_date_last_updated",
	kind: summarize.KindGeneric,
	desc: `Get the date of the latest NSIP genetic evaluation, e.g. {"date":"09/23/2025"} (about 10 tokens). ` +
		`No arguments. Use it to say how current the EBVs are.`,
	fetch: func(ctx context.Context, up Upstream, _ map[string]any) (any, json.RawMessage, error) {
		v, err := up.DateLastUpdated(ctx)
		return fetched(v, err, func(v *nsip.LastUpdate) json.RawMessage { return v.Raw })
	},
}

var listBreedsDef = &toolDef{
	name: "nsip_list_breeds", title: "NSIP breed groups and breeds", method: "get_available_breed_groups",
	kind: summarize.KindGeneric,
	desc: `List NSIP breed groups (Range, Maternal Wool, Hair, Terminal) with each breed's numeric ID and name (a few hundred tokens). ` +
		`No arguments. Next: pass a breed ID as breed_id to nsip_get_trait_ranges or nsip_search_animals.`,
	fetch: func(ctx context.Context, up Upstream, _ map[string]any) (any, json.RawMessage, error) {
		v, err := up.BreedGroups(ctx)
		return fetched(v, err, func(v *nsip.BreedGroups) json.RawMessage { return v.Raw })
	},
}

var statusesDef = &toolDef{
	name: "nsip_get_statuses", title: "NSIP animal statuses", method: "get_statuses_by_breed_group",
	kind: summarize.KindGeneric,
	desc: `List the animal statuses NSIP records, e.g. ["CURRENT","SOLD","DEAD"] (under 50 tokens). ` +
		`No arguments. Next: pass one as search_criteria.status to nsip_search_animals.`,
	fetch: func(ctx context.Context, up Upstream, _ map[string]any) (any, json.RawMessage, error) {
		v, err := up.Statuses(ctx)
		return fetched(v, err, func(v *nsip.Statuses) json.RawMessage { return v.Raw })
	},
}

var traitRangesDef = &toolDef{
	name: "nsip_get_trait_ranges", title: "NSIP trait ranges for a breed", method: "get_trait_ranges_by_breed",
	kind: summarize.KindGeneric, params: []param{breedIDParam},
	subject: "breed_id", what: "trait ranges for breed", next: "list valid breed IDs with nsip_list_breeds",
	desc: `Get the min and max EBV of each trait (BWT, WWT, PWWT, YWT, FAT, EMD, NLB, NWT, PWT, DAG, WGR, WEC, FEC) within one breed, ` +
		`e.g. {"BWT":{"min":-0.71,"max":0.93},...} (about 200 tokens). ` +
		`breed_id: integer 1..99999 from nsip_list_breeds, e.g. 640. ` +
		`Next: use the ranges in nsip_search_animals search_criteria.trait_ranges.`,
	fetch: func(ctx context.Context, up Upstream, a map[string]any) (any, json.RawMessage, error) {
		v, err := up.TraitRanges(ctx, a["breed_id"].(int))
		return fetched(v, err, func(v *nsip.TraitRanges) json.RawMessage { return v.Raw })
	},
}

var searchAnimalsDef = &toolDef{
	name: "nsip_search_animals", title: "Search NSIP animals", method: "search_animals",
	kind: summarize.KindSearch,
	desc: `Search NSIP animals one page at a time, answered as NSIP's JSON {"recordCount":N,"records":[...]}, each record an animal's LPN ID, sire, dam, status, EBVs with accuracy and indexes ` +
		`(about 290 tokens per record). Pages over 2000 tokens (more than 6 records) are summarized (counts, trait statistics, compact rows, the next call) and _meta.summarized says so. ` +
		`Arguments, all optional: page (0-based, default 0); page_size 1..100 (default 15; 5 or fewer for full rows); breed_id e.g. 640; ` +
		`sorted_trait, a trait code to sort by, e.g. "WWT"; reverse (bool) to flip the sort; ` +
		`search_criteria e.g. {"gender":"Female","born_after":"2022-01-01","status":"CURRENT","trait_ranges":{"WWT":{"min":1,"max":5}}}. ` +
		`Next: nsip_get_animal with a record's LPN ID.`,
	params: []param{
		pageParam,
		{name: "page_size", kind: kindInteger, def: 15, example: 15, min: bound(1), max: bound(100),
			desc: "Rows per page, 1..100. Small pages keep answers unsummarized."},
		{name: "breed_id", kind: kindInteger, example: 640, min: bound(1), max: bound(99999),
			desc: "Only this breed, e.g. 640 (Katahdin); IDs from nsip_list_breeds."},
		{name: "sorted_trait", kind: kindString, example: "WWT", enum: traitCodes,
			desc: "Trait code to sort by, e.g. \"WWT\"."},
		{name: "reverse", kind: kindBoolean, def: false, example: false,
			desc: "Reverse the sort order."},
		{name: "search_criteria", kind: kindObject, dropZero: true,
			example: map[string]any{"gender": "Female", "born_after": "2022-01-01"},
			desc:    "Filters; every field optional.",
			check:   criteriaRules,
			props: []param{
				{name: "breed_group_id", kind: kindInteger, example: 64, min: bound(1), max: bound(99999),
					desc: "Breed group ID from nsip_list_breeds, e.g. 64 (Hair)."},
				{name: "breed_id", kind: kindInteger, example: 640, min: bound(1), max: bound(99999),
					desc: "Breed ID, e.g. 640."},
				{name: "born_after", kind: kindString, example: "2022-01-01", date: true, maxLen: 10,
					desc: "Born on or after this date, YYYY-MM-DD."},
				{name: "born_before", kind: kindString, example: "2024-12-31", date: true, maxLen: 10,
					desc: "Born on or before this date, YYYY-MM-DD."},
				{name: "gender", kind: kindString, example: "Female", enum: []string{"Male", "Female", "Both"},
					desc: "Male, Female or Both."},
				{name: "proven_only", kind: kindBoolean, example: true,
					desc: "Only animals with progeny-proven EBVs."},
				{name: "status", kind: kindString, example: "CURRENT", maxLen: 32, pattern: statusPattern, upper: true,
					desc: "A status from nsip_get_statuses, e.g. \"CURRENT\"."},
				{name: "flock_id", kind: kindString, example: "640238", maxLen: 32, pattern: alnumPattern,
					desc: "Flock ID, e.g. \"640238\"."},
				{name: "trait_ranges", kind: kindObject, traitMap: true,
					example: map[string]any{"WWT": map[string]any{"min": 1.0, "max": 5.0}},
					desc:    "EBV bounds per trait code, e.g. {\"WWT\":{\"min\":1,\"max\":5}}; see nsip_get_trait_ranges."},
			},
		},
	},
	fetch: func(ctx context.Context, up Upstream, a map[string]any) (any, json.RawMessage, error) {
		v, err := up.SearchAnimals(ctx, searchParams(a))
		return fetched(v, err, func(v *nsip.SearchResults) json.RawMessage { return v.Raw })
	},
}

// criteriaRules applies the rules that span fields: a birth window must not
// end before it starts. It also drops proven_only=false, which filters nothing,
// so that sending it and leaving it out share a cache key.
func criteriaRules(c map[string]any) (string, string, bool) {
	if c["proven_only"] == false {
		delete(c, "proven_only")
	}
	after, _ := c["born_after"].(string)
	before, _ := c["born_before"].(string)
	if after != "" && before != "" && after > before { // YYYY-MM-DD sorts as text
		return "born_after", fmt.Sprintf("born_after %s is later than born_before %s", after, before), false
	}
	return "", "", true
}

func searchParams(a map[string]any) nsip.SearchParams {
	p := nsip.SearchParams{
		Page:     a["page"].(int),
		PageSize: a["page_size"].(int),
		Reverse:  a["reverse"].(bool),
	}
	p.BreedID, _ = a["breed_id"].(int)
	p.SortedTrait, _ = a["sorted_trait"].(string)
	c, _ := a["search_criteria"].(map[string]any)
	p.Criteria.BreedGroupID, _ = c["breed_group_id"].(int)
	p.Criteria.BreedID, _ = c["breed_id"].(int)
	p.Criteria.BornAfter, _ = c["born_after"].(string)
	p.Criteria.BornBefore, _ = c["born_before"].(string)
	p.Criteria.Gender, _ = c["gender"].(string)
	p.Criteria.ProvenOnly, _ = c["proven_only"].(bool)
	p.Criteria.Status, _ = c["status"].(string)
	p.Criteria.FlockID, _ = c["flock_id"].(string)
	if tr, ok := c["trait_ranges"].(map[string]any); ok {
		p.Criteria.TraitRanges = make(map[string]nsip.Range, len(tr))
		for code, r := range tr {
			b := r.(map[string]any)
			p.Criteria.TraitRanges[code] = nsip.Range{Min: b["min"].(float64), Max: b["max"].(float64)}
		}
	}
	return p
}

var animalDef = &toolDef{
	name: "nsip_get_animal", title: "NSIP animal details", method: "get_animal_details",
	kind:    summarize.KindAnimal,
	subject: "search_string", what: "animal matching", next: "check the ID, or find animals and their LPN IDs with nsip_search_animals",
	desc: `Get one animal's record: breed, birth date, gender, status, sire and dam LPN IDs, progeny count, every EBV with accuracy (%), indexes and the breeder's contact ` +
		`(about 450 tokens; larger answers are summarized and _meta.summarized says so). ` +
		`search_string: an LPN ID or registration number, e.g. "6402382024NCS310". ` +
		`Next: nsip_get_lineage for the pedigree, nsip_get_progeny for offspring.`,
	params: []param{{
		name: "search_string", kind: kindString, required: true, example: exampleLPN,
		minLen: 2, maxLen: 64, pattern: searchPattern,
		desc: "LPN ID or registration number, e.g. \"6402382024NCS310\".",
	}},
	fetch: func(ctx context.Context, up Upstream, a map[string]any) (any, json.RawMessage, error) {
		v, err := up.AnimalDetails(ctx, a["search_string"].(string))
		return fetched(v, err, func(v *nsip.AnimalDetails) json.RawMessage { return v.Raw })
	},
}

var lineageDef = &toolDef{
	name: "nsip_get_lineage", title: "NSIP pedigree", method: "get_lineage",
	kind:    summarize.KindLineage,
	subject: "lpn_id", what: "pedigree for LPN ID", next: "check the LPN ID, or find animals with nsip_search_animals",
	desc: `Get an animal's pedigree tree: the animal, its sire and dam and their ancestors over several generations, each with LPN ID, farm, birth date, sex, status and indexes ` +
		`(about 85 tokens per ancestor, so trees of 4+ generations exceed 2000 tokens and are summarized; _meta.summarized says so). ` +
		`lpn_id: 5-32 letters and digits, e.g. "6402382024NCS310". Next: nsip_get_animal for any ancestor's EBVs.`,
	params: []param{lpnParam("The animal's LPN ID, e.g. \"6402382024NCS310\".")},
	fetch: func(ctx context.Context, up Upstream, a map[string]any) (any, json.RawMessage, error) {
		v, err := up.Lineage(ctx, a["lpn_id"].(string))
		return fetched(v, err, func(v *nsip.Lineage) json.RawMessage { return v.Raw })
	},
}

var progenyDef = &toolDef{
	name: "nsip_get_progeny", title: "NSIP progeny", method: "get_progeny",
	kind:    summarize.KindProgeny,
	subject: "lpn_id", what: "progeny for LPN ID", next: "check the LPN ID, or find animals with nsip_search_animals",
	desc: `List one page of an animal's offspring, as NSIP's JSON {"recordCount":N,"records":[{"lpnId","sex","dob", EBVs...}]} ` +
		`(about 220 tokens per offspring; pages over 2000 tokens, i.e. more than 8, are summarized with counts, trait statistics and compact rows; _meta.summarized says so). ` +
		`lpn_id e.g. "6402382024NCS310"; page 0-based (default 0); page_size 1..100 (default 10). ` +
		`Next: nsip_get_animal for one offspring, or the next page.`,
	params: []param{
		lpnParam("The parent's LPN ID, e.g. \"6402382024NCS310\"."),
		pageParam,
		{name: "page_size", kind: kindInteger, def: 10, example: 10, min: bound(1), max: bound(100),
			desc: "Offspring per page, 1..100."},
	},
	fetch: func(ctx context.Context, up Upstream, a map[string]any) (any, json.RawMessage, error) {
		v, err := up.Progeny(ctx, a["lpn_id"].(string), a["page"].(int), a["page_size"].(int))
		return fetched(v, err, func(v *nsip.ProgenyPage) json.RawMessage { return v.Raw })
	},
}

var searchByLPNDef = &toolDef{
	name: "nsip_search_by_lpn", title: "NSIP animal profile", method: "search_by_lpn",
	kind: summarize.KindProfile, composite: true,
	subject: "lpn_id", what: "animal with LPN ID", next: "check the LPN ID, or find animals with nsip_search_animals",
	desc: `Get an animal's full profile in one call: details, pedigree and the first page of progeny, as {"details":...,"lineage":...,"progeny":...} ` +
		`(500 tokens for an animal without offspring, often 3000-10000 otherwise, then summarized: identifiers, breed, counts, contact, top traits, parents, progeny statistics and the next call). ` +
		`Shares its cache with nsip_get_animal, nsip_get_lineage and nsip_get_progeny (page 0, page_size 10); prefer those when one part will do. ` +
		`lpn_id: 5-32 letters and digits, e.g. "6402382024NCS310".`,
	params: []param{lpnParam("The animal's LPN ID, e.g. \"6402382024NCS310\".")},
}

// example builds a correct call from what the caller sent: valid arguments
// are kept (normalised), invalid or missing required ones take their example
// value, and unknown names are left out.
func example(ps []param, args map[string]any) map[string]any {
	out := map[string]any{}
	for i := range ps {
		p := &ps[i]
		v, present := args[p.name]
		if present && v != nil {
			if nv, errs := p.validate(p.name, v); len(errs) == 0 {
				if nv != nil {
					out[p.name] = nv
				}
				continue
			}
			if obj, ok := v.(map[string]any); ok && len(p.props) > 0 {
				if fixed := example(p.props, obj); len(fixed) > 0 {
					if p.check != nil {
						if _, _, ok := p.check(fixed); !ok {
							fixed = nil
						}
					}
					if fixed != nil {
						out[p.name] = fixed
						continue
					}
				}
			}
		}
		if (present && v != nil) || p.required {
			out[p.name] = p.example
		}
	}
	return out
}

// describeTools lists the tool names, for the server's instructions.
func describeTools() string {
	names := make([]string, 0, len(toolDefs)+len(analysisDefs))
	for _, d := range toolDefs {
		names = append(names, d.name)
	}
	for _, a := range analysisDefs {
		names = append(names, a.name)
	}
	return strings.Join(names, ", ")
}
