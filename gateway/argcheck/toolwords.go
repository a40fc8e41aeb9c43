package argcheck

import (
	"slices"
	"strings"
	"unicode"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// A model that guesses a tool's name guesses from what it wants done:
// nsip_top_rams, nsip_coi, nsip_pedigree. No spelling distance leads from
// those to nsip_rank_animals, nsip_check_mating or nsip_get_lineage, so an
// unknown name is read for its meaning first: each of its words that the
// table below (or a tool's own name) ties to a tool counts for that tool.

// toolWords are the words, or the starts of words, that mean each tool,
// from what its name and description say it does and how a breeder asks
// for that. A start of four letters or more matches any word it begins
// (ancest: ancestor, ancestry); a shorter one only itself.
var toolWords = map[string][]string{
	toolname.RankAnimals:    {"rank", "top", "best", "sort", "select", "pick", "choose", "ram", "sire", "index", "elite", "leader"},
	toolname.CheckMating:    {"coi", "inbre", "inbred", "mating", "mate", "pair", "cross", "kinship", "relat", "coancest"},
	toolname.PlanMatings:    {"plan", "matings", "assign", "allocat", "joining", "breeding"},
	toolname.GetLineage:     {"pedigree", "lineage", "ancest", "parent", "family", "tree", "grandsire", "granddam"},
	toolname.GetProgeny:     {"offspr", "progen", "lamb", "child", "kid", "descend", "daughter", "son"},
	toolname.FlockSummary:   {"herd", "flock", "stats", "statist", "summar", "group", "averag", "mean", "overview", "profile"},
	toolname.CompareAnimals: {"compar", "versus", "vs", "side", "diff"},
	toolname.GetAnimal:      {"animal", "detail", "record", "ebv", "info", "sheep"},
	toolname.SearchAnimals:  {"search", "filter"}, // not find, lookup: any tool finds
	toolname.SearchByLPN:    {"lpn", "tag", "registration"},
	toolname.ListBreeds:     {"breed", "breeds"},
	toolname.GetStatuses:    {"status", "statuses"},
	toolname.GetTraitRanges: {"trait", "range", "min", "max"},
	toolname.GetLastUpdate:  {"update", "updated", "date", "fresh", "last", "latest"},
}

// nameWords are the words of a tool name, lower case: nsip_topRams and
// nsip-top-rams are nsip, top, rams.
func nameWords(name string) []string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range name {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteRune(' ')
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(' ')
		}
		prev = r
	}
	return slices.DeleteFunc(strings.Fields(b.String()), func(w string) bool { return w == "nsip" || w == "get" || w == "tool" })
}

// means reports whether word w means key: the same word, or for a key of
// four letters or more, a word it begins or a plural of it.
func means(w, key string) bool {
	return w == key || len(key) >= 4 && strings.HasPrefix(w, key) || strings.TrimSuffix(w, "s") == key
}

// meaningScores is, for each of tools, how many words of name mean it:
// by toolWords or by a word of the tool's own name.
func meaningScores(name string, tools []string) []int {
	words := nameWords(name)
	scores := make([]int, len(tools))
	for i, t := range tools {
		keys := append(nameWords(t), toolWords[t]...)
		for _, w := range words {
			if slices.ContainsFunc(keys, func(k string) bool { return means(w, k) }) {
				scores[i]++
			}
		}
	}
	return scores
}
