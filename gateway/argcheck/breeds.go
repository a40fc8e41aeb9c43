package argcheck

import (
	"context"
	"fmt"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// NSIP answers a search of a breed it does not have with no animals, as
// if the breed had none that match, and trait ranges or an analysis of one
// with not found. Either way the caller's mistake is the breed ID, and the
// breeds NSIP has are one cached list away (nsip_list_breeds's answer):
// the refusal names them, and its example asks for one of them. The list
// is read only when an answer is empty or missing, so calls of breeds NSIP
// has cost no lookup more.

// Breeds checks a call's breed and trait codes against NSIP's lists.
type Breeds struct {
	// List reads NSIP's breed list (nsip_list_breeds's answer); false
	// when it cannot be had.
	List func(ctx context.Context) (*nsip.BreedGroups, bool)
	// TraitRanges reads a breed's trait ranges (nsip_get_trait_ranges's
	// answer); false when they cannot be had.
	TraitRanges func(ctx context.Context, breed int) (*nsip.TraitRanges, bool)
	// Search names the search arguments the checks read.
	Search SearchFields
}

// SearchFields are the names of the search arguments the checks read:
// the breed, the trait sorted by, and the criteria object with its breed
// and trait ranges.
type SearchFields struct {
	Breed, SortedTrait, Criteria string
	CriteriaBreed, TraitRanges   string
}

// Unknown refuses breed, which NSIP's breed list does not have, as field
// of the call; example, a correct call built from what was sent, takes a
// breed NSIP has at field (a dotted path). It is nil when the breed is on
// the list or the list cannot be had (NSIP failing): the answer then
// stands.
func (b *Breeds) Unknown(ctx context.Context, field string, breed int, example *param.Call) *Refusal {
	bg, ok := b.List(ctx)
	if !ok || bg == nil {
		return nil
	}
	var breeds []string
	fix := 0
	for _, grp := range bg.Groups {
		for _, br := range grp.Breeds {
			if br.ID == breed {
				return nil
			}
			breeds = append(breeds, fmt.Sprintf("%d %s", br.ID, br.Name))
			if fix == 0 || br.ID == nsiparg.BreedID.Example {
				fix = br.ID
			}
		}
	}
	if len(breeds) == 0 {
		return nil // an empty list proves nothing
	}
	example.Set(field, fix) // no example (nil) stays none
	return &Refusal{
		Field:    field,
		Value:    breed,
		Problem:  fmt.Sprintf("NSIP has no breed %d", breed),
		Expected: "a breed ID NSIP has: " + strings.Join(breeds, ", "),
		Example:  example,
		Next:     "call again with one of NSIP's breed IDs; " + toolname.ListBreeds + " lists them with their groups",
	}
}

// Searched is the breed a search's validated arguments ask for and the
// field (a dotted path) that gave it, or 0 when they ask for none.
func (b *Breeds) Searched(args param.Valid) (string, int) {
	f := b.Search
	if id, ok := args.Int(f.Breed); ok && id != 0 {
		return f.Breed, id
	}
	inCriteria := f.Criteria + "." + f.CriteriaBreed
	if id, ok := args.Int(inCriteria); ok && id != 0 {
		return inCriteria, id
	}
	return "", 0
}
