package plan

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// The COI matrix (coi_only): "how inbred would the lambs of these rams
// and these ewes be" needs no breeding objective, so it is answered from
// the plan's own reading of the pedigrees and its COI of every pair
// (pairUp), without weights and without an assignment. One row per ram,
// the ewes in one fixed order, so a hundred ewes are named once rather
// than in every cell.

// COIMatrixAnswer is nsip_plan_matings with coi_only: the lamb's COI of
// every ram with every ewe.
type COIMatrixAnswer struct {
	// COI are each ram's lambs' COIs with the ewes, in Ewes order: a
	// number when exact, ">=x" when only a lower bound, "unknown".
	COI      map[string][]any `json:"coi"`
	Cells    string           `json:"cells"` // what a cell means
	Computed PlanComputed     `json:"computed"`
	Ewes     []string         `json:"ewes"`
	analysis.Ignored
	MaxCOI float64 `json:"max_coi"`
	analysis.NonFinite
	NotShown *analysis.RestCall `json:"not_shown,omitempty"`
	Notes    []string           `json:"notes,omitempty"`
	// OverMaxCOI counts the pairs whose COI, exact or a lower bound,
	// exceeds MaxCOI.
	OverMaxCOI      int             `json:"over_max_coi"`
	UnknownCOIPairs int             `json:"unknown_coi_pairs,omitempty"`
	Unresolved      *PlanUnresolved `json:"unresolved,omitempty"`
	Warnings        []string        `json:"warnings,omitempty"`
}

// matrixCells says what a cell of the matrix holds.
const matrixCells = "the lamb's COI as a fraction; \">=x\": at least x, the pedigree behind the pair not read whole (see unresolved); \"unknown\": NSIP records no parents of the ram or ewe, or none were read (see unresolved)"

// checkMatrixArgs refuses, with coi_only, the arguments only a plan
// reads: they would otherwise be silently dropped. The error's example
// is the call without them.
func checkMatrixArgs(r *analysis.Call) error {
	for _, name := range []string{Params.Name("Weights"), Params.Name("MaxPerRam")} {
		if r.Sent.Has(name) {
			return &analysis.FixedArgError{ArgError: analysis.ArgError{FieldError: param.FieldError{Field: name,
				Problem: "chooses matings, and coi_only answers each pair's COI alone", Expected: "leave " + name + " out, or coi_only out for a plan"}},
				Fix: []param.Edit{param.Drop(Params.Name("Weights")), param.Drop(Params.Name("MaxPerRam"))}}
		}
	}
	return nil
}

// cell is pair (ri, ei)'s cell: the COI when exact, a lower bound when
// the pedigree behind either animal was not read whole, else unknown.
func (p *planRun) cell(ri, ei int) any {
	c := p.coi[ri][ei]
	switch {
	case c == nil:
		return "unknown"
	case p.unread[p.rams[ri]] || p.unread[p.ewes[ei]]:
		return ">=" + strconv.FormatFloat(*c, 'g', -1, 64)
	}
	return *c
}

// matrix is the COI of every pair, each ram's row in ewe_lpn_ids order,
// fitted to the budget by showing the first ewes' columns; the whole
// matrix is then the answer's complete data, a row per ram.
func (p *planRun) matrix(ctx context.Context) any {
	rows := make([][]any, len(p.rams))
	over, unknown := 0, 0
	var unresolved int
	for ri := range p.rams {
		rows[ri] = make([]any, len(p.ewes))
		for ei := range p.ewes {
			v := p.cell(ri, ei)
			rows[ri][ei] = v
			c := p.coi[ri][ei]
			switch {
			case c == nil:
				unknown++
			case *c > p.maxCOI+1e-12:
				over++
			}
			if p.unread[p.rams[ri]] || p.unread[p.ewes[ei]] {
				unresolved++
			}
		}
	}
	build := func(n int) *COIMatrixAnswer {
		out := &COIMatrixAnswer{
			COI:             map[string][]any{},
			Cells:           matrixCells,
			Ewes:            p.ewes[:n],
			MaxCOI:          p.maxCOI,
			OverMaxCOI:      over,
			UnknownCOIPairs: unknown,
			Warnings:        p.warnings,
			Computed: PlanComputed{
				Method:              "COI by the L-D-L' (additive relationship) method over each animal's pedigree extended to 6 generations, as a plan computes it; no plan is made",
				PedigreeAnimals:     p.b.Ped.Len(),
				LineagesRead:        p.b.Lookups,
				Upstream:            p.r.Upstream(),
				AncestorRecordsRead: p.b.Records,
			},
		}
		p.pedigreeVia(&out.Computed)
		for ri, ram := range p.rams {
			out.COI[ram] = rows[ri][:n]
		}
		if len(p.b.Notes) > 0 {
			out.Notes = p.b.Notes
		}
		if unresolved > 0 {
			out.Unresolved = &PlanUnresolved{Animals: slices.Sorted(maps.Keys(p.unread)), Pairs: unresolved,
				Effect: fmt.Sprintf("the pedigree within %d generations behind these animals was not read whole or holds a broken record (see notes and warnings), so their pairs' COIs are lower bounds; check one with %s", pedigree.MatingGenerations, toolname.CheckMating)}
		}
		if n < len(p.ewes) {
			out.NotShown = p.r.RestCall(p.chosen, n, len(p.ewes), fmt.Sprintf("the ewes after the first %d in ewe_lpn_ids order, every ram's cell for each", n))
		}
		return out
	}
	out, n := analysis.FitRows(ctx, p.r, len(p.ewes), build)
	if n == len(p.ewes) {
		return out
	}
	t := &full.Table{Columns: append([]string{"ram"}, p.ewes...)}
	for ri, ram := range p.rams {
		t.Rows = append(t.Rows, append([]any{ram}, rows[ri]...))
	}
	return &full.Answer{Value: out, Table: t}
}
