package analysis

import (
	"fmt"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// The answers the analyses build, one type per shape. Their JSON is the
// answer's text and its structured copy, and the gateway writes each
// analysis's output schema from these types (gateway/outschema), so a
// field added here is in the schema at the next build.
//
// Fields are declared in the order of their JSON names, as a map's keys
// were written before the answers had types: the bytes, and so every token
// count and budget decision, stay what they were (testdata/golden). A
// member absent from some answers is omitempty, or omitzero where an empty
// value is itself shown ({} or []).
//
// Rows whose columns are chosen per call (a trait and its accuracy for
// each weighted trait) are arrays under a columns header, so that fifty
// fit a budget; their cells mix numbers, strings and null, and stay []any.

// Upstream is what a call read, for the "computed" blocks.
type Upstream struct {
	Cached int `json:"cached"`
	// CachedNote, when some lookups came from the cache, says what that
	// leaves unseen: NSIP promises no fixed evaluation, and a cached
	// answer predates any published since it was kept.
	CachedNote       string `json:"cached_note,omitempty"`
	Ceiling          int    `json:"ceiling"`
	Fetched          int    `json:"fetched"`
	Lookups          int    `json:"lookups"`
	Stale            int    `json:"stale,omitempty"`
	TimeLimitReached bool   `json:"time_limit_reached,omitempty"`
	TimeLimitSeconds int    `json:"time_limit_seconds"`
}

// Ignored holds the values NSIP sent that no EBV can have, which the
// gateway adds to any answer (SetIgnored).
type Ignored struct {
	IgnoredValues *IgnoredValues `json:"ignored_values,omitempty"`
}

// SetIgnored adds the values treated as missing to the answer.
func (x *Ignored) SetIgnored(v *IgnoredValues) { x.IgnoredValues = v }

// IgnoredValues are values NSIP sent that were treated as missing.
type IgnoredValues struct {
	Note     string         `json:"note"`
	NotShown int            `json:"not_shown,omitempty"`
	Values   []IgnoredValue `json:"values"`
}

// IgnoredValue is one value treated as missing.
type IgnoredValue struct {
	LPNID string `json:"lpn_id"`
	Raw   string `json:"raw"`
	Trait string `json:"trait"`
}

// NonFinite is where the gateway says which numbers overflowed: it writes
// such an answer through a generic tree, numbers that JSON cannot hold as
// null, and this member beside (gateway/finite's Encode). Declared here so that
// the schema has it; the analyses never set it.
type NonFinite struct {
	NonFiniteValues *NonFiniteValues `json:"non_finite_values,omitempty"`
}

// NonFiniteValues names the numbers shown as null for having overflowed.
type NonFiniteValues struct {
	Note     string   `json:"note"`
	NotShown int      `json:"not_shown,omitempty"`
	Paths    []string `json:"paths"`
}

// Named is a list of animals, at most maxNamed, with how many there are
// and what being on it did.
type Named struct {
	Count  int      `json:"count"`
	Effect string   `json:"effect"`
	LPNIDs []string `json:"lpn_ids"`
}

// RestCall says how to read the rows an answer left out to fit its budget.
type RestCall struct {
	Call  *NextCall `json:"call,omitempty"`
	Note  string    `json:"note,omitempty"` // when no budget holds them
	Rows  int       `json:"rows"`
	Which string    `json:"which"`
}

// NextCall is the same call again with some arguments set.
type NextCall struct {
	Arguments string `json:"arguments"`
	// Set are the arguments to add. Its schema stays the open object it
	// was published as when these were a map (gateway/outschema).
	Set  *SetArgs `json:"set" outschema:"object"`
	Tool string   `json:"tool"`
}

// SetArgs are the arguments a NextCall adds: max_tokens, and those the
// user chose in a form, each as the call takes it. The members are in the
// order of their names, the order the object they replaced was written in.
type SetArgs struct {
	MaxCOI    *float64         `json:"max_coi,omitempty"`
	MaxTokens int              `json:"max_tokens"`
	Weights   breeding.Weights `json:"weights,omitempty"`
}

// Percentiles is the account of the breed percentiles an answer computed.
// In a compact comparison that had to leave them out it is only LeftOut
// and Lookups.
type Percentiles struct {
	// BreedPass says, by breed ID, whether the breed's pass was kept, read
	// now or not used, and why.
	BreedPass map[string]string `json:"breed_pass,omitempty"`
	// Evaluation is NSIP's last-update date the pages were read under;
	// null when it could not be read, absent when none was needed.
	Evaluation        **string          `json:"evaluation,omitempty"`
	EvaluationChanged string            `json:"evaluation_changed,omitempty"`
	EvaluationNote    string            `json:"evaluation_note,omitempty"`
	LeftOut           string            `json:"left_out,omitempty"`
	Limit             int               `json:"limit,omitempty"`
	Lookups           int               `json:"lookups"`
	Method            string            `json:"method,omitempty"`
	NotComputed       string            `json:"not_computed,omitempty"`
	TaskID            string            `json:"task_id,omitempty"`  // the caller's task reading a pass in the background (breed_pass says which)
	Unproven          map[string]string `json:"unproven,omitempty"` // why a trait has none
	// Via is how the values were found: "breed pass", "binary search", or
	// both (breeds answered differently); absent when none was asked.
	Via string `json:"via,omitempty"`
}

// RankAnswer is nsip_rank_animals by weights.
type RankAnswer struct {
	Columns               []string     `json:"columns"`
	Computed              RankComputed `json:"computed"`
	ContradictingCriteria *Named       `json:"contradicting_criteria,omitempty"`
	// DeadOrCulled counts the animals read but left out as recorded DEAD
	// or CULL (unless include_dead_and_culled or a status was asked).
	DeadOrCulled *Named   `json:"dead_or_culled,omitempty"`
	ForEwes      *ForEwes `json:"for_ewes,omitempty"`
	Genotyped    string   `json:"genotyped,omitempty"` // what the genotyped column's nulls mean
	// FromRecords says which ranked rows were completed from the animals'
	// records, NSIP's search rows lacking sex, birth date and genotyped.
	FromRecords string `json:"from_records,omitempty"`
	Ignored
	NonFinite
	NotShown    *RestCall    `json:"not_shown,omitempty"`
	Percentiles *Percentiles `json:"percentiles,omitempty"`
	// SexFromSearch counts the ranked animals whose rows record no sex,
	// taken as the sex search_criteria.gender asked NSIP for.
	SexFromSearch *Named `json:"sex_from_search,omitempty"`
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
	ScanProof
}

// IndexRankAnswer is nsip_rank_animals by one of NSIP's own indexes.
type IndexRankAnswer struct {
	Columns               []string          `json:"columns"`
	Computed              IndexRankComputed `json:"computed"`
	ContradictingCriteria *Named            `json:"contradicting_criteria,omitempty"`
	DeadOrCulled          *Named            `json:"dead_or_culled,omitempty"` // as RankAnswer's
	ForEwes               *ForEwes          `json:"for_ewes,omitempty"`
	Genotyped             string            `json:"genotyped,omitempty"`
	FromRecords           string            `json:"from_records,omitempty"` // as RankAnswer's
	Ignored
	Index string `json:"index"`
	NonFinite
	NotShown *RestCall `json:"not_shown,omitempty"`
	// Percentiles, when asked for, says why a ranking by index has none.
	Percentiles   string  `json:"percentiles,omitempty"`
	SexFromSearch *Named  `json:"sex_from_search,omitempty"` // as RankAnswer's
	Top           [][]any `json:"top"`                       // rank, lpn_id, index, sex, status, genotyped (and for_ewes's columns)
	Unranked      string  `json:"unranked,omitempty"`
}

// IndexRankComputed is how a ranking by index was computed.
type IndexRankComputed struct {
	// BreedPass says what became of the breed's pass: answered from,
	// kept from the pages read, or being read for a later call.
	BreedPass string `json:"breed_pass,omitempty"`
	Method    string `json:"method"`
	ScanProof
	// Via is how the animals were read: "breed pass" or "search pages".
	Via string `json:"via"`
}

// ScanProof is what a ranking read of NSIP's listing and whether that
// proves it exact, the same for both kinds of ranking.
type ScanProof struct {
	AnimalsRead int `json:"animals_read"`
	// Evaluation is NSIP's last-update date the pages were read under;
	// EvaluationCheck, when set, says why they are not shown to be of it.
	Evaluation      string   `json:"evaluation,omitempty"`
	EvaluationCheck string   `json:"evaluation_check,omitempty"`
	Exact           bool     `json:"exact"`
	Limit           string   `json:"limit,omitempty"`
	Pages           int      `json:"pages"`
	Paging          string   `json:"paging,omitempty"`
	Population      int      `json:"population"`
	Stale           string   `json:"stale,omitempty"` // why copies kept after NSIP failed leave it unproven
	Stopped         string   `json:"stopped"`
	Upstream        Upstream `json:"upstream"`
	WithoutIndex    int      `json:"without_index"`
}

// ForEwes is a ranking's judgement of its rams against for_ewes.
type ForEwes struct {
	COIUnknown   *Named   `json:"coi_unknown,omitempty"`
	Ewes         int      `json:"ewes"`
	Exact        bool     `json:"exact"`
	LineagesRead int      `json:"lineages_read"`
	LookupLimit  int      `json:"lookup_limit"`
	MaxMeanCOI   *float64 `json:"max_mean_coi,omitempty"`
	Method       string   `json:"method"`
	NotChecked   *Named   `json:"not_checked,omitempty"`
	Notes        []string `json:"notes,omitempty"`
	OverMax      *Named   `json:"over_max,omitempty"`
	RamsChecked  int      `json:"rams_checked"`
	Short        string   `json:"short,omitempty"`
	Unresolved   *Named   `json:"unresolved,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
}

// CompareAnswer is nsip_compare_animals, one object an animal.
type CompareAnswer struct {
	Animals   []CompareRow        `json:"animals"`
	Best      map[string][]string `json:"best"`                // trait -> the animals best at it
	BestIndex map[string][]string `json:"best_index,omitzero"` // with indexes
	Computed  CompareComputed     `json:"computed"`
	Genotyped string              `json:"genotyped,omitempty"`
	Ignored
	Indexes []string `json:"indexes,omitempty"`
	NonFinite
	NotRanked   *NotRanked   `json:"not_ranked,omitempty"`
	Percentiles *Percentiles `json:"percentiles,omitempty"`
	Traits      []string     `json:"traits"`
	Unknown     []string     `json:"unknown,omitempty"` // "lpn_id:trait" an animal lacks
}

// CompactCompareAnswer is a comparison over its budget: the animals as
// rows of values under one header, their accuracies left out.
type CompactCompareAnswer struct {
	Accuracies string `json:"accuracies"`
	// Animals are rows under Columns: lpn_id, sex, born, sire, dam, then
	// genotyped and breed where they differ, each index and each trait's
	// EBV (null where the animal has none).
	Animals   [][]any             `json:"animals"`
	Best      map[string][]string `json:"best"`
	BestIndex map[string][]string `json:"best_index,omitzero"`
	Breed     *string             `json:"breed,omitempty"` // when every animal's is the same
	Columns   []string            `json:"columns"`
	Computed  CompareComputed     `json:"computed"`
	Genotyped string              `json:"genotyped,omitempty"`
	Ignored
	NonFinite
	NotRanked   *NotRanked         `json:"not_ranked,omitempty"`
	NotShown    *CompareNotShown   `json:"not_shown,omitempty"`
	Percentiles *Percentiles       `json:"percentiles,omitempty"`
	TopPercent  *CompactTopPercent `json:"top_percent,omitempty"`
	Traits      []string           `json:"traits"`
	Unknown     []string           `json:"unknown,omitempty"`
}

// CompareRow is one animal of a comparison.
type CompareRow struct {
	LPNID string         `json:"lpn_id"`
	Sex   string         `json:"sex,omitempty"`
	Born  string         `json:"born,omitempty"`
	Breed string         `json:"breed,omitempty"`
	Sire  string         `json:"sire,omitempty"`
	Dam   string         `json:"dam,omitempty"`
	EBV   []*[2]*float64 `json:"ebv"` // per trait [value, accuracy %]; null where NSIP has none
	// Indexes are NSIP's own, as it computed them, by name.
	Indexes   map[string]float64 `json:"indexes,omitempty"`
	Genotyped *string            `json:"genotyped"` // as sent; null where the record did not say
	// TopPercent is each trait's breed percentile, with percentiles.
	TopPercent []*float64 `json:"top_percent,omitempty"`
}

// CompareComputed is how a comparison was computed.
type CompareComputed struct {
	Animals  int      `json:"animals"`
	Method   string   `json:"method"`
	Upstream Upstream `json:"upstream"`
}

// NotRanked are the traits no best is marked for, and why.
type NotRanked struct {
	Traits []string `json:"traits"`
	Why    string   `json:"why"`
}

// CompareNotShown are the animals a compact comparison left out.
type CompareNotShown struct {
	Animals int      `json:"animals"`
	Call    string   `json:"call"`
	LPNIDs  []string `json:"lpn_ids"`
}

// CompactTopPercent are a compact comparison's percentiles.
type CompactTopPercent struct {
	Cells string       `json:"cells"`
	Rows  [][]*float64 `json:"rows"`
}

// FlockAnswer is nsip_flock_summary: one of flock_id, progeny_of and
// search echoes the group asked about.
type FlockAnswer struct {
	Animals     int            `json:"animals"`
	ByBirthYear map[string]int `json:"by_birth_year"`
	BySex       map[string]int `json:"by_sex"`
	ByStatus    map[string]int `json:"by_status,omitzero"` // absent for progeny, whose rows carry none
	Computed    FlockComputed  `json:"computed"`
	FlockID     string         `json:"flock_id,omitempty"`
	Ignored
	LeftOut *FlockLeftOut `json:"left_out,omitempty"`
	NonFinite
	Note      string `json:"note,omitempty"`
	ProgenyOf string `json:"progeny_of,omitempty"`
	// Search is the search argument as validated: breed_id and
	// nsip_search_animals's search_criteria.
	Search map[string]any `json:"search,omitempty"`
	Traits []FlockTrait   `json:"traits"`
}

// FlockComputed is how a group was read.
type FlockComputed struct {
	AnimalsRead int `json:"animals_read"`
	// BreedPass says what became of the breed's pass, for a search of one
	// breed: answered from, kept from the pages read, or being read for a
	// later call.
	BreedPass  string `json:"breed_pass,omitempty"`
	ByStatus   string `json:"by_status,omitempty"`    // why by_status is absent
	BySexStats string `json:"by_sex_stats,omitempty"` // why the traits have no by_sex
	// BirthYears says where by_birth_year's years came from when NSIP's
	// rows carry no birth date.
	BirthYears  string `json:"birth_years,omitempty"`
	Complete    bool   `json:"complete"`
	Duplicates  int    `json:"duplicates"`
	Incomplete  string `json:"incomplete,omitempty"`
	LeftOut     int    `json:"left_out"`
	Method      string `json:"method"`
	NSIPCount   int    `json:"nsip_count"`
	PageCeiling int    `json:"page_ceiling"`
	Pages       int    `json:"pages"`
	// Sex says where by_sex's sexes came from when NSIP's rows record none.
	Sex      string   `json:"sex,omitempty"`
	Upstream Upstream `json:"upstream"`
	// Via is how the animals were read: "breed pass" or "search pages".
	Via string `json:"via"`
}

// FlockLeftOut are the rows NSIP returned that do not belong to the group.
type FlockLeftOut struct {
	Count  int      `json:"count"`
	LPNIDs []string `json:"lpn_ids"`
	Why    string   `json:"why"`
}

// FlockTrait is one trait's statistics over a group.
type FlockTrait struct {
	Code string `json:"trait"`
	breeding.Stats
	MinMore int `json:"min_more,omitempty"` // holders of the minimum not listed
	MaxMore int `json:"max_more,omitempty"`
	// BySex gives the statistics per sex (female, male, unknown) when the
	// group holds more than one, so that "the mean WWT of his ewe lambs"
	// is read off the answer.
	BySex map[string]SexStats `json:"by_sex,omitempty"`
}

// SexStats is one trait's statistics over the animals of one sex.
type SexStats struct {
	Mean float64 `json:"mean"`
	N    int     `json:"n"`
	SD   float64 `json:"sd"`
}

// MatingAnswer is nsip_check_mating.
type MatingAnswer struct {
	Basis           string          `json:"basis"`
	COI             *float64        `json:"coi"` // null where unknown
	COINote         string          `json:"coi_note,omitempty"`
	COIPercent      *float64        `json:"coi_percent,omitempty"`
	CommonAncestors CommonAncestors `json:"common_ancestors"`
	Completeness    Completeness    `json:"completeness"`
	Computed        MatingComputed  `json:"computed"`
	Dam             MatingParent    `json:"dam"`
	Ignored
	MidparentEBVs    map[string]Midparent `json:"midparent_ebvs"`
	MidparentUnknown []string             `json:"midparent_unknown,omitempty"`
	NonFinite
	Notes            []string     `json:"notes,omitempty"`
	Rating           string       `json:"rating"`
	RatingThresholds string       `json:"rating_thresholds"`
	Sire             MatingParent `json:"sire"`
	Warnings         []string     `json:"warnings,omitempty"`
	Window           string       `json:"window"`
}

// CommonAncestors are a mating's largest contributions; where the COI
// came from the L-D-L' method alone, only NotItemised says why not.
type CommonAncestors struct {
	Count       *int          `json:"count,omitempty"`
	NotItemised string        `json:"not_itemised,omitempty"`
	NotShown    int           `json:"not_shown,omitempty"`
	Paths       string        `json:"paths,omitempty"`
	Top         []AncestorRow `json:"top,omitzero"`
}

// Completeness is the share of each generation's ancestors recorded.
type Completeness struct {
	Dam         []float64 `json:"dam"`
	Generations string    `json:"generations"`
	Sire        []float64 `json:"sire"`
}

// MatingComputed is how a mating's COI was computed.
type MatingComputed struct {
	AncestorRecordsRead int      `json:"ancestor_records_read,omitempty"`
	GenerationsSought   int      `json:"generations_sought"`
	LineagesRead        int      `json:"lineages_read"`
	Method              string   `json:"method"`
	PedigreeAnimals     int      `json:"pedigree_animals"`
	Upstream            Upstream `json:"upstream"`
}

// MatingParent is a parent of a planned mating as NSIP records it.
type MatingParent struct {
	LPNID  string `json:"lpn_id"`
	Sex    string `json:"sex,omitempty"`
	Breed  string `json:"breed,omitempty"`
	Status string `json:"status,omitempty"`
}

// Midparent is a trait's mean of the parents' EBVs.
type Midparent struct {
	EBV     float64  `json:"ebv"`
	SireAcc *float64 `json:"sire_acc"` // percent; null where NSIP gives none
	DamAcc  *float64 `json:"dam_acc"`
}

// AncestorRow is one common ancestor's contribution to a mating's COI.
type AncestorRow struct {
	LPNID       string   `json:"lpn_id"`
	Paths       [][3]int `json:"paths"` // [n1, n2, number of path pairs of those lengths], shortest first
	MorePaths   int      `json:"more_paths,omitempty"`
	AncestorCOI *float64 `json:"ancestor_coi"` // null where it rests on pedigree not read
	// AncestorCOIAtLeast is what the pedigree read shows of an ancestor
	// COI that is otherwise unknown, where above 0.
	AncestorCOIAtLeast *float64 `json:"ancestor_coi_at_least,omitempty"`
	Contribution       float64  `json:"contribution"`
}

// PlanAnswer is nsip_plan_matings.
type PlanAnswer struct {
	// ByRam are each ram's ewes, rows under Columns: ewe, coi, lamb_index
	// and each weighted trait's lamb EBV, a number or "unknown".
	ByRam            map[string][][]any `json:"by_ram"`
	Columns          []string           `json:"columns"`
	Computed         PlanComputed       `json:"computed"`
	Ewes             int                `json:"ewes"`
	EwesWithoutIndex *EwesWithoutIndex  `json:"ewes_without_index,omitempty"`
	Ignored
	LambEBVs string  `json:"lamb_ebvs,omitempty"` // why they were left out
	Mated    int     `json:"mated"`
	MaxCOI   float64 `json:"max_coi"`
	NonFinite
	NotShown        *RestCall           `json:"not_shown,omitempty"`
	Notes           []string            `json:"notes,omitempty"`
	TotalLambIndex  float64             `json:"total_lamb_index"`
	Unassigned      map[string][]string `json:"unassigned,omitempty"` // reason -> ewes
	UnknownCOIPairs int                 `json:"unknown_coi_pairs,omitempty"`
	Unresolved      *PlanUnresolved     `json:"unresolved,omitempty"`
	Warnings        []string            `json:"warnings,omitempty"`
	Weights         breeding.Weights    `json:"weights"`
}

// PlanComputed is how a plan was computed.
type PlanComputed struct {
	AncestorRecordsRead int      `json:"ancestor_records_read,omitempty"`
	LineagesRead        int      `json:"lineages_read"`
	Method              string   `json:"method"`
	PedigreeAnimals     int      `json:"pedigree_animals"`
	Upstream            Upstream `json:"upstream"`
}

// EwesWithoutIndex are the ewes whose lambs' index is unknown.
type EwesWithoutIndex struct {
	Effect string   `json:"effect"`
	LPNIDs []string `json:"lpn_ids"`
}

// PlanUnresolved are the animals whose pairs were left out of a plan.
type PlanUnresolved struct {
	Animals []string `json:"animals"`
	Effect  string   `json:"effect"`
	Pairs   int      `json:"pairs"`
}

// PercentilesAnswer is nsip_get_animal with percentiles.
type PercentilesAnswer struct {
	Born       string   `json:"born"`
	Breed      string   `json:"breed"`
	BreedID    int      `json:"breed_id"`
	Dam        string   `json:"dam"`
	EBVColumns []string `json:"ebv_columns"`
	// EBVs are rows under EBVColumns: code, value, accuracy (null where
	// NSIP gives none), top_percent (null where not proven).
	EBVs          [][]any `json:"ebvs"`
	EBVsNote      string  `json:"ebvs_note,omitempty"`
	Genotyped     *string `json:"genotyped"`
	GenotypedNote string  `json:"genotyped_note,omitempty"`
	Ignored
	Indexes map[string]float64 `json:"indexes,omitempty"`
	LPNID   string             `json:"lpn_id"`
	NonFinite
	Percentiles Percentiles `json:"percentiles"`
	Record      string      `json:"record"`
	Sex         string      `json:"sex"`
	Sire        string      `json:"sire"`
	Status      string      `json:"status"`
}

// CachedNote says that the n cached lookups were answers NSIP gave up to
// ttl ago.
func CachedNote(n int, ttl time.Duration) string {
	return fmt.Sprintf("the %d cached are up to %s old: an NSIP evaluation published since is not in them", n, param.Duration(ttl))
}
