package rank

import (
	"context"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// rankPages bounds the pages a ranking reads (nsip.MaxPageSize animals each).
const rankPages = 30

// rankWeights is weights as rank takes it: required (and, left out, asked
// of the user) unless index ranks by one of NSIP's own indexes instead.
var rankWeights = func() param.List { l := analysis.WeightsParam; l.Unless = "index"; return l }()

// Args are nsip_rank_animals's arguments, described once: the schema
// and validation derive from them (rankParams), and the run reads them.
// Weights and index are one or the other, a rule across arguments that the
// run applies.
type Args struct {
	BreedID     int               `json:"breed_id"`
	TopN        int               `json:"top_n,omitempty"`
	Criteria    *nsiparg.Criteria `json:"search_criteria,omitempty"`
	Index       string            `json:"index,omitempty"`
	MaxMeanCOI  *float64          `json:"max_mean_coi,omitempty"` // nil: no limit; 0 is one
	Percentiles bool              `json:"percentiles,omitempty"`
	Weights     breeding.Weights  `json:"weights,omitempty"` // nil: asked of the user
	ForEwes     []string          `json:"for_ewes,omitempty"`
	param.Budget
}

// criteriaOf is a copy of the ranking's criteria, which the scan may
// narrow (withRams) without touching the arguments; nil for nil.
func criteriaOf(c *nsiparg.Criteria) *nsiparg.Criteria {
	if c == nil {
		return nil
	}
	out := *c
	return &out
}

var rankParams = param.MustStruct[Args](param.Tables(
	param.BudgetTable, // max_tokens, which every tool takes
	nsiparg.CriteriaTable,
	param.Of(func(a *Args) param.Described {
		return param.Described{
			&a.BreedID: {Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true, Complete: param.Breeds},
			&a.TopN:    {Default: 10, Example: 10, Min: param.Bound(1), Max: param.Bound(50), Quiet: true},
			// The criteria are described by nsip_search_animals; the schema
			// says only that they are an object, and validation does the
			// rest. The breed is the ranking's own argument beside them.
			&a.Criteria: func() param.Spec {
				s := nsiparg.CriteriaArg
				s.Brief, s.Without = true, []string{"BreedID"}
				return s
			}(),
			&a.Index:       {Example: "US Hair Index", MinLen: 1, MaxLen: 60, Pattern: indexPattern, Quiet: true},
			&a.MaxMeanCOI:  {Example: 0.03125},
			&a.Percentiles: percentile.Param,
			&a.Weights:     {List: &rankWeights},
			&a.ForEwes:     {List: &forEwesList},
		}
	}),
))

var Rank = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.RankAnimals, Title: "Rank NSIP animals by an index", Method: "rank_animals",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `Exact top N of a breed by sum(weight x EBV), or by an index NSIP computes, over every matching animal (~80 tokens an animal). ` +
			fmt.Sprintf("Reads NSIP sorted by the heaviest-weighted trait until the breed's trait ranges prove no unread animal can enter, at most %d pages of %d; says whether exact. ", rankPages, nsip.MaxPageSize) +
			`Arguments: breed_id, e.g. 640; weights by trait code, negative where lower is better, e.g. {"WWT":1,"BWT":-0.5}, or index by any of its names, e.g. "US Hair Index" or usIndex (all pages read: NSIP cannot sort by one); top_n 1..50; ` +
			`search_criteria as for ` + toolname.SearchAnimals + `, e.g. {"gender":"Male"}; CURRENT animals only unless it gives a status, e.g. "living"; ` +
			fmt.Sprintf("records %d more; ", rankRecords) +
			fmt.Sprintf(`for_ewes (1-20 LPN IDs) adds each ram's lambs' mean COI with them, max_mean_coi (e.g. 0.03125) leaving out rams above it (at most %d lookups more); percentiles: true adds each weighted EBV's top_percent in the breed (%d more). `, ewesLookups, percentile.Lookups) +
			`Next: ` + toolname.CompareAnimals + ` or ` + toolname.CheckMating + `.`,
		Args: rankParams,
	},
	Ceiling: rankPages + 2 + scan.EvalLookups + ewesLookups + percentile.Lookups + rankRecords,
	Answers: []reflect.Type{reflect.TypeFor[RankAnswer](), reflect.TypeFor[IndexRankAnswer]()},
	Run:     analysis.Typed(runRank),
}

