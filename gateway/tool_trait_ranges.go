package gateway

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// traitRangesDef is nsip_get_trait_ranges: a breed's range of each trait.
var traitRangesDef = lookup(&toolDef{
	name: toolname.GetTraitRanges, title: "NSIP trait ranges for a breed", method: "get_trait_ranges_by_breed",
	kind:    summarize.KindGeneric,
	subject: "breed_id", what: "trait ranges for breed", next: "list valid breed IDs with " + toolname.ListBreeds,
	desc: `Min and max EBV of each trait a breed has, e.g. {"BWT":{"min":-0.71,"max":0.93}}: the codes to sort and filter it by. ` +
		`Too few evaluated animals: no_data. Arguments: breed_id (from ` + toolname.ListBreeds + `); max_tokens.`,
	fields: param.Table{reflect.TypeFor[breedArgs](): param.Fields{"BreedID": param.BreedID}},
	fetch: fetchWith(func(ctx context.Context, up Upstream, a breedArgs) (*nsip.TraitRanges, error) {
		return up.TraitRanges(ctx, a.BreedID)
	}, func(v *nsip.TraitRanges) json.RawMessage { return v.Raw }),
})

// breedArgs is nsip_get_trait_ranges's.
type breedArgs struct {
	BreedID int `json:"breed_id"`
	viewBudget
}
