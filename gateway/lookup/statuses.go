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

// Statuses is nsip_get_statuses: the animal statuses NSIP records.
var Statuses = define(&Def{
	Def: tooldef.Def{
		Name: toolname.GetStatuses, Title: "NSIP animal statuses", Method: "get_statuses_by_breed_group",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindGeneric,
		Desc:    `Animal statuses NSIP records, e.g. ["CURRENT","SOLD","DEAD"], for search_criteria.status, which also takes "living" (all but DEAD and CULL) or "usable" (CURRENT).`,
	},
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ NoArgs) (*nsip.Statuses, error) {
		return up.Statuses(ctx)
	}, func(v *nsip.Statuses) json.RawMessage { return v.Raw }),
})
