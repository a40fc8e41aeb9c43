// Package summarize keeps tool results inside a token budget: it counts
// tokens with cl100k_base, passes small upstream answers through unmodified
// and reduces large ones to what a breeder needs (FR-005, FR-015).
package summarize

import "encoding/json"

// Kind names the shape of an upstream answer, which picks its summarizer.
type Kind string

const (
	KindAnimal  Kind = "animal_details" // *nsip.AnimalDetails
	KindSearch  Kind = "search_results" // *nsip.SearchResults
	KindProgeny Kind = "progeny"        // *nsip.ProgenyPage
	KindLineage Kind = "lineage"        // *nsip.Lineage
	KindProfile Kind = "animal_profile" // *nsip.AnimalProfile
	KindGeneric Kind = "generic"        // anything else: last update, breeds, statuses, trait ranges
)

// DefaultBudget is the spec's threshold: answers of at most this many tokens
// pass through unmodified, larger ones are summarized to fit under it.
const DefaultBudget = 2000

// Request is one upstream answer to fit into a budget.
type Request struct {
	Kind  Kind
	Value any             // the decoded nsip model matching Kind; may be nil for KindGeneric
	Raw   json.RawMessage // the exact upstream JSON
	// OriginalTokens is the token count of the compacted Raw when the caller
	// already knows it (the gateway caches it); 0 means count it here.
	OriginalTokens int
	Tool           string         // the MCP tool that produced the answer, for next-call hints
	Args           map[string]any // that tool's arguments with defaults filled in, for next-call hints
	Budget         int            // 0 means DefaultBudget
}

// Result is what the client receives.
type Result struct {
	Text           string // compact JSON: the upstream answer itself, or its summary
	Tokens         int    // cl100k_base tokens of Text
	OriginalTokens int    // tokens of the compacted upstream answer
	Summarized     bool
	Kind           Kind
}

// Summarizer applies the budget policy. It is safe for concurrent use.
type Summarizer struct{ counter *Counter }

// New returns a Summarizer counting with c.
func New(c *Counter) *Summarizer { return &Summarizer{counter: c} }

// Counter counts cl100k_base tokens.
type Counter struct{}
