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

// Progeny is nsip_get_progeny: one page of an animal's offspring.
var Progeny = define(&Def{
	Def: tooldef.Def{
		Name: toolname.GetProgeny, Title: "NSIP progeny", Method: "get_progeny",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindProgeny,
		Subject: "lpn_id", What: "progeny for LPN ID", Next: "check the LPN ID, or find animals with " + toolname.SearchAnimals,
		Desc: `One page of an animal's offspring (about 220 tokens each). ` +
			`Unsummarized: NSIP's JSON (sex "1"=M, "2"=F). Over the budget, a table of LPN ID, sex (M/F), birth date and the most accurate EBVs that fit as [value, accuracy], with per-trait statistics naming who has the max and min. ` +
			`_meta gives page, page_size, total_count, next. ` +
			`Arguments: lpn_id; page, 0-based; traits, exactly the codes rows carry; skip.`,
	},
	fields: param.Of(func(a *ProgenyArgs) param.Described {
		return param.Described{
			&a.LPNID:    nsiparg.LPN(""),
			&a.Page:     pageField,
			&a.PageSize: pageSizeField(10),
		}
	}),
	fetch: fetchWith(func(ctx context.Context, up Upstream, a ProgenyArgs) (*nsip.ProgenyPage, error) {
		return up.Progeny(ctx, a.LPNID, a.Page, a.PageSize)
	}, func(v *nsip.ProgenyPage) json.RawMessage { return v.Raw }),
})

// ProgenyArgs is nsip_get_progeny's.
type ProgenyArgs struct {
	LPNID    string `json:"lpn_id"`
	Page     int    `json:"page,omitempty"`
	PageSize int    `json:"page_size,omitempty"`
	ViewTraits
	ViewSkip
	param.Budget
}
