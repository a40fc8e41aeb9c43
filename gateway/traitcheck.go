package gateway

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// checkBreedTraits checks a search's sorted_trait and trait_ranges codes
// against the traits of the breed searched, which its trait ranges list:
// breeds publish different traits, beyond any fixed list. The ranges come
// through the pipeline like any answer (cached, rate limited). Without a
// breed, or when NSIP has no trait list for it, the codes go to NSIP as
// they are and NSIP judges them. With the errors comes a copy of args with
// each unknown code replaced by the breed's code it means, or failing
// that its nearest, for the error's example of a correct call.
func (g *Gateway) checkBreedTraits(ctx context.Context, args map[string]any) ([]param.FieldError, map[string]any) {
	crit, _ := args[argCriteria].(map[string]any)
	breed, _ := args[argSearchBreed].(int)
	if breed == 0 {
		breed, _ = crit[argCriteriaBreed].(int)
	}
	sorted, _ := args[argSortedTrait].(string)
	ranges, _ := crit[argTraitRanges].(map[string]any)
	if breed == 0 || (sorted == "" && len(ranges) == 0) {
		return nil, nil
	}
	codes, ok := g.breedTraitCodes(ctx, breed)
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
	if sorted != "" && !check(argSortedTrait, param.QuoteShort(sorted)+" ", sorted) {
		fixed[argSortedTrait] = nearest(sorted, codes)
	}
	names := make([]string, 0, len(ranges))
	for code := range ranges {
		names = append(names, code)
	}
	sort.Strings(names)
	for _, code := range names {
		if !check(argCriteria+"."+argTraitRanges+"."+param.FieldName(code), "", code) {
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
		c[argTraitRanges] = fixedRanges
		fixed[argCriteria] = c
	}
	return errs, fixed
}

// The arguments checkBreedTraits reads, named by the fields of
// searchArgs and param.Criteria that define them.
var (
	argSearchBreed   = searchAnimalsDef.args.Name("BreedID")
	argSortedTrait   = searchAnimalsDef.args.Name("SortedTrait")
	argCriteria      = searchAnimalsDef.args.Name("Criteria")
	criteriaArgs     = param.MustStruct[param.Criteria](argTable)
	argCriteriaBreed = criteriaArgs.Name("BreedID")
	argTraitRanges   = criteriaArgs.Name("TraitRanges")
)

// breedTraitCodes returns the trait codes of a breed from its trait ranges,
// or false when they cannot be had (no trait data, NSIP failing, a shape
// the client did not recognize).
func (g *Gateway) breedTraitCodes(ctx context.Context, breed int) ([]string, bool) {
	a := map[string]any{traitRangesDef.args.Name("BreedID"): breed}
	ob, err := g.obtain(ctx, traitRangesDef, cache.Key(traitRangesDef.method, a), a)
	if err != nil {
		return nil, false
	}
	tr, ok := ob.a.Value.(*nsip.TraitRanges)
	if !ok || len(tr.Ranges) == 0 {
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
