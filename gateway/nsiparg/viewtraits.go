package nsiparg

import (
	"fmt"
	"slices"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// ViewTraits describes the traits a view shows (a lookup's traits): trait
// codes or breeders' words, read as codes.
var ViewTraits = param.Spec{
	Example: []any{"WWT", "NLB"},
	Expect:  traitsExpect,
	Custom:  validateTraits,
}

// validateTraits checks a traits argument, a list of trait codes or
// names, giving codes in upper case without repeats.
func validateTraits(field string, raw any) (any, []param.FieldError) {
	expect := traitsExpect
	list, ok := raw.([]any)
	if !ok {
		return nil, []param.FieldError{{Field: field, Problem: "must be an array of trait codes, got " + param.Describe(raw), Expected: expect}}
	}
	if len(list) == 0 || len(list) > maxTraits {
		return nil, []param.FieldError{{Field: field, Problem: fmt.Sprintf("names %d traits; give 1 to %d", len(list), maxTraits), Expected: expect}}
	}
	var out []string
	var errs param.Problems
	for i, v := range list {
		f := fmt.Sprintf("%s[%d]", field, i)
		code, _, fe := TraitArg{AnyCode: true, Expect: expect}.Read(f, v, !errs.Full())
		if fe != nil {
			errs.Add(*fe)
			continue
		}
		if !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	if errs.Count() > 0 {
		return nil, errs.Errs()
	}
	anys := make([]any, len(out))
	for i, c := range out {
		anys[i] = c
	}
	return anys, nil
}

// maxTraits is the most trait codes one traits argument may list.
const maxTraits = 30

// traitsExpect says what a traits argument accepts.
const traitsExpect = "array of trait codes or names, e.g. [\"WWT\",\"number of lambs born\"]"
