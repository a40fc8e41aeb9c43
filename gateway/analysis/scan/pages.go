package scan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"golang.org/x/sync/errgroup"

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

// NSIP publishes new evaluations without notice, and answers cached across
// one mix two (see the API notes). A scan whose verdict rests on every
// page, a ranking's "exact", is tied to one evaluation: NSIP's last-update
// date is read before the first page, the pages are cached under it as
// well as their arguments, so that a page kept from an earlier evaluation
// is fetched again rather than read beside a later one, and the date is
// read again after the last page. Dates only move forward, so the same
// date on both sides puts every page between under it.

// EvalLookups is what the date costs a scan: one read before, one after.
const EvalLookups = 2

// EvalBracket is a scan's hold on one evaluation.
type EvalBracket struct {
	Date string // "" when it could not be read
	why  string // why not, when it could not
}

// OpenEvaluation reads the date before a scan and keys the scan's search
// by it. A date NSIP does not give leaves the pages unkeyed and the scan
// unproven (close says so); only the caller's own end stops the call.
func OpenEvaluation(ctx context.Context, r *analysis.Call, search *analysis.Query) (*EvalBracket, error) {
	d, err := r.Evaluation(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return &EvalBracket{why: "could not be read (" + r.Src.ErrorCode(err) + ")"}, nil
	case d == "":
		return &EvalBracket{why: "was not given by NSIP"}, nil
	}
	search.Evaluation = d
	return &EvalBracket{Date: d}, nil
}

// close reads the date again after the scan: "" when the pages are shown
// to be of the evaluation read before them, else why they are not.
func (b *EvalBracket) close(ctx context.Context, r *analysis.Call) (string, error) {
	if b.Date == "" {
		return "not proven exact: NSIP's last-update date " + b.why + ", so the pages are not shown to be of one evaluation", nil
	}
	d, err := r.EvaluationNow(ctx)
	switch {
	case err != nil && ctx.Err() != nil && !errors.Is(err, analysis.ErrCeiling):
		return "", err
	case err != nil:
		return fmt.Sprintf("not proven exact: NSIP's last-update date could not be read again after the pages (%s), so they are not shown to be of one evaluation", r.Src.ErrorCode(err)), nil
	case d != b.Date:
		return fmt.Sprintf("not proven exact: NSIP published a new evaluation (%s, then %s) while the pages were read; call again for a ranking of one evaluation", b.Date, d), nil
	}
	return "", nil
}

// Verdict is a scan's last word on exactness, and what withdrew it.
type Verdict struct {
	Exact      bool
	evaluation string            // why the pages are not shown to be of one evaluation
	Stale      string            // why lookups answered from stale copies leave it unproven
	upstream   analysis.Upstream // what the call read, the second date read included
}

// Settle decides whether a scan whose pages prove its answer (exact) may
// say so: its pages must be of one evaluation, read again only then, and
// none of its lookups a copy kept after NSIP failed, which may predate a
// change to the listing.
func Settle(ctx context.Context, r *analysis.Call, eb *EvalBracket, exact bool) (Verdict, error) {
	v := Verdict{Exact: exact}
	if exact {
		why, err := eb.close(ctx, r)
		if err != nil {
			return v, err
		}
		v.evaluation, v.Exact = why, why == ""
	}
	v.upstream = r.Upstream()
	if n := v.upstream.Stale; n > 0 {
		v.Exact = false
		v.Stale = fmt.Sprintf("not proven exact: %d lookups were answered from copies kept past their hour because NSIP failed, so the pages may not show NSIP's listing at one time", n)
	}
	return v, nil
}

// Proof is what a ranking's computed block says of its scan.
func (v Verdict) Proof(sc *PageScan, eb *EvalBracket, stop string, read, unindexed int) analysis.ScanProof {
	return analysis.ScanProof{
		AnimalsRead: read, Exact: v.Exact, Stopped: stop, Population: sc.Total, WithoutIndex: unindexed, Pages: sc.pages,
		Upstream: v.upstream, Paging: sc.unsettled(), Evaluation: eb.Date, EvaluationCheck: v.evaluation, Stale: v.Stale,
	}
}

