package gateway

import (
	"context"
	"fmt"
	"strings"

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

// unknownBreed refuses breed, which NSIP's breed list does not have, as
// field of the call; example, a correct call built from what was sent,
// takes a breed NSIP has at path. It is nil when the breed is on the list
// or the list cannot be had (NSIP failing): the answer then stands.
func (g *Gateway) unknownBreed(ctx context.Context, field string, breed int, example map[string]any) *toolError {
	v, ok := g.cachedModel(ctx, listBreedsDef)
	bg, _ := v.(*nsip.BreedGroups)
	if !ok || bg == nil {
		return nil
	}
	var breeds []string
	fix := 0
	for _, grp := range bg.Groups {
		for _, b := range grp.Breeds {
			if b.ID == breed {
				return nil
			}
			breeds = append(breeds, fmt.Sprintf("%d %s", b.ID, b.Name))
			if fix == 0 || b.ID == param.BreedID.Example {
				fix = b.ID
			}
		}
	}
	if len(breeds) == 0 {
		return nil // an empty list proves nothing
	}
	if example != nil {
		setPath(example, field, fix)
	}
	return &toolError{
		Code:     CodeNotFound,
		Field:    field,
		Value:    breed,
		Problem:  fmt.Sprintf("NSIP has no breed %d", breed),
		Expected: "a breed ID NSIP has: " + strings.Join(breeds, ", "),
		Example:  example,
		Next:     "call again with one of NSIP's breed IDs; " + toolname.ListBreeds + " lists them with their groups",
	}
}

// setPath sets the member a dotted field path names (search_criteria.breed_id),
// creating the objects on the way.
func setPath(m map[string]any, path string, v any) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		m[head] = v
		return
	}
	inner, ok := m[head].(map[string]any)
	if !ok {
		inner = map[string]any{}
		m[head] = inner
	}
	setPath(inner, rest, v)
}

// searchedBreed is the breed a search asked for and the field that gave it.
func searchedBreed(args map[string]any) (string, int) {
	if b, ok := args[argSearchBreed].(int); ok && b != 0 {
		return argSearchBreed, b
	}
	crit, _ := args[argCriteria].(map[string]any)
	if b, ok := crit[argCriteriaBreed].(int); ok && b != 0 {
		return argCriteria + "." + argCriteriaBreed, b
	}
	return "", 0
}

// checkEmptySearch refuses a search that found nothing because NSIP has no
// breed it asked for.
func (g *Gateway) checkEmptySearch(ctx context.Context, d *toolDef, sent, args map[string]any, o outcome) *toolError {
	res, ok := o.value.(*nsip.SearchResults)
	if d != searchAnimalsDef || o.err != nil || !ok || res.TotalCount != 0 || len(res.Results) != 0 {
		return nil
	}
	field, breed := searchedBreed(args)
	if breed == 0 {
		return nil
	}
	return g.unknownBreed(ctx, field, breed, param.Example(d.args.Specs, sent))
}
