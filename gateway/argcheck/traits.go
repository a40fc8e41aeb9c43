package argcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// CheckTraits checks a search's sorted_trait and trait_ranges codes, of
// its validated arguments args, against the traits of the breed searched,
// which its trait ranges list: breeds publish different traits, beyond
// any fixed list. Without a breed, or when NSIP has no trait list for it,
// the codes go to NSIP as they are and NSIP judges them. With the errors
// come the edits that make the error's example, built from args, a
// correct call: each unknown code replaced by the breed's code it means,
// or failing that its nearest.
func (b *Breeds) CheckTraits(ctx context.Context, args param.Valid) ([]param.FieldError, []param.Edit) {
	f := b.Search
	breed, _ := args.Int(f.Breed)
	if breed == 0 {
		breed, _ = args.Int(f.Criteria + "." + f.CriteriaBreed)
	}
	sorted, _ := args.String(f.SortedTrait)
	rangesAt := f.Criteria + "." + f.TraitRanges
	ranged := args.Names(rangesAt)
	if breed == 0 || (sorted == "" && len(ranged) == 0) {
		return nil, nil
	}
	codes, ok := b.traitCodes(ctx, breed)
	if !ok {
		return nil, nil
	}
	var errs []param.FieldError
	var fixes []param.Edit
	check := func(field, shown, code string) bool {
		if slices.Contains(codes, code) {
			return true
		}
		problem := shown + fmt.Sprintf("is not a trait of breed %d", breed)
		if c, d := nsiparg.DidYouMeanTrait(code, codes); c != "" {
			problem += d
		} else {
			problem += fmt.Sprintf("; its nearest code is %q", nearest(code, codes))
		}
		errs = append(errs, param.FieldError{Field: field, Problem: problem,
			Expected: fmt.Sprintf("one of breed %d's traits: %s", breed, strings.Join(codes, ", "))})
		return false
	}
	if sorted != "" && !check(f.SortedTrait, param.QuoteShort(sorted)+" ", sorted) {
		fixes = append(fixes, param.Assign(f.SortedTrait, nearest(sorted, codes)))
	}
	for _, code := range ranged {
		if !check(rangesAt+"."+param.FieldName(code), "", code) {
			fixes = append(fixes, param.Drop(rangesAt+"."+code))
			// The range moves to the code meant, unless the call already
			// gives that code one of its own.
			if n := nearest(code, codes); !slices.Contains(ranged, n) {
				r, _ := args.Value(rangesAt + "." + code)
				fixes = append(fixes, param.Assign(rangesAt+"."+n, r))
			}
		}
	}
	if len(errs) == 0 {
		return nil, nil
	}
	return errs, fixes
}

// traitCodes returns the trait codes of a breed from its trait ranges,
// or false when they cannot be had (no trait data, NSIP failing, a shape
// the client did not recognize).
func (b *Breeds) traitCodes(ctx context.Context, breed int) ([]string, bool) {
	tr, ok := b.TraitRanges(ctx, breed)
	if !ok || tr == nil || len(tr.Ranges) == 0 {
		return nil, false
	}
	codes := make([]string, len(tr.Ranges))
	for i, r := range tr.Ranges {
		codes[i] = r.Code
	}
	return codes, true
}

// nearest is the candidate s means ("WEANING" is WWT), else the one with
// the fewest edits from s, the first of equals.
func nearest(s string, candidates []string) string {
	if c, _, ok := nsiparg.SuggestTrait(s, candidates); ok {
		return c
	}
	best, bestD := "", -1
	for _, c := range candidates {
		if d := param.Levenshtein(s, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
