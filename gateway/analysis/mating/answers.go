package mating

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
)

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
	analysis.Ignored
	MidparentEBVs    map[string]Midparent `json:"midparent_ebvs"`
	MidparentUnknown []string             `json:"midparent_unknown,omitempty"`
	analysis.NonFinite
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
	AncestorRecordsRead int               `json:"ancestor_records_read,omitempty"`
	GenerationsSought   int               `json:"generations_sought,omitempty"` // none when the breed's whole pedigree was held
	LineagesRead        int               `json:"lineages_read"`
	Method              string            `json:"method"`
	PedigreeAnimals     int               `json:"pedigree_animals"`
	Upstream            analysis.Upstream `json:"upstream"`
	// Via, when the breed's pass held a parent's pedigree, says so.
	Via *analysis.PedigreeVia `json:"via,omitempty"`
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
