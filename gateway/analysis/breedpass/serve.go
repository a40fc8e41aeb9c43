package breedpass

import (
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Beside percentiles, a kept pass answers a ranking by one of NSIP's own
// indexes (../rank/index.go) and the counts and statistics of a group that is
// a search of one breed (../flock/flock.go), whenever the search's criteria are
// ones the pass's rows can be held to exactly: a sex and a status, which
// every row shows as NSIP filters by them. Dates of birth, flocks, trait
// ranges, proven-only and breed groups are filtered by NSIP in ways a row
// does not prove, so those searches read their pages.
//
// Which way is chosen by lookups, as for percentiles: a pass kept for the
// evaluation NSIP gives now costs the date read, and is always used. With
// none kept, the pages of the search cost no more than a pass (a filtered
// search has no more pages than its breed), so they are read; when they
// are the breed's own pages, read whole under one evaluation, they are
// kept as the breed's pass at no further lookup. A search too large for
// the call's pages has the breed's pass read in the background, so that a
// later call is answered whole.

// PassFilter is the criteria of a search that a pass answers exactly:
// the sex asked ("Male" or "Female"; "" for either) and the status.
type PassFilter struct{ Sex, Status string }

// PassFilterOf is c as a pass's filter; false when c asks for anything a
// pass cannot hold its rows to.
func PassFilterOf(c *nsiparg.Criteria) (PassFilter, bool) {
	if c == nil {
		return PassFilter{}, true
	}
	rest := *c
	rest.Gender, rest.Status = "", ""
	if rest.BreedID == 0 && rest.BreedGroupID == 0 && rest.BornAfter == "" && rest.BornBefore == "" && !rest.ProvenOnly &&
		rest.FlockID == "" && len(rest.TraitRanges) == 0 {
		f := PassFilter{Status: nsip.StatusSent(c.Status)} // a word of several statuses is held to by the reader
		if strings.EqualFold(c.Gender, "Male") || strings.EqualFold(c.Gender, "Female") {
			f.Sex = nsip.NormalizeSex(c.Gender)
		}
		return f, true
	}
	return PassFilter{}, false
}

// BreedWide reports whether c asks for nothing, so that the search's
// pages are the breed's own, which a pass is made of.
func BreedWide(c *nsiparg.Criteria) bool { return c == nil || reflect.ValueOf(*c).IsZero() }

// matches reports whether NSIP's search with f returns row: one of the sex
// asked (none of no recorded sex) and of the status asked, in any case.
func (f PassFilter) matches(row nsip.AnimalRow) bool {
	return (f.Sex == "" || row.Sex == f.Sex) && (f.Status == "" || strings.EqualFold(row.Status, f.Status))
}

// Serves reports whether the pass can hold its rows to f: a sex asked
// needs rows that record one, which NSIP's live rows do not, so such a
// search reads NSIP's pages, which NSIP filters by gender itself.
func (p *BreedPass) Serves(f PassFilter) bool {
	return f.Sex == "" || slices.ContainsFunc(p.Sexes, func(s string) bool { return s != "" })
}

// Row is animal j of the pass as a search row, with what the pass keeps:
// no registration, breed name or accuracy; its traits only when asked for
// (a ranking by index reads none, and a large breed's would be megabytes).
func (p *BreedPass) Row(j int, traits bool) nsip.AnimalRow {
	row := nsip.AnimalRow{LPNID: p.IDs[j], Sex: p.Sexes[p.Sex[j]], Status: p.Statuses[p.Status[j]], DateOfBirth: p.Dates[p.Born[j]],
		BreedID: p.Breed, Genotyped: p.Genotypes[p.Geno[j]], Sire: p.Parents[p.Sire[j]], Dam: p.Parents[p.Dam[j]], FlockCode: p.Flocks[p.Flock[j]]}
	for i, c := range p.Codes {
		if v := p.Values[i][j]; traits && !math.IsNaN(v) {
			row.Traits = append(row.Traits, nsip.Trait{Code: c, Value: v})
		}
	}
	for i, name := range p.IndexNames {
		if v := p.IndexValues[i][j]; !math.IsNaN(v) {
			row.Indexes = append(row.Indexes, nsip.Index{Name: name, Value: v})
		}
	}
	return row
}

// Rows are the animals of the pass f matches, in the order NSIP's pages
// gave them, with their traits when asked for.
func (p *BreedPass) Rows(f PassFilter, traits bool) []nsip.AnimalRow {
	var out []nsip.AnimalRow
	for j := range p.IDs {
		if row := p.Row(j, traits); f.matches(row) {
			out = append(out, row)
		}
	}
	return out
}
