package pedigree

import (
	"context"
	"errors"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// COI is one pair's inbreeding over a gathered pedigree.
type COI struct {
	COI       *float64
	Status    string // "unknown", "lower bound" or "complete to 6 generations"
	Ancestors []breeding.Contribution
	Itemised  bool // false when the pedigree had too many paths to list
}

// MaxPathPairs bounds the path pairs Wright's method may enumerate; beyond
// it (pedigrees deep and inbred enough for millions of paths) the L-D-L'
// method gives the same COI without listing the ancestors' paths.
const MaxPathPairs = breeding.MaxPathPairs

// AssessCOI fails with breeding.ErrTooComplex on a pedigree too large to
// compute from, or with ctx's error.
func AssessCOI(ctx context.Context, ped *breeding.Pedigree, sire, dam string) (COI, error) {
	var coi float64
	var contrib []breeding.Contribution
	var err error
	itemised := ped.PathPairs(sire, dam) <= MaxPathPairs
	if itemised {
		coi, contrib, err = ped.PathCOI(ctx, sire, dam)
		if errors.Is(err, breeding.ErrTooComplex) {
			itemised = false // too many animals along the paths to compare
		}
	}
	if !itemised {
		coi, err = ped.MatingCOI(ctx, sire, dam)
	}
	if err != nil {
		return COI{}, err
	}
	if !coiKnown(ped, sire, dam, coi) {
		return COI{Status: "unknown"}, nil
	}
	cs, cd := ped.Completeness(sire, MatingGenerations), ped.Completeness(dam, MatingGenerations)
	status := fmt.Sprintf("complete to %d generations", MatingGenerations)
	for i := range cs {
		if cs[i] < 1 || cd[i] < 1 {
			status = "lower bound: ancestors missing from the record could only add to it"
			break
		}
	}
	c := coi // exact binary fractions; rounding would hide small contributions such as 2^-11
	return COI{COI: &c, Status: status, Ancestors: contrib, Itemised: itemised}, nil
}

// coiKnown reports whether a mating's computed COI means what it says. A
// COI of 0 where either parent has no recorded sire or dam is no evidence
// of unrelated parents, only of nothing to compute from: it is unknown.
func coiKnown(ped *breeding.Pedigree, sire, dam string, coi float64) bool {
	return coi != 0 || !parentsUnknown(ped, sire) && !parentsUnknown(ped, dam)
}

func parentsUnknown(ped *breeding.Pedigree, id string) bool {
	s, d := ped.Parents(id)
	return s == "" && d == ""
}

// COILimitField asks the user for max_coi beside the weights.
var COILimitField = param.Spec{Name: "max_coi", Kind: param.Number, Example: 0.0625, Min: param.Bound(0), Max: param.Bound(1),
	Desc: "Highest inbreeding (COI) allowed for any lamb, a fraction from 0 to 1. 0.0625 (6.25%, as from first cousins) is the usual limit and is used when this is left empty."}

func CheckCOILimit(v float64) *analysis.ArgError {
	if v < 0 || v > 1 {
		return &analysis.ArgError{FieldError: param.FieldError{Field: COILimitField.Name, Problem: fmt.Sprintf("must be a fraction from 0 to 1, got %g", v), Expected: "e.g. 0.0625 (6.25%)"}}
	}
	return nil
}

// COILimitArg refuses the COI limit v of argument field when it is out of
// range; the error's example of a correct call takes the usual limit
// rather than repeat the refused one.
func COILimitArg(field string, v float64) error {
	err := CheckCOILimit(v)
	if err == nil {
		return nil
	}
	err.Field = field
	return &analysis.FixedArgError{ArgError: *err, Fix: []param.Edit{param.Assign(field, COILimitField.Example)}}
}

// LambCOI is a pair's COI over the gathered pedigree, nil when unknown.
// A pedigree too complex to compute from fails the plan: allowing every
// pair as if its COI were merely unknown would ignore max_coi.
func LambCOI(ctx context.Context, ped *breeding.Pedigree, ram, ewe string) (*float64, error) {
	c, err := ped.MatingCOI(ctx, ram, ewe)
	if err != nil || !coiKnown(ped, ram, ewe, c) {
		return nil, err
	}
	return &c, nil
}