// directionWarnings flags weights whose sign rewards the direction the
// glossary says breeders usually select against.
func directionWarnings(w breeding.Weights) []string {
	var out []string
	for _, c := range w.Codes() {
		info, _ := nsip.LookupTrait(c)
		if (info.Direction == "lower" && w[c] > 0) || (info.Direction == "higher" && w[c] < 0) {
			out = append(out, fmt.Sprintf("%s is usually selected %s, but its weight %g rewards the opposite", c, info.Direction, w[c]))
		}
	}
	return out
}

// missingEBV refuses a weight on code, which the breed has no EBV for,
// naming the breed's code it likely means; the error's example weights
// that code instead, or leaves code out, so that it is a call that works.
func missingEBV(breed int, code string, w breeding.Weights, have []string) error {
	name := rankParams.Name("Weights")
	fix, did := nsiparg.DidYouMeanTrait(code, have)
	return &analysis.FixedArgError{ArgError: analysis.ArgError{FieldError: param.FieldError{Field: name + "." + code,
		Problem: fmt.Sprintf("breed %d has no EBV for %s", breed, code) + did, Expected: "one of the breed's traits: " + strings.Join(have, ", ")}},
		Fix: []param.Edit{param.Assign(name, fixedWeights(w, code, fix))}}
}

// fixedWeights are weights w without code, which the breed lacks, and
// with fix, the code meant, in its place when w does not weight it
// already; the example's weights when nothing is left.
func fixedWeights(w breeding.Weights, code, fix string) breeding.Weights {
	fixed := breeding.Weights{}
	for c, v := range w {
		if c != code {
			fixed[c] = v
		}
	}
	if _, ok := fixed[fix]; fix != "" && !ok {
		fixed[fix] = w[code]
	}
	if len(fixed) == 0 {
		return maps.Clone(analysis.ExampleWeights)
	}
	return fixed
}

// runRank ranks a breed by weights, or hands a ranking by one of NSIP's
// own indexes to runRankIndex.
func runRank(ctx context.Context, r *analysis.Call, a *Args) (any, error) {
	if a.Index != "" && a.Weights != nil {
		// The example keeps the weights: a ranking by them is exact, and
		// one by index may yet find the name unknown to the breed.
		return nil, &analysis.FixedArgError{ArgError: analysis.ArgError{FieldError: param.FieldError{Field: rankParams.Name("Index"), Problem: "was given with weights; a ranking is by one or the other",
			Expected: `either weights, e.g. {"WWT":1,"BWT":-0.5}, or index, e.g. "US Hair Index"`}},
			Fix: []param.Edit{param.Drop(rankParams.Name("Index"))}}
	}
	ewes, err := prepareEwes(ctx, r, a)
	if err != nil {
		return nil, err
	}
	if a.Index != "" {
		return runRankIndex(ctx, r, a, ewes)
	}
	s, err := openWeightedRank(ctx, r, a, ewes)
	if err != nil {
		return nil, err
	}
	if err := s.scan(ctx); err != nil {
		return nil, err
	}
	return s.answer(ctx, a, ewes)
}

// weightedRank is a ranking by weights as it reads NSIP: besides what any
// ranking's scan keeps, the trait it sorts by, the order NSIP was seen to
// return, and what disproves an early stop. It is a type because the scan
// may start again reversed part way, which its methods do in one place.
type weightedRank struct {
	*rankScan
	r        *analysis.Call
	breed    int
	topN     int
	ranges   map[string][2]float64 // the breed's trait ranges by code
	w        breeding.Weights
	chosen   analysis.SetArgs // the weights, when the user chose them in a form
	codes    []string
	sortBy   string // "" when no weighted trait can be sorted on
	wantDesc bool   // highest weight x EBV first
	sorted   bool   // NSIP's order can still be relied on
	observed string // the order NSIP was seen to return
	outside  string // a value seen outside the breed's ranges
	edge     float64
}

