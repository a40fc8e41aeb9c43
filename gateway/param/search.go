package param

import (
	"fmt"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The search arguments are shared: nsip_search_animals takes them, and the
// ranking analysis takes its criteria and sorts by its trait.

// SortedTrait is nsip_search_animals's sorted_trait: a code, or a
// breeder's word for one ("weaning weight" is WWT).
var SortedTrait = Spec{Name: "sorted_trait", Kind: String, Example: "WWT", Quiet: true,
	Expect: sortedExpect, Suggest: glossaryTrait,
	Custom: func(field string, raw any) (any, []FieldError) {
		code, _, fe := TraitArg{AnyCode: true, Expect: sortedExpect}.Read(field, raw, true)
		if fe != nil {
			return nil, []FieldError{*fe}
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
var CriteriaTable = Of(func(c *Criteria) Described {
	return Described{
		&c.BreedGroupID: {Example: 64, Min: Bound(1), Max: Bound(99999), Quiet: true},
		&c.BreedID:      {Example: 640, Min: Bound(1), Max: Bound(99999), Quiet: true, Complete: Breeds},
		&c.BornAfter:    {Example: "2022-01-01", Date: true, MaxLen: 10, Quiet: true},
		&c.BornBefore:   {Example: "2024-12-31", Date: true, MaxLen: 10, Quiet: true},
		&c.Gender:       {Example: "Female", Enum: []string{"Male", "Female", "Both"}},
		&c.ProvenOnly:   {Example: true, Desc: "Progeny-proven EBVs only.", OmitFalse: true},
		&c.Status:       {Example: "CURRENT", MaxLen: nsip.MaxCriteriaLength, Pattern: StatusPattern, Upper: true, Quiet: true},
		&c.FlockID:      {Example: "640238", MaxLen: nsip.MaxCriteriaLength, Pattern: AlnumPattern, Quiet: true},
		&c.TraitRanges: {TraitMap: true,
			Example: map[string]any{"WWT": map[string]any{"min": 1.0, "max": 5.0}},
			Desc:    "Bounds per trait code, min and/or max, e.g. {\"WWT\":{\"min\":1}}."},
	}
})

// CriteriaArg is what a search_criteria field of Criteria says beyond its
// fields: an argument struct describes its field with it.
var CriteriaArg = Spec{
	Example:  Criteria{Gender: "Female", BornAfter: "2022-01-01"},
	Check:    criteriaRules,
	DropZero: true,
}

// SearchCriteria is nsip_search_animals's search_criteria, as the analyses
// that take criteria take it.
var SearchCriteria = func() Spec {
	type holder struct {
		Criteria *Criteria `json:"search_criteria,omitempty"`
	}
	return MustStruct[holder](Tables(CriteriaTable,
		Of(func(h *holder) Described { return Described{&h.Criteria: CriteriaArg} }))).Specs[0]
}()

// criteriaRules applies the rules that span fields: a birth window must not
// end before it starts.
func criteriaRules(c Valid) (string, string, bool) {
	after, _ := c.String("born_after")
	before, _ := c.String("born_before")
	if after != "" && before != "" && after > before { // YYYY-MM-DD sorts as text
		return "born_after", fmt.Sprintf("born_after %s is later than born_before %s", after, before), false
	}
	return "", "", true
}

// BreedID is a required breed_id, as nsip_list_breeds numbers breeds.
var BreedID = Spec{
	Name: "breed_id", Kind: Integer, Required: true, Example: 640, Complete: Breeds,
	Min: Bound(1), Max: Bound(99999),
}

// SuggestTrait names the code among codes that s most likely stands for:
// by meaning first, as a breeder words it ("weaning" is WWT, "worms" FEC),
// then by spelling (WWTT is WWT). byMeaning says which, so that a message
// can say what the code measures.
func SuggestTrait(s string, codes []string) (code string, byMeaning, ok bool) {
	if c, ok := nsip.TraitMeant(s, codes); ok {
		return c, true, true
	}
	// A code of the glossary that codes lack: what its name means among
	// them (a breed without YWT is offered WWT, not BWT, one letter off).
	if info, known := nsip.LookupTrait(s); known {
		if c, ok := nsip.TraitMeant(info.Name, codes); ok {
			return c, true, true
		}
	}
	c, ok := Closest(strings.TrimSpace(s), codes)
	return c, false, ok
}

// DidYouMeanTrait is the did-you-mean a message about s adds, naming what
// the code measures when the suggestion came from the meaning of s; "" when
// codes hold nothing s plausibly stands for.
func DidYouMeanTrait(s string, codes []string) (string, string) {
	c, byMeaning, ok := SuggestTrait(s, codes)
	if !ok {
		return "", ""
	}
	if name, dir, known := nsip.TraitSense(c); known && byMeaning {
		return c, fmt.Sprintf("; did you mean %q (%s, %s)?", c, name, dir)
	}
	return c, fmt.Sprintf("; did you mean %q?", c)
}
