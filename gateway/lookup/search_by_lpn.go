package lookup

import (
	"reflect"

	lru "github.com/hashicorp/golang-lru/v2"

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
// same, whose cache entries the profile shares. The parts of the profiles
// asked for lately are remembered: keyed as users' calls are (Keyed),
// they cost a profile served from the cache a third of its allocations.
// Their arguments are shared by the calls that read them, and only read.
func ProfileParts(id string) ([3]Read, error) {
	if parts, ok := recentProfiles.Get(id); ok {
		return parts, nil
	}
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
	recentProfiles.Add(id, parts)
	return parts, nil
}

// recentProfiles holds the parts of the last profiles asked for, a few
// hundred bytes each: far fewer than the cache holds answers, and bounded
// whatever IDs a caller sends.
var recentProfiles = func() *lru.Cache[string, [3]Read] {
	c, err := lru.New[string, [3]Read](1024)
	if err != nil {
		panic(err) // only for a size under 1
	}
	return c
}()