// breedRanges are breed's trait ranges by upper-case code, refusing a
// breed NSIP has none for (nothing could be ranked).
func breedRanges(ctx context.Context, r *analysis.Call, breed int) (map[string][2]float64, error) {
	tr, err := r.Ranges(ctx, breed)
	if err != nil {
		return nil, &analysis.AboutError{Field: "breed_id", Value: breed, What: "trait ranges for breed", Next: "list valid breed IDs with " + toolname.ListBreeds, Err: err}
	}
	if len(tr.Ranges) == 0 {
		return nil, &analysis.ArgError{FieldError: param.FieldError{Field: "breed_id", Problem: fmt.Sprintf("NSIP has no trait ranges for breed %d, so its animals cannot be ranked", breed), Expected: "a breed ID from " + toolname.ListBreeds + ", e.g. 640"}}
	}
	ranges := map[string][2]float64{}
	for _, x := range tr.Ranges {
		ranges[strings.ToUpper(x.Code)] = [2]float64{x.Min, x.Max}
	}
	return ranges, nil
}

// openWeightedRank settles the weights (asking for them when left out)
// against the breed's traits, chooses the trait to sort by, and opens the
// scan.
func openWeightedRank(ctx context.Context, r *analysis.Call, a *Args, ewes *eweSet) (*weightedRank, error) {
	breed := a.BreedID
	scanN := ewes.candidates(a.TopN)
	ranges, err := breedRanges(ctx, r, breed)
	if err != nil {
		return nil, err
	}
	w, _, err := r.Weights(ctx, a.Weights, "to rank the breed's animals (or index, one of NSIP's own indexes)", slices.Collect(maps.Keys(ranges)))
	if err != nil {
		return nil, err
	}
	for _, c := range w.Codes() {
		if _, ok := ranges[c]; !ok {
			have := slices.Sorted(maps.Keys(ranges))
			return nil, missingEBV(breed, c, w, have)
		}
	}
	s := &weightedRank{r: r, breed: breed, topN: a.TopN, ranges: ranges, w: w, codes: w.Codes(), sorted: true, observed: "unknown", edge: math.NaN()}
	if a.Weights == nil {
		s.chosen.Weights = w
	}
	// Sort by the heaviest weighted trait NSIP can sort on; with none, read
	// in NSIP's own order, where no early stop is possible.
	for _, c := range s.codes {
		if facts.Sortable(c) {
			s.sortBy = c
			break
		}
	}
	s.wantDesc = w[s.sortBy] > 0
	crit := ewes.withRams(criteriaOf(a.Criteria))
	search := analysis.SearchQuery(breed, crit)
	if s.sortBy != "" {
		search.SortedTrait = s.sortBy
	} else {
		s.sorted, s.observed = false, "unsorted: no weighted trait can be sorted on"
	}
	if s.rankScan, err = openRankScan(ctx, r, search, crit, scanN); err != nil {
		return nil, err
	}
	return s, nil
}

// scan reads pages until the ranking is proven (the bound), every animal
// is read, or the scan limit is reached.
func (s *weightedRank) scan(ctx context.Context) error {
	for s.stop == "" {
		if !s.sc.More() {
			s.stop = "scan limit"
			break
		}
		page, fresh, err := s.sc.Next(ctx)
		if err != nil {
			return err
		}
		vals := s.take(page, fresh)
		if s.checkOrder(vals) {
			continue
		}
		if len(vals) > 0 {
			s.edge = vals[len(vals)-1]
		}
		switch {
		case s.sc.Ended:
			s.stop = "all read"
		case s.sorted && s.observed != "unknown" && s.top.Full() && !math.IsNaN(s.edge) && s.outside == "":
			if b, _ := s.w.Bound(s.sortBy, s.edge, s.ranges); b < s.top.Last() {
				s.stop = "bound"
			}
		}
	}
	return nil
}

// take scores a page's fresh rows and gives the sorted trait's values of
// all its rows in page order, for the order check.
func (s *weightedRank) take(page []nsip.AnimalRow, fresh []bool) []float64 {
	var vals []float64
	for i, row := range page {
		ebv := facts.EBVMap(row.Traits)
		if v, ok := ebv[s.sortBy]; ok {
			vals = append(vals, v)
		}
		if !fresh[i] || !s.admit(row) {
			continue
		}
		for _, c := range s.codes {
			if r, ok := s.ranges[c]; ok && c != s.sortBy && s.outside == "" && (ebv[c] < r[0] || ebv[c] > r[1]) {
				s.outside = fmt.Sprintf("%s's %s of %g lies outside the breed's range %g..%g", row.LPNID, c, ebv[c], r[0], r[1])
			}
		}
		idx, _, ok := s.w.Index(ebv)
		s.score(row, idx, ok)
	}
	return vals
}

