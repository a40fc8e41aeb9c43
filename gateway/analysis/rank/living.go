package rank

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A breeder asking for the best rams wants rams he can still use: a
// ranking leaves out the animals NSIP records as dead or culled, unless
// the caller asks for them (include_dead_and_culled, or a status among
// search_criteria). Each row left out after it was read is counted and the
// first are named, so that nothing is dropped silently; asked for one sex,
// the rows NSIP returned that record none are ranked as that sex, and
// counted so that the answer says so. Leaving rows out changes
// nothing about whether the listing was read whole: the scan's proof is of
// the pages, and the ranking is exact over the animals kept.

// includeGoneParam is described by the tool's description, which
// tools/list carries once.
var includeGoneParam = param.Spec{Name: "include_dead_and_culled", Kind: param.Boolean, Default: false, Example: true}

// rankFilter keeps, of the rows a ranking reads, the animals it may rank.
type rankFilter struct {
	keepGone bool   // dead and culled animals are ranked too
	sex      string // "Male" or "Female" when one sex was asked; "" for both
	gone     []string
	byStatus map[string]int
	nGone    int
	nUnsexed int // rows of no recorded sex, taken as the sex searched
}

// newRankFilter is the filter of a ranking with crit (after for_ewes asked
// for rams): dead and culled animals are kept when include asks for them or
// a status was asked, which the criteria check then holds rows to.
func newRankFilter(include bool, crit *param.Criteria) *rankFilter {
	f := &rankFilter{keepGone: include, byStatus: map[string]int{}}
	if crit != nil {
		f.keepGone = f.keepGone || crit.Status != ""
		if crit.Gender == "Male" || crit.Gender == "Female" {
			f.sex = crit.Gender
		}
	}
	return f
}

// reset forgets the rows left out, for a scan started again.
func (f *rankFilter) reset() {
	f.gone, f.byStatus, f.nGone, f.nUnsexed = nil, map[string]int{}, 0, 0
}

// leaves reports whether row is left out of the ranking, counting it.
func (f *rankFilter) leaves(row nsip.AnimalRow) bool {
	st := strings.ToUpper(strings.TrimSpace(row.Status))
	if !f.keepGone && slices.Contains(facts.GoneStatuses, st) {
		if len(f.gone) < analysis.MaxNamed {
			f.gone = append(f.gone, row.LPNID+" ("+st+")")
		}
		f.byStatus[st]++
		f.nGone++
		return true
	}
	// A row of the other sex contradicts the criteria and is counted
	// there. NSIP's live rows record no sex at all: a row NSIP returned for
	// the sex asked is of that sex as far as anything shows, so it is
	// ranked, and the answer says the sex was taken from the search.
	if f.sex != "" && nsip.NormalizeSex(row.Sex) == "" {
		f.nUnsexed++
	}
	return false
}

// blocks are the answer's accounts of the rows left out (dead or culled)
// and of those whose sex was taken from the search; nil for none.
func (f *rankFilter) blocks() (gone, unsexed *analysis.Named) {
	if f.nGone > 0 {
		var parts []string
		for _, s := range slices.Sorted(maps.Keys(f.byStatus)) {
			parts = append(parts, fmt.Sprintf("%d %s", f.byStatus[s], s))
		}
		gone = &analysis.Named{Count: f.nGone, LPNIDs: f.gone,
			Effect: fmt.Sprintf("left out, of the animals read: recorded as no longer living or kept (%s); ask again with include_dead_and_culled: true to rank them", strings.Join(parts, ", "))}
	}
	if f.nUnsexed > 0 {
		unsexed = &analysis.Named{Count: f.nUnsexed, LPNIDs: []string{},
			Effect: fmt.Sprintf("ranked as %s: NSIP's rows record no sex, and NSIP returned them for search_criteria.gender %s", strings.ToLower(f.sex), f.sex)}
	}
	return gone, unsexed
}

// sexCell is a row's sex as a ranking shows it: as the row records it,
// else the sex NSIP's search was asked for, else "unknown".
func (f *rankFilter) sexCell(row nsip.AnimalRow) string {
	switch {
	case row.Sex != "":
		return row.Sex
	case f.sex != "":
		return f.sex
	}
	return "unknown"
}

// statusCell is a row's status as the ranking shows it.
func statusCell(row nsip.AnimalRow) string {
	if s := strings.TrimSpace(row.Status); s != "" {
		return s
	}
	return "unknown"
}

// unnamed is n without the LPN IDs it lists, for a ranking cut to its
// budget: the ranked rows come before the names of the animals left out,
// whose count and reason stay.
func unnamed(n *analysis.Named) *analysis.Named {
	if n == nil || len(n.LPNIDs) == 0 {
		return n
	}
	c := *n
	c.LPNIDs = []string{}
	c.Effect += "; their LPN IDs are not listed, to leave the budget to the ranked rows"
	return &c
}
