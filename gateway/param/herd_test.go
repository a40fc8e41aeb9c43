package param

import (
	"fmt"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// herd is a nested argument struct for the generic tests: a search's
// criteria in small (gateway/searcharg holds NSIP's own), with an enum,
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
		&h.TraitRanges: {TraitMap: true, Example: map[string]any{"WWT": map[string]any{"min": 1.0}}, Desc: "Bounds per trait."},
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

// sortedExpect is what sortedTrait expects.
const sortedExpect = "a trait code, or its name"

// sortedTrait is a trait read from a code or a breeder's word.
var sortedTrait = Spec{Name: "sorted_trait", Kind: String, Example: "WWT", Quiet: true, Expect: sortedExpect,
	Custom: func(field string, raw any) (any, []FieldError) {
		code, _, fe := TraitArg{AnyCode: true, Expect: sortedExpect}.Read(field, raw, true)
		if fe != nil {
			return nil, []FieldError{*fe}
		}
		return code, nil
	}}
