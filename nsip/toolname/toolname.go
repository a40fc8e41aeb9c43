// Package toolname holds the names of the MCP tools this server offers over
// NSIP. They are defined once here because summaries, resources, prompts,
// analyses and the load tool all point to them: renaming a tool is one edit,
// and a name misspelt elsewhere fails to compile instead of sending a caller
// to a tool that does not exist.
package toolname

// The nine lookups, one per NSIP endpoint.
const (
	GetLastUpdate  = "nsip_get_last_update"
	ListBreeds     = "nsip_list_breeds"
	GetStatuses    = "nsip_get_statuses"
	GetTraitRanges = "nsip_get_trait_ranges"
	SearchAnimals  = "nsip_search_animals"
	GetAnimal      = "nsip_get_animal"
	GetLineage     = "nsip_get_lineage"
	GetProgeny     = "nsip_get_progeny"
	SearchByLPN    = "nsip_search_by_lpn"
)

// The six analyses, each built from several lookups.
const (
	CheckMating    = "nsip_check_mating"
	CompareAnimals = "nsip_compare_animals"
	RankAnimals    = "nsip_rank_animals"
	FlockSummary   = "nsip_flock_summary"
	PlanMatings    = "nsip_plan_matings"
	BreedDiversity = "nsip_breed_diversity"
)

// All is every tool's name: the lookups, then the analyses.
var All = []string{
	GetLastUpdate, ListBreeds, GetStatuses, GetTraitRanges, SearchAnimals,
	GetAnimal, GetLineage, GetProgeny, SearchByLPN,
	CheckMating, CompareAnimals, RankAnimals, FlockSummary, PlanMatings, BreedDiversity,
}
