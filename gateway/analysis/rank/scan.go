package rank

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// rankScan is what a ranking by weights and one by NSIP's own index share:
// the search read page by page under one evaluation, and the tally of the
// rows the pages held. Both count a row the same way, so the counting is
// here once; a ranking that starts again (reversed) resets it.
//
// NSIP promises neither full pages before the last, nor stable paging, nor
// ranges that bound every EBV: missing rows, repeats (each means an animal
// skipped; the scan counts both) and a value outside the ranges are
// counted, and any of them withdraws what it would disprove.
type rankScan struct {
	scanN  int            // the animals ranked exactly
	search analysis.Query // read afresh for each page, so a change holds from the next
	eb     *scan.EvalBracket
	sc     *scan.PageScan
	stray  func(nsip.AnimalRow) (criterion, why string)
	keep   *rankFilter
	stop   string // why the scan stopped, "" while it runs

	top  *breeding.TopN
	rows map[string]nsip.AnimalRow
	// fromRecord marks the ranked rows completed from the animal's record
	// (records).
	fromRecord map[string]bool
	contra     []string // rows against the criteria, the first MaxNamed
	nContra    int
	read       int // fresh rows read
	unindexed  int // rows without a score
}

// openRankScan prepares the scan of search, whose criteria (crit) the
// rows are held to, and reads the evaluation it is tied to.
func openRankScan(ctx context.Context, r *analysis.Call, search analysis.Query, crit *nsiparg.Criteria, scanN int) (*rankScan, error) {
	s := &rankScan{scanN: scanN, search: search, top: breeding.NewTopN(scanN), rows: map[string]nsip.AnimalRow{}, fromRecord: map[string]bool{}}
	s.stray = summarize.SearchContradiction(s.search.SearchParams)
	s.keep = newRankFilter(crit)
	eb, err := scan.OpenEvaluation(ctx, r, &s.search)
	if err != nil {
		return nil, err
	}
	s.eb = eb
	s.sc = scan.NewPageScan(scan.SearchPages(r, &s.search), rankPages)
	return s, nil
}

// admit counts a fresh row read and reports whether it is to be scored:
// not a row against the criteria, nor one the filter leaves out.
func (s *rankScan) admit(row nsip.AnimalRow) bool {
	s.read++
	if _, why := s.stray(row); why != "" {
		// NSIP ignored a criterion for this row at least: it is no
		// animal the caller asked about, whatever its index.
		if len(s.contra) < analysis.MaxNamed {
			s.contra = append(s.contra, row.LPNID+" ("+why+")")
		}
		s.nContra++
		return false
	}
	return !s.keep.leaves(row)
}

// score offers an admitted row at v, or counts it unindexed when it has
// no score (ok false).
func (s *rankScan) score(row nsip.AnimalRow, v float64, ok bool) {
	if !ok {
		s.unindexed++
		return
	}
	s.top.Offer(breeding.Scored{ID: row.LPNID, Score: v})
	s.rows[row.LPNID] = row
}

// reset forgets the tally, for a scan started again.
func (s *rankScan) reset() {
	s.top, s.rows, s.read, s.unindexed = breeding.NewTopN(s.scanN), map[string]nsip.AnimalRow{}, 0, 0
	s.contra, s.nContra = nil, 0
	s.keep.reset()
}

// table is the ranked rows, each led by the cells every ranking has (the
// score shown as cell makes it) and followed by more's, and how many of
// them NSIP did not say were genotyped or not.
func (s *rankScan) table(cell func(float64) any, more func(nsip.AnimalRow) []any) ([][]any, int) {
	out := make([][]any, 0, s.scanN)
	unstated := 0
	for i, sc := range s.top.Rows() {
		row := s.rows[sc.ID]
		sex := s.keep.sexCell(row)
		if row.Genotyped == "" {
			unstated++
		}
		cells := []any{i + 1, sc.ID, cell(sc.Score), sex, statusCell(row), birthYearCell(row), facts.GenotypedCell(row.Genotyped)}
		if more != nil {
			cells = append(cells, more(row)...)
		}
		out = append(out, cells)
	}
	return out, unstated
}

// rankRecords is how many ranked animals' records a ranking reads at most:
// its largest top_n.
const rankRecords = 50

// records reads the record of each ranked animal whose row does not state
// its sex or whether it is genotyped, as NSIP's live rows do not: the row
// takes the record's sex, birth date and genotyped status. A record of the
// other sex than search_criteria.gender asked shows NSIP ignored the
// criterion for that row: it is taken out of the ranking and counted with
// the rows against the criteria, and the ranked rows left are still the
// best of the sex asked. It reports how many records were read.
func (s *rankScan) records(ctx context.Context, r *analysis.Call) (int, error) {
	var ids []string
	for _, sc := range s.top.Rows() {
		if row := s.rows[sc.ID]; row.Sex == "" || row.Genotyped == "" {
			ids = append(ids, sc.ID)
		}
	}
	wrong := map[string]bool{}
	read, _, err := scan.EachRecord(ctx, r, len(ids), func(k int) string { return ids[k] }, func(k int, d *nsip.AnimalDetails) {
		row := s.rows[ids[k]]
		sex := nsip.NormalizeSex(d.Gender)
		if row.Sex == "" && s.keep.sex != "" && (sex == "Male" || sex == "Female") && sex != s.keep.sex {
			wrong[ids[k]] = true
		}
		if row.Sex == "" {
			row.Sex = sex
		}
		if row.DateOfBirth == "" {
			row.DateOfBirth = d.DateOfBirth
		}
		row.Genotyped = d.Genotyped
		s.fromRecord[ids[k]] = true
		s.rows[ids[k]] = row
	})
	if len(wrong) > 0 {
		s.dropContradicted(wrong)
	}
	return read, err
}