// checkOrder checks the order NSIP actually returned rather than trusting
// the parameter: within the page, and across the page boundary. It reports
// whether the scan started again reversed, as the needed order turned out
// to be the other one.
func (s *weightedRank) checkOrder(vals []float64) bool {
	if !math.IsNaN(s.edge) && len(vals) > 0 {
		vals = append([]float64{s.edge}, vals...)
	}
	switch o := summarize.PageOrder(vals); {
	case s.sortBy == "":
	case o == 2:
		s.sorted, s.observed = false, "not sorted by "+s.sortBy
	case o != 0 && s.observed == "unknown":
		s.observed = map[int]string{1: "descending", -1: "ascending"}[o]
		if (o == 1) != s.wantDesc && !s.search.Reverse {
			s.restartReversed()
			return true
		}
		if (o == 1) != s.wantDesc {
			s.sorted, s.observed = false, s.observed+" both with and without reverse"
		}
	case o != 0 && s.observed != map[int]string{1: "descending", -1: "ascending"}[o]:
		s.sorted, s.observed = false, "inconsistent between pages"
	}
	return false
}

// restartReversed starts the scan again in reverse order, even past the
// first page when that one was flat, forgetting everything read.
func (s *weightedRank) restartReversed() {
	s.search.Reverse = true
	s.observed, s.edge = "unknown", math.NaN()
	s.sc.Restart()
	s.reset()
}

// computed says how the ranking was reached and what withdrew its proof.
func (s *weightedRank) computed(v scan.Verdict) RankComputed {
	method := "index = sum(weight x EBV); NSIP cannot sort by any weighted trait, so its pages were read in its own order with no early stop; accuracies in percent"
	if s.sortBy != "" {
		method = fmt.Sprintf("index = sum(weight x EBV); read NSIP sorted by %s (observed %s) and stopped when the best index an unread animal could have "+
			"(its %s no better than the last read, every other weighted trait at the breed's best) fell below the N-th index; accuracies in percent", s.sortBy, s.observed, s.sortBy)
	}
	computed := RankComputed{
		Method:    method,
		SortedBy:  s.sortBy,
		ScanProof: v.Proof(s.sc, s.eb, s.stop, s.read, s.unindexed),
	}
	if s.stop == "scan limit" {
		computed.Limit = fmt.Sprintf("not proven exact: %d of %d animals read before the scan limit of %d pages; an unread animal could still rank", s.read, s.sc.Total, rankPages)
	}
	if s.outside != "" {
		computed.Ranges = s.outside + ", which disproves the ranges the early stop relies on, so none was taken"
	}
	if !s.sorted {
		computed.Sort = "NSIP's order could not be relied on, so no early stop was taken"
	}
	return computed
}

