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
// One member breaks that order: Cut, declared first in the answers it
// leads, where it is absent unless the call's time limit stopped the
// reads, so that the bytes of every other answer are unchanged.
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

// Cut leads an answer whose reads the call's time limit stopped, before
// the results it qualifies: what is unresolved below is so for want of
// time, not for anything NSIP or the pedigree says.
type Cut struct {
	TimeLimit *TimeLimitCut `json:"time_limit_reached,omitempty"`
}

// TimeLimitCut says what the time limit left unresolved and the call
// that goes on from what this one read.
type TimeLimitCut struct {
	Effect  string   `json:"effect"`
	Next    NextCall `json:"next"`
	Seconds int      `json:"seconds"`
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

// Named is a list of animals, at most MaxNamed, with how many there are
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

// CachedNote says that the n cached lookups were answers NSIP gave up to
// ttl ago.
func CachedNote(n int, ttl time.Duration) string {
	return fmt.Sprintf("the %d cached are up to %s old: an NSIP evaluation published since is not in them", n, param.Duration(ttl))
}

// PedigreeVia says in a computed block that the COIs came from the
// breed's whole pedigree, held in the breed's pass, rather than from
// lineages gathered for the call; LineagesFor names the animals the pass
// does not hold, whose pedigrees were gathered as without it.
type PedigreeVia struct {
	Animals               int         `json:"animals"`
	EquivalentGenerations Generations `json:"equivalent_generations"`
	Evaluation            string      `json:"evaluation"`
	LineagesFor           []string    `json:"lineages_for,omitempty"`
	Pedigree              string      `json:"pedigree"`
	// Records says which animals' records came from the pass's rows.
	Records string `json:"records,omitempty"`
}

// Generations is how complete pedigrees are, in equivalent complete
// generations: a mating's sire and dam, or a set's mean and fewest.
type Generations struct {
	Dam         *float64 `json:"dam,omitempty"`
	Fewest      *float64 `json:"fewest,omitempty"`
	FewestLPNID string   `json:"fewest_lpn_id,omitempty"`
	Mean        *float64 `json:"mean,omitempty"`
	Means       string   `json:"means"`
	Sire        *float64 `json:"sire,omitempty"`
}
