package param

import (
	"fmt"
	"math"
	"slices"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Trait codes as arguments: a list of codes (traits) and ranges by code
// (trait_ranges), checked and normalised so that one request has one cache
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

// validateTraitRanges checks {"BWT": {"min": -1, "max": 0.5}, ...}. Codes
// are accepted in any case and normalised to upper case. A range may give
// only min or only max; the other side is filled with ±OpenBound, so that a
// one-sided range and the same range with the open side spelled out are one
// request and one cache key.
func validateTraitRanges(pr *problems, field string, obj map[string]any) (any, bool) {
	expect := (&Spec{TraitMap: true}).Expected()
	if len(obj) > maxTraitRanges {
		pr.add(FieldError{Field: field, Problem: fmt.Sprintf("names %s traits; at most %d allowed", thousands(len(obj)), maxTraitRanges), Expected: expect})
		return nil, false
	}
	out := make(map[string]any, len(obj))
	before := pr.count()
	codes := make([]string, 0, len(obj))
	for k := range obj {
		codes = append(codes, k)
	}
	slices.Sort(codes)
	bounds := []Spec{
		{Name: "min", Kind: Number, Example: -1.0},
		{Name: "max", Kind: Number, Example: 1.0},
	}
	for _, k := range codes {
		f := field + "." + FieldName(k)
		code, _, fe := rangeTrait.Read(f, k, !pr.full())
		if fe != nil {
			pr.add(*fe)
			continue
		}
		if _, dup := out[code]; dup {
			pr.add(FieldError{Field: f, Problem: fmt.Sprintf("trait %s is given more than once", code), Expected: expect})
			continue
		}
		r, ok := obj[k].(map[string]any)
		if !ok {
			pr.add(FieldError{Field: f, Problem: "must be an object {\"min\": number, \"max\": number} (either may be left out), got " + Describe(obj[k]), Expected: expect})
			continue
		}
		n := pr.count()
		v := validateObject(pr, f+".", bounds, r)
		if pr.count() > n {
			continue
		}
		lo, hasMin := v["min"].(float64)
		hi, hasMax := v["max"].(float64)
		switch {
		case !hasMin && !hasMax:
			pr.add(FieldError{Field: f, Problem: "gives neither min nor max", Expected: expect})
			continue
		case math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0):
			pr.add(FieldError{Field: f, Problem: "min and max must be finite numbers", Expected: expect})
			continue
		case !hasMin:
			lo = min(-OpenBound, hi)
		case !hasMax:
			hi = max(OpenBound, lo)
		}
		if lo > hi {
			pr.add(FieldError{Field: f, Problem: fmt.Sprintf("min %g is greater than max %g", lo, hi), Expected: "min <= max"})
			continue
		}
		out[code] = map[string]any{"min": lo, "max": hi}
	}
	if pr.count() > before {
		return nil, false
	}
	if len(out) == 0 {
		return nil, true // an empty filter filters nothing
	}
	return out, true
}

// rangeTrait is a key of trait_ranges.
var rangeTrait = TraitArg{AnyCode: true, Key: true, Expect: "a trait code such as WWT, or its name; " + toolname.GetTraitRanges + " lists a breed's codes"}
