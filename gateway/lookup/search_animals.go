package lookup

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/nsip-tools/nsip-mcp/gateway/argcheck"
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// SearchAnimals is nsip_search_animals: one page of NSIP's search.
var SearchAnimals = define(&Def{
	Def: tooldef.Def{
		Name: toolname.SearchAnimals, Title: "Search NSIP animals", Method: "search_animals",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindSearch,
		Desc: `Search NSIP animals by page (about 290 tokens an animal). ` +
			`Over the budget (2000 tokens unless max_tokens) pages come as a table: ` +
			`per animal LPN ID, sex, birth date, status, breed (when several), sire, dam, the sort and trait_ranges traits as [value, accuracy], its most accurate others; traits sets exactly which. ` +
			`_meta gives page, page_size, total_count and next (the call for what follows; skip after part of a page). ` +
			`Unsummarized: NSIP's JSON, accuracy 0.80 = 80%; tables in percent. ` +
			`Arguments, all optional: page (0-based), page_size 1..` + strconv.Itoa(nsip.MaxPageSize) + ` (default 15), breed_id (ID or name), sorted_trait (code or name, e.g. "WWT"), reverse, search_criteria, traits, skip.`,
	},
	BreedTraits: true,
	run:         runSearch,
	fields: param.Of(func(a *SearchArgs) param.Described {
		return param.Described{
			&a.Page:        pageField,
			&a.PageSize:    pageSizeField(15),
			&a.BreedID:     {Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true, Complete: param.Breeds},
			&a.SortedTrait: nsiparg.SortedTrait,
			&a.Reverse:     {Default: false, Example: false},
			&a.Criteria:    nsiparg.CriteriaArg,
		}
	}),
	fetch: fetchWith(func(ctx context.Context, up Upstream, a SearchArgs) (*nsip.SearchResults, error) {
		return up.SearchAnimals(ctx, a.params())
	}, func(v *nsip.SearchResults) json.RawMessage { return v.Raw }),
})

// ArgPageSize is the argument a page's size is given in, which skip is
// within: SearchArgs's, and ProgenyArgs's named alike.
var ArgPageSize = SearchAnimals.Args.Name("PageSize")

// SearchArgs is nsip_search_animals's; params is the client's form, and
// SearchArgsOf the way back.
type SearchArgs struct {
	Page        int               `json:"page,omitempty"`
	PageSize    int               `json:"page_size,omitempty"`
	BreedID     int               `json:"breed_id,omitempty"`
	SortedTrait string            `json:"sorted_trait,omitempty"`
	Reverse     bool              `json:"reverse,omitempty"`
	Criteria    *nsiparg.Criteria `json:"search_criteria,omitempty"`
	// Evaluation is NSIP's last-update date an analysis reads the page
	// under: it keys the page's cache entry, so that a page cached under
	// an earlier evaluation is never read under a later one, and is not
	// sent to NSIP.
	Evaluation string `json:"evaluation,omitempty" arg:"key"`
	ViewTraits
	ViewSkip
	param.Budget
}

func (a SearchArgs) params() nsip.SearchParams {
	p := nsip.SearchParams{Page: a.Page, PageSize: a.PageSize, BreedID: a.BreedID, SortedTrait: a.SortedTrait, Reverse: a.Reverse}
	if a.Criteria != nil {
		p.Criteria = nsip.SearchCriteria(*a.Criteria).AsSent() // a status word as NSIP can be asked it
	}
	return p
}

// SearchArgsOf is p as nsip_search_animals's arguments, keyed under NSIP's
// evaluation eval when it is set: an analysis's pages are read and cached
// under them, so that a user's search of the same page shares the entry.
func SearchArgsOf(p nsip.SearchParams, eval string) SearchArgs {
	a := SearchArgs{Page: p.Page, PageSize: p.PageSize, BreedID: p.BreedID, SortedTrait: p.SortedTrait, Reverse: p.Reverse, Evaluation: eval}
	if c := nsiparg.Criteria(p.Criteria); !c.Empty() {
		a.Criteria = &c
	}
	return a
}

// SearchFields are the search arguments the breed checks read
// (gateway/argcheck), named by the fields of SearchArgs and
// nsiparg.Criteria that define them.
var SearchFields = searchFields(SearchAnimals)

func searchFields(d *Def) argcheck.SearchFields {
	crit := param.MustStruct[nsiparg.Criteria](ArgTable)
	return argcheck.SearchFields{
		Breed:         d.Args.Name("BreedID"),
		SortedTrait:   d.Args.Name("SortedTrait"),
		Criteria:      d.Args.Name("Criteria"),
		CriteriaBreed: crit.Name("BreedID"),
		TraitRanges:   crit.Name("TraitRanges"),
	}
}

// runSearch is the search passed through, unless it found nothing because
// NSIP has no breed it asked for: that is said, with the breeds there are,
// rather than answered as an empty page.
func runSearch(ctx context.Context, d *Def, c toolcall.Call, src Source) toolcall.Outcome {
	o := src.Pass(ctx, d.Read(c.Args), c)
	res, ok := o.Value.(*nsip.SearchResults)
	if o.Err != nil || !ok || res.TotalCount != 0 || len(res.Results) != 0 {
		return o
	}
	field, breed := (&argcheck.Breeds{Search: searchFields(d)}).Searched(c.Args)
	if breed == 0 {
		return o
	}
	if te := src.UnknownBreed(ctx, field, breed, param.Example(d.Args.Specs, c.Sent)); te != nil {
		return toolcall.Outcome{Err: te, Params: o.Params}
	}
	return o
}
