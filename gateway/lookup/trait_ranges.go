package lookup

import (
	"context"
	"encoding/json"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// TraitRanges is nsip_get_trait_ranges: a breed's range of each trait.
var TraitRanges = define(&Def{
	Def: tooldef.Def{
		Name: toolname.GetTraitRanges, Title: "NSIP trait ranges for a breed", Method: "get_trait_ranges_by_breed",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindGeneric,
		Subject: "breed_id", What: "trait ranges for breed", Next: "list valid breed IDs with " + toolname.ListBreeds,
		Desc: `Min and max EBV of each trait a breed has, e.g. {"BWT":{"min":-0.71,"max":0.93}}: the codes to sort and filter it by. ` +
			`Too few evaluated animals: no_data. breed_id from ` + toolname.ListBreeds + `.`,
	},
	run: runTraitRanges,
	fields: param.Of(func(a *BreedArgs) param.Described {
		return param.Described{&a.BreedID: nsiparg.BreedID}
	}),
	fetch: fetchWith(func(ctx context.Context, up Upstream, a BreedArgs) (*nsip.TraitRanges, error) {
		return up.TraitRanges(ctx, a.BreedID)
	}, func(v *nsip.TraitRanges) json.RawMessage { return v.Raw }),
})

// BreedArgs is nsip_get_trait_ranges's.
type BreedArgs struct {
	BreedID int `json:"breed_id"`
	param.Budget
}

// runTraitRanges is the breed's ranges as NSIP sent them. NSIP answers a
// breed it has no ranges for as not found: when its list lacks the breed
// altogether, the error says so and names the breeds there are.
func runTraitRanges(ctx context.Context, d *Def, c toolcall.Call, src Source) toolcall.Outcome {
	o := src.Pass(ctx, d.Read(c.Args), c)
	if o.Err == nil || o.Err.Code != toolerr.CodeNotFound {
		return o
	}
	if b, ok := c.Args.Int(d.Subject); ok {
		if te := src.UnknownBreed(ctx, d.Subject, b, param.Example(d.Args.Specs, c.Sent)); te != nil {
			o.Err = te
		}
	}
	return o
}
