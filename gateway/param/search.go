package param

import (
	"fmt"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The search arguments are shared: nsip_search_animals takes them, and the
// ranking analysis takes its criteria and sorts by its trait.

// SortedTrait is nsip_search_animals's sorted_trait.
var SortedTrait = Spec{Name: "sorted_trait", Kind: String, Example: "WWT", MaxLen: nsip.MaxTraitCodeLength, Pattern: TraitCodePattern, Upper: true, Quiet: true}

// SearchCriteria is nsip_search_animals's search_criteria.
var SearchCriteria = Spec{Name: "search_criteria", Kind: Object, DropZero: true,
	Example: map[string]any{"gender": "Female", "born_after": "2022-01-01"},
	Check:   criteriaRules,
	Props: []Spec{
		{Name: "breed_group_id", Kind: Integer, Example: 64, Min: Bound(1), Max: Bound(99999), Quiet: true},
		{Name: "breed_id", Kind: Integer, Example: 640, Min: Bound(1), Max: Bound(99999), Quiet: true},
		{Name: "born_after", Kind: String, Example: "2022-01-01", Date: true, MaxLen: 10, Quiet: true},
		{Name: "born_before", Kind: String, Example: "2024-12-31", Date: true, MaxLen: 10, Quiet: true},
		{Name: "gender", Kind: String, Example: "Female", Enum: []string{"Male", "Female", "Both"}},
		{Name: "proven_only", Kind: Boolean, Example: true,
			Desc: "Progeny-proven EBVs only."},
		{Name: "status", Kind: String, Example: "CURRENT", MaxLen: nsip.MaxCriteriaLength, Pattern: StatusPattern, Upper: true, Quiet: true},
		{Name: "flock_id", Kind: String, Example: "640238", MaxLen: nsip.MaxCriteriaLength, Pattern: AlnumPattern, Quiet: true},
		{Name: "trait_ranges", Kind: Object, TraitMap: true,
			Example: map[string]any{"WWT": map[string]any{"min": 1.0, "max": 5.0}},
			Desc:    "Bounds per trait code, min and/or max, e.g. {\"WWT\":{\"min\":1}}."},
	},
}

// criteriaRules applies the rules that span fields: a birth window must not
// end before it starts. It also drops proven_only=false, which filters nothing,
// so that sending it and leaving it out share a cache key.
func criteriaRules(c map[string]any) (string, string, bool) {
	if c["proven_only"] == false {
		delete(c, "proven_only")
	}
	after, _ := c["born_after"].(string)
	before, _ := c["born_before"].(string)
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