// answer is the ranking read, with the ewes' COI and percentiles when
// asked, fitted to the budget.
func (s *weightedRank) answer(ctx context.Context, a *Args, ewes *eweSet) (any, error) {
	// The ranked animals' records come first: one of the other sex leaves
	// the ranking before it is settled.
	nRecords, err := s.records(ctx, s.r)
	if err != nil {
		return nil, err
	}
	exact := (s.stop == "all read" || s.stop == "bound") && s.sc.Consistent()
	v, err := scan.Settle(ctx, s.r, s.eb, exact)
	if err != nil {
		return nil, err
	}
	// Rows are arrays under one header, so that fifty fit the budget.
	columns := []string{"rank", "lpn_id", "index", "sex", "status", "birth_year", "genotyped"}
	for _, c := range s.codes {
		columns = append(columns, c, c+"_acc")
	}
	out, unstated := s.table(func(x float64) any { return facts.Round4(x) }, func(row nsip.AnimalRow) []any {
		tm := facts.TraitMap(row.Traits)
		var cells []any
		for _, c := range s.codes {
			t := tm[c]
			cells = append(cells, t.Value, facts.AccPtr(t))
		}
		return cells
	})
	answer := RankAnswer{Columns: columns, Weights: s.w, Computed: s.computed(v)}
	answer.Genotyped = facts.GenotypedNote(unstated, len(out), nRecords == 0)
	answer.FromRecords = scan.FromRecordsNote(nRecords, len(out))
	answer.ContradictingCriteria = contradicting(s.nContra, s.contra)
	answer.LeftOutByStatus, answer.SexFromSearch = s.keep.blocks()
	answer.BirthYears = s.birthYearsNote()
	answer.StatusRead = statusRead(a.Criteria)
	if s.unindexed > 0 {
		answer.Unranked = fmt.Sprintf("%d animals lack an EBV for a weighted trait and have no index", s.unindexed)
	}
	answer.Warnings = directionWarnings(s.w)
	if answer.Columns, answer.ForEwes, out, err = ewes.apply(ctx, answer.Columns, out, s.rows, s.topN, answer.Computed.Exact, len(out) < s.scanN); err != nil {
		return nil, err
	}
	if a.Percentiles {
		pc, unproven := percentile.NewFinder(s.r), map[string]string{}
		cols, err := pc.RowPercentiles(ctx, s.breed, out, s.rows, s.codes, unproven)
		if err != nil {
			return nil, err
		}
		answer.Columns = append(answer.Columns, cols...)
		answer.Percentiles = pc.Block(unproven)
	}
	// What the answer cost NSIP: the ewes' pedigrees and the percentiles
	// are read after the scan was settled.
	answer.Computed.Upstream = s.r.Upstream()
	answer.TimeLimit = s.r.TimeLimitCut(s.chosen, answer.ForEwes.cutEffect())
	// Over the budget the ranking keeps its first rows whole, and says how
	// to read the rest, rather than fall to a generic summary.
	fitted, shown := analysis.FitRows(ctx, s.r, len(out), func(n int) *RankAnswer {
		a := answer
		a.Top = out[:n]
		if n < len(out) {
			a.NotShown = s.r.RestCall(s.chosen, n, len(out), fmt.Sprintf("ranks %d to %d", n+1, len(out)))
			a.LeftOutByStatus, a.SexFromSearch = unnamed(a.LeftOutByStatus), unnamed(a.SexFromSearch)
		}
		return &a
	})
	return analysis.WithRows(fitted, shown, answer.Columns, out), nil
}

// contradicting names the rows NSIP returned against the search criteria;
// nil when there were none.
func contradicting(n int, ids []string) *analysis.Named {
	if n == 0 {
		return nil
	}
	return &analysis.Named{Count: n, LPNIDs: ids,
		Effect: "rows NSIP returned that contradict search_criteria, a sign it ignored a criterion; they were not ranked"}
}

