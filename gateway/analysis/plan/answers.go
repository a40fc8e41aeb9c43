package plan

import (
	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// PlanAnswer is nsip_plan_matings.
type PlanAnswer struct {
	// ByRam are each ram's ewes, rows under Columns: ewe, coi, lamb_index
	// and each weighted trait's lamb EBV, a number or "unknown".
	ByRam            map[string][][]any `json:"by_ram"`
	Columns          []string           `json:"columns"`
	Computed         PlanComputed       `json:"computed"`
	Ewes             int                `json:"ewes"`
	EwesWithoutIndex *EwesWithoutIndex  `json:"ewes_without_index,omitempty"`
	analysis.Ignored
	LambEBVs string  `json:"lamb_ebvs,omitempty"` // why they were left out
	Mated    int     `json:"mated"`
	MaxCOI   float64 `json:"max_coi"`
	analysis.NonFinite
	NotShown        *analysis.RestCall  `json:"not_shown,omitempty"`
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
	AncestorRecordsRead int               `json:"ancestor_records_read,omitempty"`
	LineagesRead        int               `json:"lineages_read"`
	Method              string            `json:"method"`
	PedigreeAnimals     int               `json:"pedigree_animals"`
	Upstream            analysis.Upstream `json:"upstream"`
	// Via, when the breed's pass held the pedigrees, says so.
	Via *analysis.PedigreeVia `json:"via,omitempty"`
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
