package lookup

import (
	"reflect"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// SearchByLPN is nsip_search_by_lpn: an animal's profile, assembled by the
// gateway from the cache entries of three lookups (Animal, Lineage and
// Progeny's first page).
var SearchByLPN = define(&Def{
	Def: tooldef.Def{
		Name: toolname.SearchByLPN, Title: "NSIP animal profile", Method: "search_by_lpn",
		Toolset: toolsets.Lookup,
		Kind:    summarize.KindProfile,
		Subject: "lpn_id", What: "animal with LPN ID", Next: "check the LPN ID, or find animals with " + toolname.SearchAnimals,
		Desc: `An animal's profile in one call: details, pedigree and first 10 offspring. ` +
			`Summaries fill the budget with identity, contact, EBVs, indexes, parents, grandparents and offspring, listing each part left out with the call for it. ` +
			`Arguments: lpn_id; traits; max_tokens. Shares the cache of the single-part tools.`,
	},
	Composite: true,
	fields:    param.Table{reflect.TypeFor[ProfileArgs](): param.Fields{"LPNID": param.LPNParam("")}},
	fetch:     argsOnly[ProfileArgs, nsip.AnimalProfile](),
})

// ProfileArgs is nsip_search_by_lpn's.
type ProfileArgs struct {
	LPNID string `json:"lpn_id"`
	ViewTraits
	param.Budget
}

// ProfileParts are the lookups the profile of the animal id is assembled
// from: the calls of nsip_get_animal, nsip_get_lineage and
// nsip_get_progeny (its first page of nsip.ProfilePageSize) that ask the
// same, whose cache entries the profile shares.
func ProfileParts(id string) ([3]Read, error) {
	defs := [3]*Def{Animal, Lineage, Progeny}
	typed := [3]any{
		DetailsArgs{SearchString: id},
		LPNArgs{LPNID: id},
		ProgenyArgs{LPNID: id, PageSize: nsip.ProfilePageSize},
	}
	var parts [3]Read
	for i, d := range defs {
		var err error
		if parts[i], err = d.Keyed(typed[i]); err != nil {
			return parts, err
		}
	}
	return parts, nil
}
