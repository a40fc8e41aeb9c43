package analysis

import (
	"context"
	"fmt"
	"maps"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Every analysis that reads a listing (a ranking, a group's statistics,
// breed percentiles) reads it through one pageReader, and those that read
// it from the start through one pageScan, so that the listing is read, and
// NSIP's paging judged, the same way everywhere.

// pageReader reads page n (of scanPageSize rows) of a listing: its rows
// and NSIP's count of all of them.
type pageReader func(ctx context.Context, page int) ([]nsip.AnimalRow, int, error)

// searchPages reads pages of nsip_search_animals with args, read afresh for
// each page so that a change to args (a ranking turning to reverse order)
// holds from the next page read.
func searchPages(r *call, args map[string]any) pageReader {
	return func(ctx context.Context, page int) ([]nsip.AnimalRow, int, error) {
		a := maps.Clone(args)
		a["page"], a["page_size"] = page, scanPageSize
		res, err := r.search(ctx, a)
		if err != nil {
			return nil, 0, err
		}
		return res.Results, res.TotalCount, nil
	}
}

// pageScan reads a listing page by page from the first, up to a limit of
// pages. NSIP promises neither full pages before the last nor stable
// paging, so it counts the rows missing from pages short of NSIP's count
// and the animals repeated across pages (each repeat meaning another
// skipped); a short page before the count is reached is missing rows, not
// the end, and an empty one ends the scan, as nothing more can be expected.
type pageScan struct {
	read  pageReader
	limit int // pages read at most, restarts included
	page  int // the next page
	seen  map[string]bool

	pages   int // pages read
	total   int // NSIP's count, as of the last page read
	dupes   int // rows of animals already read
	missing int // rows absent from pages short of NSIP's count
	ended   bool
}

func newPageScan(read pageReader, limit int) *pageScan {
	return &pageScan{read: read, limit: limit, seen: map[string]bool{}}
}

// more reports whether another page may be read: the listing has not
// ended and the limit is not reached.
func (s *pageScan) more() bool { return !s.ended && s.pages < s.limit }

// next reads the next page: all its rows, and whether each is of an animal
// not read before (a repeat is counted in dupes).
func (s *pageScan) next(ctx context.Context) ([]nsip.AnimalRow, []bool, error) {
	rows, total, err := s.read(ctx, s.page)
	if err != nil {
		return nil, nil, err
	}
	s.pages++
	s.total = total
	fresh := make([]bool, len(rows))
	for i, row := range rows {
		if s.seen[row.LPNID] {
			s.dupes++
			continue
		}
		s.seen[row.LPNID] = true
		fresh[i] = true
	}
	last := (s.page+1)*scanPageSize >= total
	if !last && len(rows) < scanPageSize {
		s.missing += scanPageSize - len(rows)
	}
	s.ended = last || len(rows) == 0
	s.page++
	return rows, fresh, nil
}

// restart reads the listing again from its first page, forgetting what
// was read but not the pages it took, which count against the limit.
func (s *pageScan) restart() {
	s.page, s.seen, s.dupes, s.missing, s.ended = 0, map[string]bool{}, 0, 0, false
}

// complete reports whether the scan ended with no row missing or repeated.
func (s *pageScan) complete() bool { return s.ended && s.missing == 0 && s.dupes == 0 }

// unsettled says, for a ranking, why rows missing or repeated leave it
// unproven: any animal a page lost could have ranked. "" when NSIP's pages
// were consistent.
func (s *pageScan) unsettled() string {
	if s.missing == 0 && s.dupes == 0 {
		return ""
	}
	return fmt.Sprintf("not proven exact: NSIP's pages were not consistent (%d rows missing from pages short of its count, %d animals repeated across pages, each repeat meaning another skipped), so an unread animal could still rank", s.missing, s.dupes)
}
