package rank

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// RankAnswer is nsip_rank_animals by weights.
type RankAnswer struct {
	Columns               []string        `json:"columns"`
	Computed              RankComputed    `json:"computed"`
	ContradictingCriteria *analysis.Named `json:"contradicting_criteria,omitempty"`
	// DeadOrCulled counts the animals read but left out as recorded DEAD
	// or CULL (unless include_dead_and_culled or a status was asked).
	DeadOrCulled *analysis.Named `json:"dead_or_culled,omitempty"`
	ForEwes      *ForEwes        `json:"for_ewes,omitempty"`
	Genotyped    string          `json:"genotyped,omitempty"` // what the genotyped column's nulls mean
	// FromRecords says which ranked rows were completed from the animals'
	// records, NSIP's search rows lacking sex, birth date and genotyped.
	FromRecords string `json:"from_records,omitempty"`
	analysis.Ignored
	analysis.NonFinite
	NotShown    *analysis.RestCall      `json:"not_shown,omitempty"`
	Percentiles *percentile.Percentiles `json:"percentiles,omitempty"`
	// SexFromSearch counts the ranked animals whose rows record no sex,
	// taken as the sex search_criteria.gender asked NSIP for.
	SexFromSearch *analysis.Named `json:"sex_from_search,omitempty"`
	// Top are the ranked rows under Columns: rank, lpn_id, index, sex,
	// status, genotyped, each weighted trait and its accuracy, and with
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
	Columns               []string          `json:"columns"`
	Computed              IndexRankComputed `json:"computed"`
	ContradictingCriteria *analysis.Named   `json:"contradicting_criteria,omitempty"`
	DeadOrCulled          *analysis.Named   `json:"dead_or_culled,omitempty"` // as RankAnswer's
	ForEwes               *ForEwes          `json:"for_ewes,omitempty"`
	Genotyped             string            `json:"genotyped,omitempty"`
	FromRecords           string            `json:"from_records,omitempty"` // as RankAnswer's
	analysis.Ignored
	Index string `json:"index"`
	analysis.NonFinite
	NotShown *analysis.RestCall `json:"not_shown,omitempty"`
	// Percentiles, when asked for, says why a ranking by index has none.
	Percentiles   string          `json:"percentiles,omitempty"`
	SexFromSearch *analysis.Named `json:"sex_from_search,omitempty"` // as RankAnswer's
	Top           [][]any         `json:"top"`                       // rank, lpn_id, index, sex, status, genotyped (and for_ewes's columns)
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
	Warnings     []string        `json:"warnings,omitempty"`
}
