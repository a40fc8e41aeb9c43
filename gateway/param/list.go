package param

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// List is an array of LPN IDs, an array of trait codes, or a map of
// trait code to weight.
type List struct {
	Name, Desc         string
	Required           bool
	MinItems, MaxItems int
	Item               string // "lpn" or "trait"; "" for a weights map
	Example            any
	// Unless names an argument that stands in for this one: when it is
	// sent, a Required list is not (nor is it in the schema's required).
	Unless string
}

// requiredIn reports whether the list is required of a call that sent sent.
func (l *List) requiredIn(sent Sent) bool {
	return l.Required && (l.Unless == "" || !sent.Has(l.Unless))
}

// Schema is the list's shape only: its bounds, patterns and uniqueness are
// in the tool's description and enforced by validate, and would cost every
// conversation tokens a second time in tools/list.
func (l *List) Schema() *Schema {
	if l.Item == "" {
		return &Schema{Description: l.Desc, Type: Types{Object}, AdditionalProperties: AdditionalOf(Type(Number))}
	}
	return &Schema{Description: l.Desc, Type: Types{Array}, Items: Type(String)}
}

func (l *List) Expected() string {
	switch l.Item {
	case "":
		return fmt.Sprintf("object of 1..%d trait codes to numbers, e.g. %s; codes from the trait glossary (%s)",
			l.MaxItems, JSONText(l.Example), strings.Join(nsip.GlossaryCodes(), " "))
	case "lpn":
		return fmt.Sprintf("array of %d..%d distinct LPN IDs, e.g. %s", l.MinItems, l.MaxItems, JSONText(l.Example))
	}
	return fmt.Sprintf("array of 1..%d trait codes, e.g. %s", l.MaxItems, JSONText(l.Example))
}

// Validate checks one list argument and returns it normalised: LPN IDs and
// trait codes upper case, weights as map[string]float64.
func (l *List) Validate(raw any) (any, []FieldError) {
	fail := func(field, problem string) (any, []FieldError) {
		return nil, []FieldError{{Field: field, Problem: problem, Expected: l.Expected()}}
	}
	if l.Item == "" {
		obj, ok := raw.(map[string]any)
		if !ok {
			return fail(l.Name, "must be an object, got "+Describe(raw))
		}
		out, errs := validateWeights(l, obj)
		if errs != nil {
			return nil, errs
		}
		return out, nil
	}
	arr, ok := raw.([]any)
	if !ok {
		return fail(l.Name, "must be an array, got "+Describe(raw))
	}
	if len(arr) < l.MinItems || len(arr) > l.MaxItems {
		return fail(l.Name, fmt.Sprintf("has %d items; give %d..%d", len(arr), l.MinItems, l.MaxItems))
	}
	out := make([]string, 0, len(arr))
	var errs problems
	lp := LPNParam("")
	for i, v := range arr {
		f := fmt.Sprintf("%s[%d]", l.Name, i)
		var s string
		if l.Item == "lpn" {
			nv, ok := lp.validate(&errs, f, v)
			if !ok {
				continue
			}
			s = strings.ToUpper(nv.(string))
		} else {
			str, ok := v.(string)
			if !ok {
				errs.add(FieldError{Field: f, Problem: "must be a trait code string, got " + Describe(v), Expected: l.Expected()})
				continue
			}
			code, fe := traitCode(f, str, !errs.full())
			if fe != nil {
				errs.add(*fe)
				continue
			}
			s = code
		}
		if slices.Contains(out, s) {
			errs.add(FieldError{Field: f, Problem: s + " is listed twice", Expected: l.Expected()})
			continue
		}
		out = append(out, s)
	}
	if errs.count() > 0 {
		return nil, errs.errs()
	}
	return out, nil
}

// TraitCode resolves a trait code or a breeder's word for one through the
// glossary; an unknown one is an error naming the code it likely means or,
// failing that, the nearest by spelling.
func TraitCode(field, s string) (string, *FieldError) { return traitCode(field, s, true) }

// glossaryTraitArg is a trait of the glossary: weights, which need its
// direction.
var glossaryTraitArg = TraitArg{Expect: "one of " + strings.Join(nsip.GlossaryCodes(), ", ") + ", or a trait's name"}

// traitCode is TraitCode, naming the nearest code only when suggest is set.
func traitCode(field, s string, suggest bool) (string, *FieldError) {
	code, near, fe := glossaryTraitArg.Read(field, s, suggest)
	if near != "" {
		fe.Expected = near
	}
	return code, fe
}

// ValidateWeights checks weights already held as numbers (a form's
// answers) as Validate checks the weights argument, l being a weights
// List.
func (l *List) ValidateWeights(w map[string]float64) (map[string]float64, []FieldError) {
	return validateWeights(l, w)
}

// validateWeights checks and normalises a weights object: 1..MaxItems
// trait codes, each to a finite number other than 0, no code twice.
func validateWeights[V any](l *List, obj map[string]V) (map[string]float64, []FieldError) {
	if len(obj) == 0 || len(obj) > l.MaxItems {
		return nil, []FieldError{{Field: l.Name, Problem: fmt.Sprintf("has %d traits; give 1..%d", len(obj), l.MaxItems), Expected: l.Expected()}}
	}
	out := map[string]float64{}
	var errs problems
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f := l.Name + "." + FieldName(k)
		code, fe := traitCode(f, k, !errs.full())
		if fe != nil {
			errs.add(*fe)
			continue
		}
		w, ok := asNumber(obj[k])
		if !ok || math.IsNaN(w) || math.IsInf(w, 0) {
			errs.add(FieldError{Field: f, Problem: "must be a number, got " + Describe(obj[k]), Expected: l.Expected()})
			continue
		}
		if w == 0 {
			// It adds nothing to the index, yet an animal without the EBV
			// would have no index at all.
			errs.add(FieldError{Field: f, Problem: "has a weight of 0, which would leave out every animal without a " + code + " EBV; leave " + code + " out of weights to ignore it", Expected: l.Expected()})
			continue
		}
		if _, dup := out[code]; dup {
			errs.add(FieldError{Field: f, Problem: "trait " + code + " is weighted more than once", Expected: l.Expected()})
			continue
		}
		out[code] = w
	}
	if errs.count() > 0 {
		return nil, errs.errs()
	}
	return out, nil
}
