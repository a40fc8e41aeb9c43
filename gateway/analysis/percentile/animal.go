package percentile

import (
	"context"
	"fmt"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// AnimalPercentiles is nsip_get_animal asked for percentiles: the animal's
// EBVs, each with its top_percent in the animal's breed, computed as for a
// comparison. The gateway serves it under nsip_get_animal's own name and
// arguments, so it has no tool of its own (it is not in the gateway's
// list of analyses).
var AnimalPercentiles = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.GetAnimal, Title: "NSIP animal details", Method: "animal_percentiles",
		Toolset: toolsets.Lookup, Kind: summarize.KindGeneric,
		// Its description and arguments are nsip_get_animal's (lookup.Animal),
		// whose calls with percentiles: true it answers.
	},
	Ceiling: 1 + Lookups,
	Answers: []reflect.Type{reflect.TypeFor[PercentilesAnswer]()},
	Run:     analysis.Typed(runAnimalPercentiles),
}

// percentileArgs are nsip_get_animal's arguments as the percentile
// analysis reads them: the gateway validates a call by the lookup's own
// argument struct, whose members these fields take, so the analysis needs
// no import of the lookup's package (which imports this one).
type percentileArgs struct {
	SearchString string `json:"search_string"`
	Percentiles  bool   `json:"percentiles,omitempty"`
	param.Budget
}

func runAnimalPercentiles(ctx context.Context, r *analysis.Call, a *percentileArgs) (any, error) {
	id := a.SearchString
	d, err := r.Details(ctx, id)
	if err != nil {
		return nil, &analysis.AboutError{Field: "search_string", Value: id, What: "animal matching", Next: "check the ID, or find animals and their LPN IDs with " + toolname.SearchAnimals, Err: err}
	}
	pc := NewFinder(r)
	pc.subject = d.LPNID
	unproven := map[string]string{}
	var qs []Query
	if d.BreedID != 0 {
		for _, t := range d.Traits {
			qs = append(qs, Query{d.BreedID, t.Code, t.Value})
		}
	}
	res, err := pc.TopPercents(ctx, qs)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, 0, len(d.Traits))
	for i, t := range d.Traits {
		code := t.Code
		var cell any
		switch {
		case d.BreedID == 0:
			unproven[code] = "the animal's record names no breed ID"
		case res[i].TopPercent == nil && res[i].Range != "":
			unproven[code] = WithRange("", res[i].Why, res[i].Range, d.LPNID)
		case res[i].TopPercent == nil:
			unproven[code] = res[i].Why
			if res[i].stopped {
				pc.missing = append(pc.missing, code)
			}
		default:
			cell = *res[i].TopPercent
		}
		rows = append(rows, []any{code, facts.Round4(t.Value), facts.AccPtr(t), cell})
	}
	indexes := map[string]float64{}
	for _, ix := range d.Indexes {
		indexes[ix.Name] = ix.Value
	}
	out := &PercentilesAnswer{
		LPNID: d.LPNID, Breed: d.Breed, BreedID: d.BreedID, Sex: d.Gender, Status: d.Status, Born: d.DateOfBirth,
		Sire: facts.Stated(d.Sire), Dam: facts.Stated(d.Dam), Genotyped: facts.GenotypedPtr(d.Genotyped),
		EBVColumns:  []string{"code", "value", "accuracy", "top_percent"},
		EBVs:        rows,
		Percentiles: *pc.Block(unproven),
		Record:      "the rest of NSIP's record (progeny count, breeder's contact): " + toolname.GetAnimal + " without percentiles",
	}
	if d.Genotyped == "" {
		out.GenotypedNote = facts.GenotypedNote(1, 1, false)
	}
	if len(indexes) > 0 {
		out.Indexes = indexes
	}
	if len(d.Traits) == 0 {
		out.EBVsNote = fmt.Sprintf("NSIP's record of %s carries no EBV", d.LPNID)
	}
	out.TimeLimit = r.TimeLimitCut(analysis.SetArgs{}, "the percentiles it left uncomputed are in percentiles.not_computed")
	return out, nil
}
