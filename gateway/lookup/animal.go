package lookup

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Animal is nsip_get_animal: one animal's record.
var Animal = define(&Def{
	Def: tooldef.Def{
		Name: toolname.GetAnimal, Title: "NSIP animal details", Method: "get_animal_details",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindAnimal,
		Subject: "search_string", What: "animal matching", Next: "check the ID, or find animals and their LPN IDs with " + toolname.SearchAnimals,
		Desc: `One animal's record: breed, birth date, gender, status, parents, progeny count, EBVs with accuracy as NSIP sends it (0.80 = 80%; MWWT may have none), indexes, breeder's contact (about 450 tokens). ` +
			`Arguments: search_string (LPN ID or registration number); percentiles: true adds each EBV's top_percent in its breed (up to ` + strconv.Itoa(percentile.Lookups) + ` more lookups); max_tokens.`,
	},
	Percentiles: true,
	fields: param.Table{reflect.TypeFor[DetailsArgs](): param.Fields{
		"SearchString": {
			Example: param.ExampleLPN, Complete: param.LPNs,
			// Upper case, as LPN IDs (and registration numbers) are written.
			MinLen: 2, MaxLen: nsip.MaxSearchStringLength, Pattern: param.SearchPattern, Upper: true,
		},
		"Percentiles": {Example: true},
	}},
	fetch: fetchWith(func(ctx context.Context, up Upstream, a DetailsArgs) (*nsip.AnimalDetails, error) {
		return up.AnimalDetails(ctx, a.SearchString)
	}, func(v *nsip.AnimalDetails) json.RawMessage { return v.Raw }),
})

// DetailsArgs is nsip_get_animal's.
type DetailsArgs struct {
	SearchString string `json:"search_string"`
	// Percentiles false asks for the record as it is; true makes the call
	// the gateway's percentile analysis (animalpct.go), which never
	// reaches the fetch.
	Percentiles bool `json:"percentiles,omitempty"`
	param.Budget
}