// A group's statistics read every page of its listing up to NSIP's count
// (or the page limit), so once a page has given the count the pages after
// it are known to be wanted and are read at once rather than one after
// another: at NSIP's speed of a second a page, a breed's thirty pages take
// about eight seconds rather than thirty. The scan still takes them in
// order, so its checks and its answer are those of one page at a time, and
// it reads the same pages: a page is read ahead only when the count last
// seen and the limit say the scan will ask for it. Only a count that
// shrinks between pages, or a scan ended early by an error or an empty
// page, leaves pages read ahead unused.

// pageResult is one page read ahead.
type pageResult struct {
	rows  []nsip.AnimalRow
	total int
	err   error
}

// aheadReader reads the pages after the one asked while the scan works on
// it, up to width under way.
type aheadReader struct {
	read         PageReader
	width, limit int

	mu      sync.Mutex
	pending map[int]chan pageResult
	cancel  context.CancelFunc // stops pages read ahead and not taken
	wg      sync.WaitGroup
}

// ReadAhead is read with the pages up to NSIP's count read width at a
// time, up to page limit-1; width 1 or less is read as it is. Only for a
// scan that reads from the first page on without restarting, whose pages
// read does not change between pages. stop, called once the scan is over,
// cancels the pages read ahead that it did not take and waits for them, so
// that no lookup of the call outlives it.
func ReadAhead(ctx context.Context, read PageReader, width, limit int) (_ PageReader, stop func()) {
	return ReadAheadAfter(ctx, read, width, limit, -1, 0)
}

// ReadAheadAfter is ReadAhead for a scan that has read page n itself
// (total the count it gave; n -1 for none): the pages after n that the
// count holds are started at once.
func ReadAheadAfter(ctx context.Context, read PageReader, width, limit, n, total int) (_ PageReader, stop func()) {
	if width <= 1 {
		return read, func() {}
	}
	actx, cancel := context.WithCancel(ctx)
	a := &aheadReader{read: func(_ context.Context, n int) ([]nsip.AnimalRow, int, error) { return read(actx, n) },
		width: width, limit: limit, pending: map[int]chan pageResult{}, cancel: cancel}
	if n >= 0 {
		a.start(actx, n, total)
	}
	return a.page, func() { a.cancel(); a.wg.Wait() }
}

// page answers page n, from the page read ahead when there is one, and
// starts the pages after it that the count holds.
func (a *aheadReader) page(ctx context.Context, n int) ([]nsip.AnimalRow, int, error) {
	a.mu.Lock()
	ch, ok := a.pending[n]
	delete(a.pending, n)
	a.mu.Unlock()
	var res pageResult
	if ok {
		select {
		case res = <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	} else {
		res.rows, res.total, res.err = a.read(ctx, n)
	}
	if res.err == nil && len(res.rows) > 0 {
		a.start(ctx, n, res.total)
	}
	return res.rows, res.total, res.err
}

// start reads ahead the pages after n, up to width of them under way
// beside the scan's, that a count of total leaves and the limit allows.
func (a *aheadReader) start(ctx context.Context, n, total int) {
	last := min(PagesOf(total)-1, a.limit-1, n+a.width)
	a.mu.Lock()
	defer a.mu.Unlock()
	for p := n + 1; p <= last; p++ {
		if _, ok := a.pending[p]; ok {
			continue
		}
		ch := make(chan pageResult, 1)
		a.pending[p] = ch
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			var r pageResult
			r.rows, r.total, r.err = a.read(ctx, p)
			ch <- r
		}()
	}
}

// NSIP's live search rows carry an animal's LPN ID, parents, status,
// registration number, EBVs and indexes, and no sex, birth date, breed or
// flock. What an answer needs beyond them is read another way and said:
// the birth year and the flock from the LPN ID (nsip.ParseLPN), the sex
// from NSIP's own search with the gender criterion, since the rows NSIP
// returns for gender Male are its rams.

