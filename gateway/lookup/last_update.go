package lookup

import (
	"context"
	"encoding/json"

	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// LastUpdate is nsip_get_last_update: the date of NSIP's latest evaluation.
var LastUpdate = define(&Def{
	Def: tooldef.Def{
		Name: toolname.GetLastUpdate, Title: "NSIP last evaluation date", Method: "get_date_last_updated",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindGeneric,
		Desc:    `Date of the latest NSIP evaluation, e.g. {"date":"09/23/2025"}: how current the EBVs are.`,
	},
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ NoArgs) (*nsip.LastUpdate, error) {
		return up.DateLastUpdated(ctx)
	}, func(v *nsip.LastUpdate) json.RawMessage { return v.Raw }),
})
