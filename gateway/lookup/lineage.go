package lookup

import (
	"context"
	"encoding/json"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Lineage is nsip_get_lineage: an animal's pedigree.
var Lineage = define(&Def{
	Def: tooldef.Def{
		Name: toolname.GetLineage, Title: "NSIP pedigree", Method: "get_lineage",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindLineage,
		Subject: "lpn_id", What: "pedigree for LPN ID", Next: "check the LPN ID, or find animals with " + toolname.SearchAnimals,
		Desc: `An animal's pedigree, each ancestor with LPN ID, farm, birth date, sex, status and indexes (about 85 tokens each); ` +
			`summaries keep the nearest generations, counting the rest. Argument: lpn_id.`,
	},
	fields: param.Of(func(a *LPNArgs) param.Described {
		return param.Described{&a.LPNID: nsiparg.LPN("")}
	}),
	fetch: fetchWith(func(ctx context.Context, up Upstream, a LPNArgs) (*nsip.Lineage, error) {
		return up.Lineage(ctx, a.LPNID)
	}, func(v *nsip.Lineage) json.RawMessage { return v.Raw }),
})

// LPNArgs is nsip_get_lineage's.
type LPNArgs struct {
	LPNID string `json:"lpn_id"`
	param.Budget
}
