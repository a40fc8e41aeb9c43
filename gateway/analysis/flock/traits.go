package flock

import (
	"context"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
)

// The traits a call names (traits) are what its question is about: "the
// mean YWT of the rams and of the ewes". An answer over the budget gives
// up the other traits' parts first, so that the named traits' statistics,
// per sex too, stay whole at the default budget.

// all keeps every trait's statistics per sex.
func all(string) bool { return true }

// fitTraits fits the traits' statistics to the budget, in steps that each
// give up less than the next: holders beyond one at each extreme; then
// the statistics per sex, said so, of the traits not named; then, with
// traits named, the other traits whole, named.
func fitTraits(ctx context.Context, r *analysis.Call, out *FlockAnswer, t *flockTally, named []string) {
	if r.OverBudget(ctx, out) {
		out.Traits = t.traitRows(1, all)
	}
	if len(t.bySex) > 1 && r.OverBudget(ctx, out) {
		out.Traits = t.traitRows(1, func(c string) bool { return slices.Contains(named, c) })
		why := "left out to fit the answer's budget: call again with a larger max_tokens, or narrow the group (search with gender)"
		if len(named) > 0 {
			why = "left out of the traits not in traits, to fit the answer's budget: name those wanted in traits, or call again with a larger max_tokens"
		}
		out.Computed.BySexStats = why
	}
	if len(named) == 0 || !r.OverBudget(ctx, out) {
		return
	}
	var others []string
	out.Traits = slices.DeleteFunc(out.Traits, func(tr FlockTrait) bool {
		if slices.Contains(named, tr.Code) {
			return false
		}
		others = append(others, tr.Code)
		return true
	})
	if len(others) > 0 {
		out.Computed.OtherTraits = strings.Join(others, ", ") + ": left out to fit the answer's budget; name them in traits, or see every EBV in the answer's full table"
	}
}

// without are the named traits no animal of the group has an EBV for, so
// that a trait asked about is never silently absent.
func (t *flockTally) without(named []string) []string {
	var out []string
	for _, c := range named {
		if len(t.values[c]) == 0 {
			out = append(out, c)
		}
	}
	return out
}
