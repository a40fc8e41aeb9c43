package gateway

import (
	"context"
	"encoding/json"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// statusesDef is nsip_get_statuses: the animal statuses NSIP records.
var statusesDef = lookup(&toolDef{
	name: toolname.GetStatuses, title: "NSIP animal statuses", method: "get_statuses_by_breed_group",
	kind: summarize.KindGeneric,
	desc: `Animal statuses NSIP records, e.g. ["CURRENT","SOLD","DEAD"], for search_criteria.status. Only argument: max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ noArgs) (*nsip.Statuses, error) {
		return up.Statuses(ctx)
	}, func(v *nsip.Statuses) json.RawMessage { return v.Raw }),
})
