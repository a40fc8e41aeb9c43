package gateway

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// animalDef is nsip_get_animal: one animal's record.
var animalDef = lookup(&toolDef{
	name: toolname.GetAnimal, title: "NSIP animal details", method: "get_animal_details",
	kind:        summarize.KindAnimal,
	percentiles: true,
	subject:     "search_string", what: "animal matching", next: "check the ID, or find animals and their LPN IDs with " + toolname.SearchAnimals,
	desc: `One animal's record: breed, birth date, gender, status, parents, progeny count, EBVs with accuracy as NSIP sends it (0.80 = 80%; MWWT may have none), indexes, breeder's contact (about 450 tokens). ` +
		`Arguments: search_string (LPN ID or registration number); percentiles: true adds each EBV's top_percent in its breed (up to ` + strconv.Itoa(analysis.PercentileLookups) + ` more lookups); max_tokens.`,
	fields: param.Table{reflect.TypeFor[detailsArgs](): param.Fields{
		"SearchString": {
			Example: param.ExampleLPN, Complete: param.LPNs,
			// Upper case, as LPN IDs (and registration numbers) are written.
			MinLen: 2, MaxLen: nsip.MaxSearchStringLength, Pattern: param.SearchPattern, Upper: true,
		},
		"Percentiles": {Example: true},
	}},
	fetch: fetchWith(func(ctx context.Context, up Upstream, a detailsArgs) (*nsip.AnimalDetails, error) {
		return up.AnimalDetails(ctx, a.SearchString)
	}, func(v *nsip.AnimalDetails) json.RawMessage { return v.Raw }),
})

// detailsArgs is nsip_get_animal's.
type detailsArgs struct {
	SearchString string `json:"search_string"`
	// Percentiles false asks for the record as it is; true makes the call
	// the percentile analysis (animalpct.go), which never reaches the fetch.
	Percentiles bool `json:"percentiles,omitempty"`
	viewBudget
}
