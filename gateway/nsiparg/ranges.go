package nsiparg

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Trait ranges as an argument (search_criteria.trait_ranges): bounds by
// trait code, checked and normalised so that one request has one cache
// key however it was spelt.

// OpenBound stands for the open side of a one-sided trait range. NSIP's
// search body documents a trait range as {"min", "max"} and nothing says it
// accepts one alone, so the open side is sent as a bound no EBV reaches
// (EBVs run to tens, indexes to a few hundred): it filters no animal out,
// as an invented bound near the breed's values could.
const OpenBound = 1e6

// maxTraitRanges bounds the codes one trait_ranges may name: more than any
// breed publishes, and a bound on the work one call can ask for.
const maxTraitRanges = 64

// rangesExpect says what trait_ranges accepts; rangesExample is the
// example its description and errors show.
const rangesExpect = "object mapping trait codes (letters, e.g. BWT, WWT, MWWT; " + toolname.GetTraitRanges + " lists a breed's codes) to {\"min\": number, \"max\": number} with min <= max; either may be left out for a one-sided bound"

var rangesExample = map[string]any{"WWT": map[string]any{"min": 1.0, "max": 5.0}}

// rangesExpected is what the argument as a whole expects, its example
// included.
var rangesExpected = rangesExpect + ", e.g. " + param.JSONText(rangesExample)

// TraitRanges is the entry describing a map of trait code to nsip.Range.
// Breeds publish different traits, so its schema names no codes (the
// breed's trait ranges decide); the description's example shows the
// {min, max} of each code and validation holds every rule.
var TraitRanges = param.Spec{
	Custom:  validateTraitRanges,
	Expect:  rangesExpected,
	Example: rangesExample,
	Desc:    "Bounds per trait code, min and/or max, e.g. {\"WWT\":{\"min\":1}}.",
}

// rangeBounds are the members of one range.
var rangeBounds = []param.Spec{
	{Name: "min", Kind: param.Number, Example: -1.0},
	{Name: "max", Kind: param.Number, Example: 1.0},
}

// validateTraitRanges checks {"BWT": {"min": -1, "max": 0.5}, ...}. Codes
// are accepted in any case and normalised to upper case. A range may give
// only min or only max; the other side is filled with ±OpenBound, so that a
// one-sided range and the same range with the open side spelled out are one
// request and one cache key.
func validateTraitRanges(field string, raw any) (any, []param.FieldError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, []param.FieldError{{Field: field, Problem: "must be an object, got " + param.Describe(raw), Expected: rangesExpected}}
	}
	if len(obj) > maxTraitRanges {
		return nil, []param.FieldError{{Field: field, Problem: fmt.Sprintf("names %s traits; at most %d allowed", param.Thousands(len(obj)), maxTraitRanges), Expected: rangesExpect}}
	}
	out := make(map[string]any, len(obj))
	var pr param.Problems
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f := field + "." + param.FieldName(k)
		code, _, fe := rangeTrait.Read(f, k, !pr.Full())
		if fe != nil {
			pr.Add(*fe)
			continue
		}
		if _, dup := out[code]; dup {
			pr.Add(param.FieldError{Field: f, Problem: fmt.Sprintf("trait %s is given more than once", code), Expected: rangesExpect})
			continue
		}
		if r, ok := readRange(&pr, f, obj[k]); ok {
			out[code] = r
		}
	}
	if pr.Count() > 0 {
		return nil, pr.Errs()
	}
	if len(out) == 0 {
		return nil, nil // an empty filter filters nothing
	}
	return out, nil
}

// readRange reads the range sent for one code, at f, its open side filled,
// adding its problems to pr.
func readRange(pr *param.Problems, f string, raw any) (map[string]any, bool) {
	fail := func(problem, expected string) (map[string]any, bool) {
		pr.Add(param.FieldError{Field: f, Problem: problem, Expected: expected})
		return nil, false
	}
	r, ok := raw.(map[string]any)
	if !ok {
		return fail("must be an object {\"min\": number, \"max\": number} (either may be left out), got "+param.Describe(raw), rangesExpect)
	}
	n := pr.Count()
	v := pr.Object(f+".", rangeBounds, param.SentOf(r))
	if pr.Count() > n {
		return nil, false
	}
	lo, hasMin := number(v, "min")
	hi, hasMax := number(v, "max")
	switch {
	case !hasMin && !hasMax:
		return fail("gives neither min nor max", rangesExpect)
	case math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0):
		return fail("min and max must be finite numbers", rangesExpect)
	case !hasMin:
		lo = min(-OpenBound, hi)
	case !hasMax:
		hi = max(OpenBound, lo)
	}
	if lo > hi {
		return fail(fmt.Sprintf("min %g is greater than max %g", lo, hi), "min <= max")
	}
	return map[string]any{"min": lo, "max": hi}, true
}

// number is the bound v holds at name, when it holds one.
func number(v param.Valid, name string) (float64, bool) {
	n, ok := v.Value(name)
	f, isNumber := n.(float64)
	return f, ok && isNumber
}

// rangeTrait is a key of trait_ranges.
var rangeTrait = TraitArg{AnyCode: true, Key: true, Expect: "a trait code such as WWT, or its name; " + toolname.GetTraitRanges + " lists a breed's codes"}
