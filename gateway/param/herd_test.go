package param

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// herd is a nested argument struct for the generic tests: a search's
// criteria in small (gateway/nsiparg holds NSIP's own), with an enum,
// a pattern read in upper case, a birth window checked across its fields,
// a count and trait ranges.
type herd struct {
	Gender      string                `json:"gender,omitempty"`
	Status      string                `json:"status,omitempty"`
	BornAfter   string                `json:"born_after,omitempty"`
	BornBefore  string                `json:"born_before,omitempty"`
	Head        int                   `json:"head,omitempty"`
	TraitRanges map[string]nsip.Range `json:"trait_ranges,omitempty"`
}

var herdTable = Of(func(h *herd) Described {
	return Described{
		&h.BornAfter:   {Example: "2022-01-01", Date: true, MaxLen: 10, Quiet: true},
		&h.BornBefore:  {Example: "2024-12-31", Date: true, MaxLen: 10, Quiet: true},
		&h.Gender:      {Example: "Female", Enum: []string{"Male", "Female"}},
		&h.Head:        {Example: 40, Desc: "How many.", Min: Bound(1), Max: Bound(9999)},
		&h.Status:      {Example: "CURRENT", MaxLen: 20, Pattern: StatusPattern, Upper: true, Quiet: true},
		&h.TraitRanges: {Custom: readRanges, Example: map[string]any{"WWT": map[string]any{"min": 1.0}}, Desc: "Bounds per trait."},
	}
})

// herdArg is what a search_criteria field of herd says beyond its fields.
var herdArg = Spec{
	Example:  herd{Gender: "Female", BornAfter: "2022-01-01"},
	DropZero: true,
	Check: func(c Valid) (string, string, bool) {
		after, _ := c.String("born_after")
		before, _ := c.String("born_before")
		if after != "" && before != "" && before < after {
			return "born_before", fmt.Sprintf("ends at %s, before its start at %s", before, after), false
		}
		return "", "", true
	},
}

// herdCriteria is search_criteria of herd, as a Spec of its own.
var herdCriteria = func() Spec {
	type holder struct {
		Criteria *herd `json:"search_criteria,omitempty"`
	}
	return MustStruct[holder](Table{
		reflect.TypeFor[holder](): {"Criteria": herdArg},
		reflect.TypeFor[herd]():   herdTable[reflect.TypeFor[herd]()],
	}).Specs[0]
}()

// readRanges reads trait ranges in small: codes as readCode reads them,
// each to an object of numbers.
func readRanges(field string, raw any) (any, []FieldError) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, []FieldError{{Field: field, Problem: "must be an object, got " + Describe(raw)}}
	}
	var pr Problems
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f := field + "." + FieldName(k)
		code, fe := readCode(f, k, !pr.Full())
		r, isObject := obj[k].(map[string]any)
		switch {
		case fe != nil:
			pr.Add(*fe)
		case !isObject:
			pr.Add(FieldError{Field: f, Problem: "must be an object, got " + Describe(obj[k])})
		default:
			out[code] = pr.Object(f+".", rangeBounds, SentOf(r)).Members()
		}
	}
	if pr.Count() > 0 {
		return nil, pr.Errs()
	}
	return out, nil
}

var rangeBounds = []Spec{{Name: "min", Kind: Number, Example: -1.0}, {Name: "max", Kind: Number, Example: 1.0}}

// sortedTrait is a trait read from a code or a breeder's word.
var sortedTrait = Spec{Name: "sorted_trait", Kind: String, Example: "WWT", Quiet: true, Expect: "a trait code, or its name",
	Custom: func(field string, raw any) (any, []FieldError) {
		code, fe := readCode(field, raw, true)
		if fe != nil {
			return nil, []FieldError{*fe}
		}
		return code, nil
	}}
