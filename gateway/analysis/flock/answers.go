package flock

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// FlockAnswer is nsip_flock_summary: one of flock_id, progeny_of and
// search echoes the group asked about.
type FlockAnswer struct {
	Animals     int            `json:"animals"`
	ByBirthYear map[string]int `json:"by_birth_year"`
	BySex       map[string]int `json:"by_sex"`
	ByStatus    map[string]int `json:"by_status,omitzero"` // absent for progeny, whose rows carry none
	Computed    FlockComputed  `json:"computed"`
	FlockID     string         `json:"flock_id,omitempty"`
	analysis.Ignored
	LeftOut *FlockLeftOut `json:"left_out,omitempty"`
	// NoEBV are the traits the call named that no animal of the group
	// has an EBV for.
	NoEBV []string `json:"no_ebv,omitempty"`
	analysis.NonFinite
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
	BirthYears string `json:"birth_years,omitempty"`
	Complete   bool   `json:"complete"`
	Duplicates int    `json:"duplicates"`
	Incomplete string `json:"incomplete,omitempty"`
	LeftOut    int    `json:"left_out"`
	Method     string `json:"method"`
	// OtherTraits says which traits, of those the call did not name,
	// were left out to fit the budget.
	OtherTraits string `json:"other_traits,omitempty"`
	NSIPCount   int    `json:"nsip_count"`
	PageCeiling int    `json:"page_ceiling"`
	Pages       int    `json:"pages"`
	// Sex says where by_sex's sexes came from when NSIP's rows record none.
	Sex      string            `json:"sex,omitempty"`
	Upstream analysis.Upstream `json:"upstream"`
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
