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
// each unknown code replaced by the breed's nearest, for the error's
// example of a correct call.
func (g *Gateway) checkBreedTraits(ctx context.Context, args map[string]any) ([]param.FieldError, map[string]any) {
	crit, _ := args["search_criteria"].(map[string]any)
	breed, _ := args["breed_id"].(int)
	if breed == 0 {
		breed, _ = crit["breed_id"].(int)
	}
	sorted, _ := args["sorted_trait"].(string)
	ranges, _ := crit["trait_ranges"].(map[string]any)
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
		if c, ok := param.Closest(code, codes); ok {
			problem += fmt.Sprintf("; did you mean %q?", c)
		} else {
			problem += fmt.Sprintf("; its nearest code is %q", nearest(code, codes))
		}
		errs = append(errs, param.FieldError{Field: field, Problem: problem,
			Expected: fmt.Sprintf("one of breed %d's traits: %s", breed, strings.Join(codes, ", "))})
		return false
	}
	if sorted != "" && !check("sorted_trait", param.QuoteShort(sorted)+" ", sorted) {
		fixed["sorted_trait"] = nearest(sorted, codes)
	}
	names := make([]string, 0, len(ranges))
	for code := range ranges {
		names = append(names, code)
	}
	sort.Strings(names)
	for _, code := range names {
		if !check("search_criteria.trait_ranges."+param.FieldName(code), "", code) {
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
		c["trait_ranges"] = fixedRanges
		fixed["search_criteria"] = c
	}
	return errs, fixed
}

// breedTraitCodes returns the trait codes of a breed from its trait ranges,
// or false when they cannot be had (no trait data, NSIP failing, a shape
// the client did not recognize).
func (g *Gateway) breedTraitCodes(ctx context.Context, breed int) ([]string, bool) {
	a := map[string]any{"breed_id": breed}
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

// nearest is the candidate with the fewest edits from s, the first of equals.
func nearest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := param.Levenshtein(s, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
