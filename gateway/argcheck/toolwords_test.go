package argcheck

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// An unknown name is answered with the tool it means first, read from its
// words, where spelling alone leads elsewhere (nsip_best_rams is a few
// edits from nsip_list_breeds). The names below are not in the table as
// such; their words are.
func TestUnknownToolNearestByMeaning(t *testing.T) {
	for name, want := range map[string]string{
		"nsip_top_rams":             toolname.RankAnimals,
		"nsip_best_rams":            toolname.RankAnimals,
		"nsip_inbreeding":           toolname.CheckMating,
		"nsip_coi":                  toolname.CheckMating,
		"nsip_pedigree":             toolname.GetLineage,
		"nsip_offspring":            toolname.GetProgeny,
		"nsip_herd_stats":           toolname.FlockSummary,
		"nsip_find_ancestry":        toolname.GetLineage,
		"nsipKinshipCheck":          toolname.CheckMating,
		"nsip-lambs-of-ram":         toolname.GetProgeny,
		"nsip_sire_ranking":         toolname.RankAnimals,
		"nsip_flock_averages":       toolname.FlockSummary,
		"nsip_animals_side_by_side": toolname.CompareAnimals,
		"nsip_breeding_plan":        toolname.PlanMatings,
		"nsip_get_animl":            toolname.GetAnimal, // a slip of spelling still leads
		"nsip_get_animals":          toolname.GetAnimal,
	} {
		r := UnknownTool(name, toolname.All)
		if !strings.HasSuffix(r.Problem, `did you mean "`+want+`"?`) || !strings.HasPrefix(r.Next, "call "+want+" ") ||
			!strings.HasPrefix(r.Expected, "a tool this server offers, the nearest being "+want+", ") {
			t.Errorf("%s: %+v; want %s first", name, r, want)
		}
		if n := strings.Count(strings.SplitN(r.Expected, ";", 2)[0], "nsip_"); n != nearestTools {
			t.Errorf("%s: %d tools named nearest, want %d: %s", name, n, nearestTools, r.Expected)
		}
	}
}

// Words are split at separators and case changes, without the words
// every tool shares.
func TestNameWords(t *testing.T) {
	if got := strings.Join(nameWords("nsip_getTopRams-2"), " "); got != "top rams 2" {
		t.Errorf("nameWords = %q", got)
	}
}
