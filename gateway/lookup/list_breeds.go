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

// ListBreeds is nsip_list_breeds: NSIP's breed groups and breeds.
var ListBreeds = define(&Def{
	Def: tooldef.Def{
		Name: toolname.ListBreeds, Title: "NSIP breed groups and breeds", Method: "get_available_breed_groups",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindGeneric,
		Desc:    `NSIP breed groups (Range, Maternal Wool, Hair, Terminal) with each breed's ID (breed_id elsewhere) and name; group IDs are breed_group_id.`,
	},
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ NoArgs) (*nsip.BreedGroups, error) {
		return up.BreedGroups(ctx)
	}, func(v *nsip.BreedGroups) json.RawMessage { return v.Raw }),
})