// dropContradicted takes the ranked animals whose records contradict the
// sex asked out of the ranking, counting them against the criteria.
func (s *rankScan) dropContradicted(wrong map[string]bool) {
	kept := breeding.NewTopN(s.scanN)
	for _, sc := range s.top.Rows() {
		if !wrong[sc.ID] {
			kept.Offer(sc)
			continue
		}
		if len(s.contra) < analysis.MaxNamed {
			s.contra = append(s.contra, fmt.Sprintf("%s (its record says %s, though NSIP returned it for gender %s)", sc.ID, strings.ToLower(s.rows[sc.ID].Sex), s.keep.sex))
		}
		s.nContra++
		s.keep.nUnsexed--
	}
	s.top = kept
}

// A breeder asking for the best rams wants rams he can use now: a ranking
// without a status criterion ranks CURRENT animals only. NSIP is asked for
// every status, so that the animals left out can be counted by status and
// the answer says how to rank them (a status among search_criteria, or a
// birth window). A status word meaning several statuses ("living"), which
// NSIP takes no one search for, is held to the same way; a single status
// is NSIP's to filter, and a row against it contradicts the criteria. Each
// row left out after it was read is counted and the first are named, so
// that nothing is dropped silently; asked for one sex, the rows NSIP
// returned that record none are ranked as that sex, and counted so that
// the answer says so. Leaving rows out changes nothing about whether the
// listing was read whole: the scan's proof is of the pages, and the
// ranking is exact over the animals kept.

// usable is what a ranking without a status criterion ranks.
var usable, _ = nsip.StatusWord("usable")

// rankFilter keeps, of the rows a ranking reads, the animals it may rank.
type rankFilter struct {
	keep      *nsip.StatusMeaning // the statuses held to here; nil when NSIP filters
	byDefault bool                // keep is the default, no status having been asked
	sex       string              // "Male" or "Female" when one sex was asked; "" for both
	gone      []string
	byStatus  map[string]int
	nGone     int
	nUnsexed  int // rows of no recorded sex, taken as the sex searched
}

// newRankFilter is the filter of a ranking with crit (after for_ewes asked
// for rams): CURRENT animals without a status, a word's statuses when NSIP
// cannot be asked for them, else what NSIP returns, which the criteria
// check then holds rows to.
func newRankFilter(crit *nsiparg.Criteria) *rankFilter {
	f := &rankFilter{byStatus: map[string]int{}}
	status := ""
	if crit != nil {
		status = crit.Status
	}
	switch m, several := nsip.StatusSeveral(status); {
	case several:
		f.keep = &m
	case crit == nil || crit.Status == "":
		f.keep, f.byDefault = &usable, true
	}
	if crit != nil && (crit.Gender == "Male" || crit.Gender == "Female") {
		f.sex = crit.Gender
	}
	return f
}

// reset forgets the rows left out, for a scan started again.
func (f *rankFilter) reset() {
	f.gone, f.byStatus, f.nGone, f.nUnsexed = nil, map[string]int{}, 0, 0
}

// leaves reports whether row is left out of the ranking, counting it.
func (f *rankFilter) leaves(row nsip.AnimalRow) bool {
	// A row that states no status is not shown to be of another one: it
	// is ranked, its status shown as unknown.
	if f.keep != nil && strings.TrimSpace(row.Status) != "" && !f.keep.Holds(row.Status) {
		st := statusCell(row)
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

// blocks are the answer's accounts of the rows left out by status and of
// those whose sex was taken from the search; nil for none.
func (f *rankFilter) blocks() (gone, unsexed *analysis.Named) {
	if f.nGone > 0 {
		var parts []string
		for _, s := range slices.Sorted(maps.Keys(f.byStatus)) {
			parts = append(parts, fmt.Sprintf("%d %s", f.byStatus[s], s))
		}
		effect := fmt.Sprintf("left out, of the animals read: %s, read after NSIP was asked for every status (%s)", f.keep.Note(), strings.Join(parts, ", "))
		if f.byDefault {
			effect = fmt.Sprintf("left out, of the animals read: not CURRENT, so not usable now (%s); to rank them too ask again with search_criteria.status "+
				"\"living\" (every status but DEAD and CULL) or one status of %s, and bound their age with search_criteria.born_after, e.g. \"2020-01-01\"",
				strings.Join(parts, ", "), toolname.GetStatuses)
		}
		gone = &analysis.Named{Count: f.nGone, LPNIDs: f.gone, Effect: effect}
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

// statusRead says how crit's status was read when it is a word.
func statusRead(crit *nsiparg.Criteria) string {
	if crit == nil {
		return ""
	}
	return nsip.StatusNote(crit.Status)
}

// birthYearCell is a row's birth year, from its birth date or else its
// LPN ID (rows.BirthYear); nil when neither says.
func birthYearCell(row nsip.AnimalRow) any {
	if y, _ := row.BirthYear(); y != 0 {
		return y
	}
	return nil
}

// birthYearsNote says where the ranked rows' birth years came from: the
// LPN ID for those whose row and record carry no birth date.
func (s *rankScan) birthYearsNote() string {
	n := 0
	for _, sc := range s.top.Rows() {
		if _, lpn := s.rows[sc.ID].BirthYear(); lpn {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the birth years %s", n, nsip.LPNReading)
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