// RankAnswer is nsip_rank_animals by weights.
type RankAnswer struct {
	analysis.Cut
	// BirthYears says which birth_year cells were read from the LPN ID.
	BirthYears            string          `json:"birth_years,omitempty"`
	Columns               []string        `json:"columns"`
	Computed              RankComputed    `json:"computed"`
	ContradictingCriteria *analysis.Named `json:"contradicting_criteria,omitempty"`
	ForEwes               *ForEwes        `json:"for_ewes,omitempty"`
	Genotyped             string          `json:"genotyped,omitempty"` // what the genotyped column's nulls mean
	// FromRecords says which ranked rows were completed from the animals'
	// records, NSIP's search rows lacking sex, birth date and genotyped.
	FromRecords string `json:"from_records,omitempty"`
	analysis.Ignored
	// LeftOutByStatus counts the animals read but left out by status: not
	// CURRENT when no status was asked, or outside a status word that
	// NSIP could not be asked for.
	LeftOutByStatus *analysis.Named `json:"left_out_by_status,omitempty"`
	analysis.NonFinite
	NotShown    *analysis.RestCall      `json:"not_shown,omitempty"`
	Percentiles *percentile.Percentiles `json:"percentiles,omitempty"`
	// SexFromSearch counts the ranked animals whose rows record no sex,
	// taken as the sex search_criteria.gender asked NSIP for.
	SexFromSearch *analysis.Named `json:"sex_from_search,omitempty"`
	// StatusRead says how a status word of search_criteria was read.
	StatusRead string `json:"status_read,omitempty"`
	// Top are the ranked rows under Columns: rank, lpn_id, index, sex,
	// status, birth_year, genotyped, each weighted trait and its accuracy, and with
	// for_ewes or percentiles their columns.
	Top      [][]any          `json:"top"`
	Unranked string           `json:"unranked,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	Weights  breeding.Weights `json:"weights"`
}

// RankComputed is how a ranking by weights was computed.
type RankComputed struct {
	Method   string `json:"method"`
	Ranges   string `json:"ranges,omitempty"`
	Sort     string `json:"sort,omitempty"`
	SortedBy string `json:"sorted_by"` // "" when no weighted trait can be sorted on
	analysis.ScanProof
}

// IndexRankAnswer is nsip_rank_animals by one of NSIP's own indexes.
type IndexRankAnswer struct {
	analysis.Cut
	BirthYears            string            `json:"birth_years,omitempty"` // as RankAnswer's
	Columns               []string          `json:"columns"`
	Computed              IndexRankComputed `json:"computed"`
	ContradictingCriteria *analysis.Named   `json:"contradicting_criteria,omitempty"`
	ForEwes               *ForEwes          `json:"for_ewes,omitempty"`
	Genotyped             string            `json:"genotyped,omitempty"`
	FromRecords           string            `json:"from_records,omitempty"` // as RankAnswer's
	analysis.Ignored
	// Index is the index as the caller named it; IndexCode the member
	// NSIP's rows send it under (usIndex, usHairIndex, srcIndex).
	Index           string          `json:"index"`
	IndexCode       string          `json:"index_code"`
	LeftOutByStatus *analysis.Named `json:"left_out_by_status,omitempty"` // as RankAnswer's
	analysis.NonFinite
	NotShown *analysis.RestCall `json:"not_shown,omitempty"`
	// Percentiles, when asked for, says why a ranking by index has none.
	Percentiles   string          `json:"percentiles,omitempty"`
	SexFromSearch *analysis.Named `json:"sex_from_search,omitempty"` // as RankAnswer's
	StatusRead    string          `json:"status_read,omitempty"`     // as RankAnswer's
	Top           [][]any         `json:"top"`                       // rank, lpn_id, index, sex, status, birth_year, genotyped (and for_ewes's columns)
	Unranked      string          `json:"unranked,omitempty"`
}

// IndexRankComputed is how a ranking by index was computed.
type IndexRankComputed struct {
	// BreedPass says what became of the breed's pass: answered from,
	// kept from the pages read, or being read for a later call.
	BreedPass string `json:"breed_pass,omitempty"`
	Method    string `json:"method"`
	analysis.ScanProof
	// Via is how the animals were read: "breed pass" or "search pages".
	Via string `json:"via"`
}

// ForEwes is a ranking's judgement of its rams against for_ewes.
type ForEwes struct {
	COIUnknown   *analysis.Named `json:"coi_unknown,omitempty"`
	Ewes         int             `json:"ewes"`
	Exact        bool            `json:"exact"`
	LineagesRead int             `json:"lineages_read"`
	LookupLimit  int             `json:"lookup_limit"`
	MaxMeanCOI   *float64        `json:"max_mean_coi,omitempty"`
	Method       string          `json:"method"`
	NotChecked   *analysis.Named `json:"not_checked,omitempty"`
	Notes        []string        `json:"notes,omitempty"`
	OverMax      *analysis.Named `json:"over_max,omitempty"`
	RamsChecked  int             `json:"rams_checked"`
	Short        string          `json:"short,omitempty"`
	Unresolved   *analysis.Named `json:"unresolved,omitempty"`
	// Via, when the breed's pass held the pedigrees, says so.
	Via      *analysis.PedigreeVia `json:"via,omitempty"`
	Warnings []string              `json:"warnings,omitempty"`
}

// SchemaNames are the published names of the answer types this package
// owns and the types they hold: the $defs keys of its output schema, and
// the titles of its answers. They are chosen here rather than read from
// Go, so that renaming or moving a type changes no contract.
func SchemaNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[ForEwes]():           "ForEwes",
		reflect.TypeFor[IndexRankAnswer]():   "IndexRankAnswer",
		reflect.TypeFor[IndexRankComputed](): "IndexRankComputed",
		reflect.TypeFor[RankAnswer]():        "RankAnswer",
		reflect.TypeFor[RankComputed]():      "RankComputed",
	}
}
