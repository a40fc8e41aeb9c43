package nsiparg

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// LPN IDs and trait codes as arguments: one ID (LPN), lists of IDs
// (LPNs) or codes (Traits), and weights by trait code (Weights).

// ExampleLPN is a real-looking LPN ID used in descriptions and error
// examples: a ram. ExampleEwe is a ewe of his flock that shares no recorded
// ancestor with him, the ewe the examples mate him with (the stand-in
// holds both, and a test holds them unrelated there).
const (
	ExampleLPN = "6402382024NCS310"
	ExampleEwe = "6402382022NCS120"
)

// LPN is an lpn_id argument. LPN IDs are upper case wherever NSIP writes
// one, and the analyses have always taken theirs in any case: a lowercase
// one is normalised, so that it is the same cache entry and the same NSIP
// request as the uppercase.
func LPN(desc string) param.Spec {
	return param.Spec{
		Name: "lpn_id", Kind: param.String, Required: true, Desc: desc, Example: ExampleLPN, Complete: param.LPNs,
		MinLen: nsip.MinLPNIDLength, MaxLen: nsip.MaxLPNIDLength, Pattern: param.AlnumPattern, Upper: true,
	}
}

// anLPN reads each ID of a list as one lpn_id is read.
var anLPN = LPN("")

// LPNs are the items of a list of distinct LPN IDs, upper case.
var LPNs = param.Strings{Noun: "distinct LPN IDs", Read: func(_ *param.List, field string, raw any, _ bool) (string, *param.FieldError) {
	v, errs := anLPN.Validate(field, raw)
	if errs != nil {
		return "", &errs[0] // one value has one problem
	}
	return v.(string), nil // upper case, as lpn_id is read
}}

// Traits are the items of a list of trait codes of the glossary, each
// given as its code or a breeder's word for it.
var Traits = param.Strings{Noun: "trait codes", Read: func(l *param.List, field string, raw any, suggest bool) (string, *param.FieldError) {
	s, ok := raw.(string)
	if !ok {
		return "", &param.FieldError{Field: field, Problem: "must be a trait code string, got " + param.Describe(raw), Expected: l.Expected()}
	}
	return traitCode(field, s, suggest)
}}

// TraitCode resolves a trait code or a breeder's word for one through the
// glossary; an unknown one is an error naming the code it likely means or,
// failing that, the nearest by spelling.
func TraitCode(field, s string) (string, *param.FieldError) { return traitCode(field, s, true) }

// glossaryTraitArg is a trait of the glossary: weights, which need its
// direction.
var glossaryTraitArg = TraitArg{Expect: "one of " + strings.Join(nsip.GlossaryCodes(), ", ") + ", or a trait's name"}

// traitCode is TraitCode, naming the nearest code only when suggest is set.
func traitCode(field, s string, suggest bool) (string, *param.FieldError) {
	code, near, fe := glossaryTraitArg.Read(field, s, suggest)
	if near != "" {
		fe.Expected = near
	}
	return code, fe
}

// Weights are the items of a breeding objective: an object of trait
// codes of the glossary to weights.
var Weights param.Items = weights{}

type weights struct{}

func (weights) Keyed() bool { return true }

func (weights) Expected(l *param.List) string {
	return fmt.Sprintf("object of 1..%d trait codes to numbers, e.g. %s; codes from the trait glossary (%s)",
		l.MaxItems, param.JSONText(l.Example), strings.Join(nsip.GlossaryCodes(), " "))
}

func (weights) Validate(l *param.List, raw any) (any, []param.FieldError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, []param.FieldError{{Field: l.Name, Problem: "must be an object, got " + param.Describe(raw), Expected: l.Expected()}}
	}
	out, errs := validateWeights(l, obj)
	if errs != nil {
		return nil, errs
	}
	return out, nil
}

// ValidateWeights checks weights already held as numbers (a form's
// answers) as the weights argument l is checked.
func ValidateWeights(l *param.List, w map[string]float64) (map[string]float64, []param.FieldError) {
	return validateWeights(l, w)
}

// validateWeights checks and normalises a weights object: 1..MaxItems
// trait codes, each to a finite number other than 0, no code twice.
func validateWeights[V any](l *param.List, obj map[string]V) (map[string]float64, []param.FieldError) {
	if len(obj) == 0 || len(obj) > l.MaxItems {
		return nil, []param.FieldError{{Field: l.Name, Problem: fmt.Sprintf("has %d traits; give 1..%d", len(obj), l.MaxItems), Expected: l.Expected()}}
	}
	out := map[string]float64{}
	var errs param.Problems
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f := l.Name + "." + param.FieldName(k)
		code, fe := traitCode(f, k, !errs.Full())
		if fe != nil {
			errs.Add(*fe)
			continue
		}
		w, ok := param.AsNumber(obj[k])
		if !ok || math.IsNaN(w) || math.IsInf(w, 0) {
			errs.Add(param.FieldError{Field: f, Problem: "must be a number, got " + param.Describe(obj[k]), Expected: l.Expected()})
			continue
		}
		if w == 0 {
			// It adds nothing to the index, yet an animal without the EBV
			// would have no index at all.
			errs.Add(param.FieldError{Field: f, Problem: "has a weight of 0, which would leave out every animal without a " + code + " EBV; leave " + code + " out of weights to ignore it", Expected: l.Expected()})
			continue
		}
		if _, dup := out[code]; dup {
			errs.Add(param.FieldError{Field: f, Problem: "trait " + code + " is weighted more than once", Expected: l.Expected()})
			continue
		}
		out[code] = w
	}
	if errs.Count() > 0 {
		return nil, errs.Errs()
	}
	return out, nil
}
