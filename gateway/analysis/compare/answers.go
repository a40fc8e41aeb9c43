package compare

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
)

// CompareAnswer is nsip_compare_animals, one object an animal.
type CompareAnswer struct {
	analysis.Cut
	Animals   []CompareRow        `json:"animals"`
	Best      map[string][]string `json:"best"`                // trait -> the animals best at it
	BestIndex map[string][]string `json:"best_index,omitzero"` // with indexes
	Computed  CompareComputed     `json:"computed"`
	Genotyped string              `json:"genotyped,omitempty"`
	analysis.Ignored
	Indexes []string `json:"indexes,omitempty"`
	analysis.NonFinite
	NotRanked   *NotRanked              `json:"not_ranked,omitempty"`
	Percentiles *percentile.Percentiles `json:"percentiles,omitempty"`
	Traits      []string                `json:"traits"`
	Unknown     []string                `json:"unknown,omitempty"` // "lpn_id:trait" an animal lacks
}

// CompactCompareAnswer is a comparison over its budget: the animals as
// rows of values under one header, their accuracies left out.
type CompactCompareAnswer struct {
	analysis.Cut
	Accuracies string `json:"accuracies"`
	// Animals are rows under Columns: lpn_id, sex, born, sire and dam
	// (null where NSIP records none; both left out where it records none
	// for any animal, and Parents says so), then genotyped and breed where
	// they differ, each index and each trait's EBV (null where the animal
	// has none).
	Animals   [][]any             `json:"animals"`
	Best      map[string][]string `json:"best"`
	BestIndex map[string][]string `json:"best_index,omitzero"`
	Breed     *string             `json:"breed,omitempty"` // when every animal's is the same
	Columns   []string            `json:"columns"`
	Computed  CompareComputed     `json:"computed"`
	Genotyped string              `json:"genotyped,omitempty"`
	analysis.Ignored
	analysis.NonFinite
	NotRanked   *NotRanked              `json:"not_ranked,omitempty"`
	NotShown    *CompareNotShown        `json:"not_shown,omitempty"`
	Parents     string                  `json:"parents,omitempty"`
	Percentiles *percentile.Percentiles `json:"percentiles,omitempty"`
	TopPercent  *CompactTopPercent      `json:"top_percent,omitempty"`
	Traits      []string                `json:"traits"`
	Unknown     []string                `json:"unknown,omitempty"`
}

// CompareRow is one animal of a comparison.
type CompareRow struct {
	LPNID string         `json:"lpn_id"`
	Sex   string         `json:"sex,omitempty"`
	Born  string         `json:"born,omitempty"`
	Breed string         `json:"breed,omitempty"`
	Sire  *string        `json:"sire"` // null where NSIP records none
	Dam   *string        `json:"dam"`
	EBV   []*[2]*float64 `json:"ebv"` // per trait [value, accuracy %]; null where NSIP has none
	// Indexes are NSIP's own, as it computed them, by name.
	Indexes   map[string]float64 `json:"indexes,omitempty"`
	Genotyped *string            `json:"genotyped"` // as sent; null where the record did not say
	// TopPercent is each trait's breed percentile, with percentiles.
	TopPercent []*float64 `json:"top_percent,omitempty"`
}

// CompareComputed is how a comparison was computed.
type CompareComputed struct {
	Animals  int               `json:"animals"`
	Method   string            `json:"method"`
	Upstream analysis.Upstream `json:"upstream"`
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
