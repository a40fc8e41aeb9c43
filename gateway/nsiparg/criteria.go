// Package nsiparg is NSIP's rules for tool arguments, written in param's
// terms and kept apart from param's generic ones (schema, validation,
// did-you-mean): LPN IDs, one or a list (LPN, LPNs); trait codes, given
// as codes or as a breeder's words (TraitArg, Traits), their ranges
// (TraitRanges) and weights (Weights); and NSIP's search: the criteria
// that nsip_search_animals, the rankings, the group summaries and the
// breed passes share, the trait a search is sorted by, and a breed's ID.
package nsiparg

import (
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// SortedTrait is nsip_search_animals's sorted_trait: a code, or a
// breeder's word for one ("weaning weight" is WWT).
var SortedTrait = param.Spec{Name: "sorted_trait", Kind: param.String, Example: "WWT", Quiet: true,
	Expect: sortedExpect, Suggest: glossaryTrait,
	Custom: func(field string, raw any) (any, []param.FieldError) {
		code, _, fe := TraitArg{AnyCode: true, Expect: sortedExpect}.Read(field, raw, true)
		if fe != nil {
			return nil, []param.FieldError{*fe}
		}
		return code, nil
	}}

const sortedExpect = "a trait code such as WWT, or its name, e.g. \"weaning weight\""

// glossaryTrait is a Suggest naming the glossary's code that s stands for.
func glossaryTrait(s string) (string, string) { return DidYouMeanTrait(s, nsip.GlossaryCodes()) }

// Criteria is search_criteria: nsip.SearchCriteria under the tools' names,
// field for field, so that the one converts to the other.
type Criteria struct {
	BreedGroupID int                   `json:"breed_group_id,omitempty"`
	BreedID      int                   `json:"breed_id,omitempty"`
	BornAfter    string                `json:"born_after,omitempty"`
	BornBefore   string                `json:"born_before,omitempty"`
	Gender       string                `json:"gender,omitempty"`
	ProvenOnly   bool                  `json:"proven_only,omitempty"`
	Status       string                `json:"status,omitempty"`
	FlockID      string                `json:"flock_id,omitempty"`
	TraitRanges  map[string]nsip.Range `json:"trait_ranges,omitempty"`
}

// Empty reports whether c asks for nothing.
func (c Criteria) Empty() bool {
	return c.BreedGroupID == 0 && c.BreedID == 0 && c.BornAfter == "" && c.BornBefore == "" && c.Gender == "" &&
		!c.ProvenOnly && c.Status == "" && c.FlockID == "" && len(c.TraitRanges) == 0
}

// CriteriaTable describes Criteria's fields.
var CriteriaTable = param.Of(func(c *Criteria) param.Described {
	return param.Described{
		&c.BreedGroupID: {Example: 64, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true},
		&c.BreedID:      {Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true, Complete: param.Breeds},
		&c.BornAfter:    {Example: "2022-01-01", Date: true, MaxLen: 10, Quiet: true},
		&c.BornBefore:   {Example: "2024-12-31", Date: true, MaxLen: 10, Quiet: true},
		&c.Gender:       {Example: "Female", Enum: []string{"Male", "Female", "Both"}},
		&c.ProvenOnly:   {Example: true, Desc: "Progeny-proven EBVs only.", OmitFalse: true},
		&c.Status:       {Example: "CURRENT", MaxLen: nsip.MaxCriteriaLength, Pattern: param.StatusPattern, Upper: true, Quiet: true},
		&c.FlockID:      {Example: "640238", MaxLen: nsip.MaxCriteriaLength, Pattern: param.AlnumPattern, Quiet: true},
		&c.TraitRanges:  TraitRanges,
	}
})

// CriteriaArg is what a search_criteria field of Criteria says beyond its
// fields: an argument struct describes its field with it.
var CriteriaArg = param.Spec{
	Example:  Criteria{Gender: "Female", BornAfter: "2022-01-01"},
	Check:    criteriaRules,
	DropZero: true,
}

// SearchCriteria is nsip_search_animals's search_criteria, as the analyses
// that take criteria take it.
var SearchCriteria = func() param.Spec {
	type holder struct {
		Criteria *Criteria `json:"search_criteria,omitempty"`
	}
	return param.MustStruct[holder](param.Tables(CriteriaTable,
		param.Of(func(h *holder) param.Described { return param.Described{&h.Criteria: CriteriaArg} }))).Specs[0]
}()

// criteriaRules applies the rules that span fields: a birth window must not
// end before it starts.
func criteriaRules(c param.Valid) (string, string, bool) {
	after, _ := c.String("born_after")
	before, _ := c.String("born_before")
	if after != "" && before != "" && after > before { // YYYY-MM-DD sorts as text
		return "born_after", fmt.Sprintf("born_after %s is later than born_before %s", after, before), false
	}
	return "", "", true
}

// BreedID is a required breed_id, as nsip_list_breeds numbers breeds.
var BreedID = param.Spec{
	Name: "breed_id", Kind: param.Integer, Required: true, Example: 640, Complete: param.Breeds,
	Min: param.Bound(1), Max: param.Bound(99999),
}
