package argcheck

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// CheckTraits checks a search's sorted_trait and trait_ranges codes
// against the traits of the breed searched, which its trait ranges list:
// breeds publish different traits, beyond any fixed list. Without a
// breed, or when NSIP has no trait list for it, the codes go to NSIP as
// they are and NSIP judges them. With the errors comes a copy of args with
// each unknown code replaced by the breed's code it means, or failing
// that its nearest, for the error's example of a correct call.
func (b *Breeds) CheckTraits(ctx context.Context, args map[string]any) ([]param.FieldError, map[string]any) {
	f := b.Search
	crit, _ := args[f.Criteria].(map[string]any)
	breed, _ := args[f.Breed].(int)
	if breed == 0 {
		breed, _ = crit[f.CriteriaBreed].(int)
	}
	sorted, _ := args[f.SortedTrait].(string)
	ranges, _ := crit[f.TraitRanges].(map[string]any)
	if breed == 0 || (sorted == "" && len(ranges) == 0) {
		return nil, nil
	}
	codes, ok := b.traitCodes(ctx, breed)
	if !ok {
		return nil, nil
	}
	var errs []param.FieldError
	fixed := maps.Clone(args)
	fixedRanges := maps.Clone(ranges)
	check := func(field, shown, code string) bool {
		if slices.Contains(codes, code) {
			return true
		}
		problem := shown + fmt.Sprintf("is not a trait of breed %d", breed)
		if c, d := param.DidYouMeanTrait(code, codes); c != "" {
			problem += d
		} else {
			problem += fmt.Sprintf("; its nearest code is %q", nearest(code, codes))
		}
		errs = append(errs, param.FieldError{Field: field, Problem: problem,
			Expected: fmt.Sprintf("one of breed %d's traits: %s", breed, strings.Join(codes, ", "))})
		return false
	}
	if sorted != "" && !check(f.SortedTrait, param.QuoteShort(sorted)+" ", sorted) {
		fixed[f.SortedTrait] = nearest(sorted, codes)
	}
	names := make([]string, 0, len(ranges))
	for code := range ranges {
		names = append(names, code)
	}
	sort.Strings(names)
	for _, code := range names {
		if !check(f.Criteria+"."+f.TraitRanges+"."+param.FieldName(code), "", code) {
			delete(fixedRanges, code)
			if n := nearest(code, codes); ranges[n] == nil {
				fixedRanges[n] = ranges[code]
			}
		}
	}
	if len(errs) == 0 {
		return nil, nil
	}
	if len(ranges) > 0 {
		c := maps.Clone(crit)
		c[f.TraitRanges] = fixedRanges
		fixed[f.Criteria] = c
	}
	return errs, fixed
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
	if c, _, ok := param.SuggestTrait(s, candidates); ok {
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
