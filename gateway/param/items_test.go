package param

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// param knows no LPN ID nor trait code (gateway/nsiparg holds NSIP's
// rules), so its tests give their lists items of their own, in small:
// IDs of letters and digits, trait codes read through nsip's glossary,
// and weights of those codes.

// ExampleLPN is an ID the tests send.
const ExampleLPN = "6402382024NCS310"

// LPNParam is an lpn_id argument as the tests take one.
func LPNParam(desc string) Spec {
	return Spec{Name: "lpn_id", Kind: String, Required: true, Desc: desc, Example: ExampleLPN,
		MinLen: nsip.MinLPNIDLength, MaxLen: nsip.MaxLPNIDLength, Pattern: AlnumPattern, Upper: true}
}

var anID = LPNParam("")

// lpnItems are IDs read as lpn_id is.
var lpnItems = Strings{Noun: "distinct LPN IDs", Read: func(_ *List, field string, raw any, _ bool) (string, *FieldError) {
	v, errs := anID.Validate(field, raw)
	if errs != nil {
		return "", &errs[0]
	}
	return v.(string), nil
}}

// readCode reads a trait code or a trait's name; an unknown one is refused
// with the nearest code when suggest is set.
func readCode(field string, raw any, suggest bool) (string, *FieldError) {
	s, ok := raw.(string)
	if !ok {
		return "", &FieldError{Field: field, Problem: "must be a trait code string, got " + Describe(raw)}
	}
	code, cands := nsip.ReadTrait(strings.TrimSpace(s))
	switch {
	case code != "":
		return code, nil
	case len(cands) > 1:
		return "", &FieldError{Field: field, Problem: fmt.Sprintf("%s could mean any of %d traits: %s", QuoteShort(s), len(cands), strings.Join(cands, ", "))}
	}
	fe := &FieldError{Field: field, Problem: QuoteShort(s) + " is not a known trait code or name"}
	if c, ok := Closest(s, nsip.GlossaryCodes()); suggest && ok {
		fe.Problem += fmt.Sprintf("; did you mean %q?", c)
	}
	return "", fe
}

// traitItems are trait codes.
var traitItems = Strings{Noun: "trait codes", Read: func(_ *List, field string, raw any, suggest bool) (string, *FieldError) {
	return readCode(field, raw, suggest)
}}

// weightItems are trait codes to numbers.
var weightItems Items = testWeights{}

type testWeights struct{}

func (testWeights) Keyed() bool { return true }

func (testWeights) Expected(l *List) string {
	return fmt.Sprintf("object of 1..%d trait codes to numbers, e.g. %s", l.MaxItems, JSONText(l.Example))
}

func (testWeights) Validate(l *List, raw any) (any, []FieldError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, []FieldError{{Field: l.Name, Problem: "must be an object, got " + Describe(raw)}}
	}
	if len(obj) == 0 || len(obj) > l.MaxItems {
		return nil, []FieldError{{Field: l.Name, Problem: fmt.Sprintf("has %d traits; give 1..%d", len(obj), l.MaxItems)}}
	}
	out := map[string]float64{}
	var pr Problems
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f := l.Name + "." + FieldName(k)
		code, fe := readCode(f, k, !pr.Full())
		w, isNumber := AsNumber(obj[k])
		switch {
		case fe != nil:
			pr.Add(*fe)
		case !isNumber:
			pr.Add(FieldError{Field: f, Problem: "must be a number, got " + Describe(obj[k])})
		default:
			out[code] = w
		}
	}
	if pr.Count() > 0 {
		return nil, pr.Errs()
	}
	return out, nil
}