// SexBySearch gives the rows of a group read whole by search q (which asks
// no gender) the sex NSIP's search knows them by: q's pages with gender
// Male are read, as far as the group's page limit allows, and their animals
// marked Male; the first page with gender Female gives NSIP's count of
// ewes, and when rams and ewes add up to the group, the rest are ewes.
// Rows of a group some of whose rows record a sex are left as they are.
// The returned text says what was done, "" when nothing was.
func SexBySearch(ctx context.Context, r *analysis.Call, q analysis.Query, rows []nsip.AnimalRow) (string, error) {
	unsexed := 0
	for _, row := range rows {
		if nsip.NormalizeSex(row.Sex) == "" {
			unsexed++
		}
	}
	// Rows that record sexes are NSIP's word for them, unknowns included.
	if unsexed < len(rows) || len(rows) == 0 {
		return "", nil
	}
	if sex := nsip.NormalizeSex(q.Criteria.Gender); sex == "Male" || sex == "Female" {
		for i := range rows {
			rows[i].Sex = sex
		}
		return fmt.Sprintf("NSIP's rows record no sex: every animal is %s, as NSIP returned it for search_criteria.gender %s", strings.ToLower(sex), sex), nil
	}
	males := q
	males.Criteria.Gender = "Male"
	read, stop := ReadAhead(ctx, SearchPages(r, &males), r.Parallel(), FlockPages)
	ms, err := Pages(ctx, read, FlockPages)
	stop()
	if err != nil {
		return "", err
	}
	if !ms.Complete {
		return fmt.Sprintf("sex unknown: NSIP's rows record none, and its search of the group's rams (gender Male) was not read whole (%d of %d)", len(ms.Rows), ms.Total), nil
	}
	females := q
	females.Criteria.Gender = "Female"
	_, nf, err := SearchPages(r, &females)(ctx, 0)
	if err != nil {
		return "", err
	}
	at := make(map[string]int, len(rows))
	for i, row := range rows {
		at[row.LPNID] = i
	}
	nm, strays := 0, 0
	for _, m := range ms.Rows {
		if i, ok := at[m.LPNID]; ok {
			if rows[i].Sex == "" {
				rows[i].Sex = "Male"
			}
			nm++
		} else {
			strays++
		}
	}
	if strays > 0 || nm+nf != len(rows) {
		for i := range rows {
			if rows[i].Sex == "Male" && ms.Total == len(rows) {
				rows[i].Sex = "" // gender was ignored: every animal came back as a ram
			}
		}
		return fmt.Sprintf("rams as NSIP's search with gender Male returned them (%d of the group's %d); the others unknown, since NSIP counts %d ewes, %d rams not in the group, and the two do not add up to the group",
			nm, len(rows), nf, strays), nil
	}
	for i := range rows {
		if rows[i].Sex == "" {
			rows[i].Sex = "Female"
		}
	}
	return fmt.Sprintf("NSIP's rows record no sex: rams are the %d animals its search with gender Male returned, ewes the other %d, as its count with gender Female (%d) confirms", nm, len(rows)-nm, nf), nil
}

// ProgenyEBVs is how a progeny group's method says where its EBVs came
// from when NSIP's progeny rows carry none.
const ProgenyEBVs = "; NSIP's progeny rows carry no EBVs, so each offspring's EBVs and accuracies are its own record's (getAnimalDetails, one lookup each, kept an hour)"

// ProgenyRecords is how many offspring records a progeny group reads at
// most: a sire of hundreds of lambs is answered from them all.
const ProgenyRecords = 400

// WithRecords fills the traits of rows that carry none from each animal's
// own record (EachRecord) and reports how many it read and could not.
func WithRecords(ctx context.Context, r *analysis.Call, rows []nsip.AnimalRow) (read, unread int, err error) {
	var need []int
	for i, row := range rows {
		if len(row.Traits) == 0 {
			need = append(need, i)
		}
	}
	return EachRecord(ctx, r, len(need), func(k int) string { return rows[need[k]].LPNID }, func(k int, d *nsip.AnimalDetails) {
		rows[need[k]].Traits = d.Traits
	})
}

// EachRecord reads the records of n animals (id(k) for k < n),
// r.parallel() at a time, and hands each to use, one at a time. It
// reports how many it read and how many it could not (not found, or past
// the call's lookups or time, which end the reading but not the answer);
// only the call's own end is an error.
func EachRecord(ctx context.Context, r *analysis.Call, n int, id func(int) string, use func(int, *nsip.AnimalDetails)) (read, unread int, err error) {
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.Parallel())
	for k := range n {
		g.Go(func() error {
			d, err := r.Details(gctx, id(k))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				unread++
				return ctx.Err()
			}
			read++
			use(k, d)
			return nil
		})
	}
	return read, unread, g.Wait()
}

// FromRecordsNote says that n of the shown ranked rows took their sex,
// birth date and genotyped status from the animal's record; "" for none.
func FromRecordsNote(n, shown int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("sex, birth date and genotyped of %d of the %d ranked animals read from each one's record (getAnimalDetails), as NSIP's search rows state none of them", n, shown)
}
