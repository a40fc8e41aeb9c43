package scan

import (
	"context"
	"fmt"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Every analysis that reads a listing (a ranking, a group's statistics,
// breed percentiles) reads it through one PageReader, and those that read
// it from the start through one PageScan, so that the listing is read, and
// NSIP's paging judged, the same way everywhere.

// PageReader reads page n (of PageSize rows) of a listing: its rows
// and NSIP's count of all of them.
type PageReader func(ctx context.Context, page int) ([]nsip.AnimalRow, int, error)

// SearchPages reads pages of NSIP's search q, read afresh for each page so
// that a change to q (a ranking turning to reverse order) holds from the
// next page read.
func SearchPages(r *analysis.Call, q *analysis.Query) PageReader {
	return func(ctx context.Context, page int) ([]nsip.AnimalRow, int, error) {
		a := *q
		a.Page, a.PageSize = page, PageSize
		res, err := r.Search(ctx, a)
		if err != nil {
			return nil, 0, err
		}
		return res.Results, res.TotalCount, nil
	}
}

// PageScan reads a listing page by page from the first, up to a limit of
// pages. NSIP promises neither full pages before the last nor stable
// paging, so it counts the rows missing from pages short of NSIP's count
// and the animals repeated across pages (each repeat meaning another
// skipped); a short page before the count is reached is missing rows, not
// the end, and an empty one ends the scan, as nothing more can be expected.
type PageScan struct {
	read  PageReader
	limit int // pages read at most, restarts included
	page  int // the next page
	seen  map[string]bool

	pages   int    // pages read
	Total   int    // NSIP's count, as of the last page read
	dupes   int    // rows of animals already read
	missing int    // rows absent from pages short of NSIP's count
	recount string // how NSIP's count changed between pages, "" if it held
	Ended   bool
}

func NewPageScan(read PageReader, limit int) *PageScan {
	return &PageScan{read: read, limit: limit, seen: map[string]bool{}}
}

// More reports whether another page may be read: the listing has not
// ended and the limit is not reached.
func (s *PageScan) More() bool { return !s.Ended && s.pages < s.limit }

// Next reads the next page: all its rows, and whether each is of an animal
// not read before (a repeat is counted in dupes).
func (s *PageScan) Next(ctx context.Context) ([]nsip.AnimalRow, []bool, error) {
	rows, total, err := s.read(ctx, s.page)
	if err != nil {
		return nil, nil, err
	}
	s.pages++
	if s.page > 0 && total != s.Total && s.recount == "" {
		// An animal that left or joined the listing between pages shifts
		// every later row by one, which skips or repeats an animal with no
		// other trace: the count is the only witness.
		s.recount = fmt.Sprintf("NSIP's count changed between pages (%d, then %d)", s.Total, total)
	}
	s.Total = total
	fresh := make([]bool, len(rows))
	for i, row := range rows {
		if s.seen[row.LPNID] {
			s.dupes++
			continue
		}
		s.seen[row.LPNID] = true
		fresh[i] = true
	}
	// The rows NSIP's count leaves for this page and the pages after it:
	// a page short of its share, the last included, is missing rows, and
	// an empty page ends the scan with all the rest missing.
	left := max(total-s.page*PageSize, 0)
	last := left <= PageSize
	switch {
	case len(rows) == 0:
		s.missing += left
	case len(rows) < min(left, PageSize):
		s.missing += min(left, PageSize) - len(rows)
	}
	s.Ended = last || len(rows) == 0
	s.page++
	return rows, fresh, nil
}

// Restart reads the listing again from its first page, forgetting what
// was read but not the pages it took, which count against the limit.
func (s *PageScan) Restart() {
	s.page, s.seen, s.dupes, s.missing, s.recount, s.Ended = 0, map[string]bool{}, 0, 0, "", false
}

// Consistent reports whether the pages read so far agree with each other
// and with NSIP's count: no row missing or repeated, the count unchanged.
func (s *PageScan) Consistent() bool {
	return s.missing == 0 && s.dupes == 0 && s.recount == "" && len(s.seen) <= s.Total
}

// Complete reports whether the scan ended with every animal of NSIP's
// count read once, as far as the pages show.
func (s *PageScan) Complete() bool { return s.Ended && s.Consistent() }

// Inconsistency says what the pages showed wrong, "" when nothing.
func (s *PageScan) Inconsistency() string {
	var parts []string
	if s.missing > 0 || s.dupes > 0 {
		parts = append(parts, fmt.Sprintf("%d rows missing from pages short of its count, %d animals repeated across pages, each repeat meaning another skipped", s.missing, s.dupes))
	}
	if s.recount != "" {
		parts = append(parts, s.recount)
	}
	if len(s.seen) > s.Total {
		parts = append(parts, fmt.Sprintf("%d animals read where NSIP counts %d", len(s.seen), s.Total))
	}
	return strings.Join(parts, "; ")
}

// unsettled says, for a ranking, why inconsistent pages leave it unproven:
// any animal a page lost could have ranked. "" when the pages were
// consistent.
func (s *PageScan) unsettled() string {
	if s.Consistent() {
		return ""
	}
	return "not proven exact: NSIP's pages were not consistent (" + s.Inconsistency() + "), so an unread animal could still rank"
}

// PageSize is the page size analyses read searches with: NSIP's largest.
const PageSize = nsip.MaxPageSize

const FlockPages = 30

// Scanned is every row of a listing, read page by page.
type Scanned struct {
	Rows      []nsip.AnimalRow
	Total     int // NSIP's recordCount
	Pages     int
	Dupes     int
	Ended     bool   // the last page by NSIP's count was read
	Complete  bool   // ended with every animal of the count read once
	Wrong     string // what the pages showed inconsistent, "" if nothing
	pageLimit int
}

// Pages reads pages until NSIP has no more or the page limit.
func Pages(ctx context.Context, read PageReader, pageLimit int) (*Scanned, error) {
	sc := NewPageScan(read, pageLimit)
	s := &Scanned{pageLimit: pageLimit}
	for sc.More() {
		rows, fresh, err := sc.Next(ctx)
		if err != nil {
			return nil, err
		}
		for i, row := range rows {
			if fresh[i] {
				s.Rows = append(s.Rows, row)
			}
		}
	}
	s.Total, s.Pages, s.Dupes, s.Ended, s.Complete, s.Wrong = sc.Total, sc.pages, sc.dupes, sc.Ended, sc.Complete(), sc.Inconsistency()
	return s, nil
}

func PagesOf(total int) int { return max(1, (total+PageSize-1)/PageSize) }
