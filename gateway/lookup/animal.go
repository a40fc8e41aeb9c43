package lookup

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
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
			`search_string: LPN ID or registration number; percentiles: true adds each EBV's top_percent in its breed (up to ` + strconv.Itoa(PercentileLookups) + ` more lookups).`,
	},
	Percentiles: true,
	run:         runAnimal,
	fields: param.Of(func(a *DetailsArgs) param.Described {
		return param.Described{
			&a.SearchString: {
				Example: nsiparg.ExampleLPN, Complete: param.LPNs,
				// Upper case, as LPN IDs (and registration numbers) are written.
				MinLen: 2, MaxLen: nsip.MaxSearchStringLength, Pattern: param.SearchPattern, Upper: true,
			},
			&a.Percentiles: {Example: true},
		}
	}),
	fetch: fetchWith(func(ctx context.Context, up Upstream, a DetailsArgs) (*nsip.AnimalDetails, error) {
		return up.AnimalDetails(ctx, a.SearchString)
	}, func(v *nsip.AnimalDetails) json.RawMessage { return v.Raw }),
})

// runAnimal is the record as NSIP sent it; with percentiles it is no
// single read: each EBV's breed percentile takes NSIP's sorted pages of
// the breed, which the tool's analysis reads (Source.Analyze), its reads
// counted against a ceiling and its answer fitted like a lookup's.
func runAnimal(ctx context.Context, d *Def, c toolcall.Call, src Source) toolcall.Outcome {
	if c.Args.Bool(d.Args.Name("Percentiles")) {
		return src.Analyze(ctx, c)
	}
	return src.Pass(ctx, d.Read(c.Args), c)
}

// PercentileLookups is how many lookups percentiles may add to a call, as
// the description promises: the percentile analysis's own ceiling, which
// the gateway's tests hold equal to it.
const PercentileLookups = 150

// DetailsArgs is nsip_get_animal's.
type DetailsArgs struct {
	SearchString string `json:"search_string"`
	// Percentiles false asks for the record as it is; true makes the call
	// the tool's analysis (runAnimal), which never reaches the fetch.
	Percentiles bool `json:"percentiles,omitempty"`
	param.Budget
}
