package gateway

import (
	"context"
	"encoding/json"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// listBreedsDef is nsip_list_breeds: NSIP's breed groups and breeds.
var listBreedsDef = lookup(&toolDef{
	name: toolname.ListBreeds, title: "NSIP breed groups and breeds", method: "get_available_breed_groups",
	kind: summarize.KindGeneric,
	desc: `NSIP breed groups (Range, Maternal Wool, Hair, Terminal) with each breed's ID (breed_id elsewhere) and name; group IDs are breed_group_id. Only argument: max_tokens.`,
	fetch: fetchWith(func(ctx context.Context, up Upstream, _ noArgs) (*nsip.BreedGroups, error) {
		return up.BreedGroups(ctx)
	}, func(v *nsip.BreedGroups) json.RawMessage { return v.Raw }),
})
