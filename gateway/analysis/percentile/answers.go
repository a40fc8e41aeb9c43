package percentile

import "github.com/nsip-tools/nsip-mcp/gateway/analysis"

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

// PercentilesAnswer is nsip_get_animal with percentiles.
type PercentilesAnswer struct {
	analysis.Cut
	Born       string   `json:"born"`
	Breed      string   `json:"breed"`
	BreedID    int      `json:"breed_id"`
	Dam        *string  `json:"dam"` // null where NSIP records none
	EBVColumns []string `json:"ebv_columns"`
	// EBVs are rows under EBVColumns: code, value, accuracy (null where
	// NSIP gives none), top_percent (null where not proven).
	EBVs          [][]any `json:"ebvs"`
	EBVsNote      string  `json:"ebvs_note,omitempty"`
	Genotyped     *string `json:"genotyped"`
	GenotypedNote string  `json:"genotyped_note,omitempty"`
	analysis.Ignored
	Indexes map[string]float64 `json:"indexes,omitempty"`
	LPNID   string             `json:"lpn_id"`
	analysis.NonFinite
	Percentiles Percentiles `json:"percentiles"`
	Record      string      `json:"record"`
	Sex         string      `json:"sex"`
	Sire        *string     `json:"sire"`
	Status      string      `json:"status"`
}
