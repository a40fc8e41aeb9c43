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

// lineageDef is nsip_get_lineage: an animal's pedigree.
var lineageDef = lookup(&toolDef{
	name: toolname.GetLineage, title: "NSIP pedigree", method: "get_lineage",
	kind:    summarize.KindLineage,
	subject: "lpn_id", what: "pedigree for LPN ID", next: "check the LPN ID, or find animals with " + toolname.SearchAnimals,
	desc: `An animal's pedigree, each ancestor with LPN ID, farm, birth date, sex, status and indexes (about 85 tokens each); ` +
		`summaries keep the nearest generations, counting the rest. Arguments: lpn_id; max_tokens.`,
	fields: param.Table{reflect.TypeFor[lpnArgs](): param.Fields{"LPNID": param.LPNParam("")}},
	fetch: fetchWith(func(ctx context.Context, up Upstream, a lpnArgs) (*nsip.Lineage, error) {
		return up.Lineage(ctx, a.LPNID)
	}, func(v *nsip.Lineage) json.RawMessage { return v.Raw }),
})

// lpnArgs is nsip_get_lineage's.
type lpnArgs struct {
	LPNID string `json:"lpn_id"`
	viewBudget
}
