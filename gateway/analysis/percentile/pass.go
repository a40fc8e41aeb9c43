package percentile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Which way a call's percentiles are found is chosen per breed, by what
// the question costs in lookups: a pass costs the breed's pages and the
// date read after them; the binary search about two pages per trait and
// log2(pages) and a date per value. A pass kept for the evaluation NSIP
// gives now costs nothing and is always used.

// TopPercents computes the top_percent of every value in qs, answered in
// the order of qs: from the breed's pass where it is kept or costs fewer
// lookups than the binary search, by the binary search otherwise.
func (pc *Finder) TopPercents(ctx context.Context, qs []Query) ([]pctResult, error) {
	out := make([]pctResult, len(qs))
	if len(qs) == 0 {
		return out, nil
	}
	if err := pc.openEvaluation(ctx); err != nil {
		return nil, err
	}
	left, err := pc.fromPasses(ctx, qs, out)
	if err != nil || len(left) == 0 {
		return out, err
	}
	pc.searched = true
	sub := make([]Query, len(left))
	for i, k := range left {
		sub[i] = qs[k]
	}
	res, err := pc.searchPercents(ctx, sub)
	if err != nil {
		return nil, err
	}
	for i, k := range left {
		out[k] = res[i]
	}
	return out, nil
}

// fromPasses answers the values of qs whose breed has a pass, and returns
// the indexes of those left to the binary search, in order.
func (pc *Finder) fromPasses(ctx context.Context, qs []Query, out []pctResult) ([]int, error) {
	var breeds []int
	of := map[int][]int{}
	for k, q := range qs {
		if _, ok := of[q.Breed]; !ok {
			breeds = append(breeds, q.Breed)
		}
		of[q.Breed] = append(of[q.Breed], k)
	}
	store := pc.r.Src.Passes()
	var left []int
	for _, b := range breeds {
		var p *breedpass.BreedPass
		if store != nil && pc.eval != "" {
			var err error
			if p, err = pc.passOf(ctx, store, b, qs, of[b]); err != nil {
				return nil, err
			}
		} else if store != nil {
			pc.noteNoDate(b)
		}
		if p == nil {
			left = append(left, of[b]...)
			continue
		}
		pc.passed = true
		for _, k := range of[b] {
			if v, ok := p.TopPercent(qs[k].Code, qs[k].Value); ok {
				out[k] = pctResult{TopPercent: &v}
			} else {
				out[k] = pctResult{Why: fmt.Sprintf("no animal of NSIP's search of breed %d has %s", b, qs[k].Code)}
			}
		}
	}
	slices.Sort(left)
	return left, nil
}

// noteNoDate says why breed has no pass when the date was not read.
func (pc *Finder) noteNoDate(breed int) {
	if err := pc.evalErr; errors.Is(err, errPctLimit) || errors.Is(err, analysis.ErrCeiling) {
		pc.note(breed, "not read: "+pc.limitWhy(limitOf(err)))
		return
	}
	pc.note(breed, "not read: NSIP's last-update date could not be read, so a pass could not be shown to be of one evaluation")
}

// note records what became of breed's pass, for the answer.
func (pc *Finder) note(breed int, what string) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.passNotes == nil {
		pc.passNotes = map[string]string{}
	}
	pc.passNotes[fmt.Sprint(breed)] = what
}

// passOf is breed's pass under the call's evaluation: kept, or read now
// when that costs fewer lookups than the binary search of the values ks
// of qs and fits in what the call has left; nil, with a note why, when
// the binary search is to answer instead.
func (pc *Finder) passOf(ctx context.Context, store analysis.Passes, breed int, qs []Query, ks []int) (*breedpass.BreedPass, error) {
	if p := store.Load(ctx, breed, pc.eval); p != nil {
		pc.note(breed, fmt.Sprintf("kept from an earlier read of its %d animals under this evaluation: no search page read", p.Animals()))
		return p, nil
	}
	start := time.Now()
	first, total, err := pc.passPage(ctx, breed, 0)
	if err != nil {
		return nil, pc.passFailed(ctx, store, breed, err)
	}
	took := time.Since(start)
	pc.mu.Lock()
	pc.breedTotal[breed] = max(pc.breedTotal[breed], total)
	pc.mu.Unlock()
	pages := scan.PagesOf(total)
	cost, search := pages, searchCost(pages, qs, ks)
	if cost > search {
		pc.note(breed, fmt.Sprintf("not read: the binary search takes about %d lookups for these values, a pass over the breed's %d pages %d", search, pages, cost))
		return nil, nil
	}
	if cost > pc.lookupsLeft() {
		pc.fill(ctx, store, breed, fmt.Sprintf("its %d pages take more lookups than this call has left", pages))
		return nil, nil
	}
	if long := pc.passTime(pages, took); long != "" {
		pc.fill(ctx, store, breed, long)
		return nil, nil
	}
	pc.maxBytes = store.MaxBytes()
	pc.kept.Store(0) // each breed's pass is bounded on its own
	p, why, err := pc.readPass(ctx, breed, first, total)
	if err != nil {
		return nil, pc.passFailed(ctx, store, breed, err)
	}
	if why == "" {
		why, err = pc.passClose(ctx)
		if err != nil {
			return nil, pc.passFailed(ctx, store, breed, err)
		}
	}
	if why != "" {
		pc.note(breed, "not used: "+why)
		return nil, nil
	}
	store.Keep(ctx, p)
	pc.note(breed, fmt.Sprintf("read now: %d pages, %d animals", pages, p.Animals()))
	return p, nil
}

// searchCost is about what the binary search takes for the values ks of
// qs over pages: the ends of each trait, then a search and a date a value.
func searchCost(pages int, qs []Query, ks []int) int {
	seen := map[string]bool{}
	n := 0
	for _, k := range ks {
		if !seen[qs[k].Code] {
			seen[qs[k].Code] = true
			n += 2
		}
		n += bits.Len(uint(pages)) + 2
	}
	return n
}

// lookupsLeft is how many more lookups the percentiles may take: their
// own limit, or the call's ceiling when that leaves fewer.
func (pc *Finder) lookupsLeft() int {
	pc.mu.Lock()
	left := Lookups - pc.Used
	pc.mu.Unlock()
	if u := pc.r.Src.Upstream(); u.Ceiling > 0 {
		left = min(left, u.Ceiling-u.Lookups)
	}
	return left
}

// passFailed is what a failed read of a pass means: the call's own end
// ends it; a limit or an NSIP failure leaves the values to the binary
// search, which meets the limit again and says so, or reads other pages.
func (pc *Finder) passFailed(ctx context.Context, store analysis.Passes, breed int, err error) error {
	switch {
	case ctx.Err() != nil && !errors.Is(err, analysis.ErrCeiling):
		return err
	case errors.Is(err, analysis.ErrTimeLimit):
		// The pages read are cached: the background read goes on from them.
		pc.fill(ctx, store, breed, "not read whole: "+pc.limitWhy(analysis.ErrTimeLimit))
	case errors.Is(err, errPctLimit) || errors.Is(err, analysis.ErrCeiling):
		pc.note(breed, "not read whole: "+pc.limitWhy(limitOf(err)))
	default:
		pc.note(breed, "not read: a page of NSIP's search of the breed could not be read ("+pc.r.Src.ErrorCode(err)+")")
	}
	return nil
}

// fill has breed's pass read in the background when the store can, and
// notes why it is not read in this call, and how the caller follows the
// read.
func (pc *Finder) fill(ctx context.Context, store analysis.Passes, breed int, why string) {
	r := store.FillFor(ctx, breed, pc.eval)
	switch {
	case r.Cannot:
		pc.note(breed, "not read: "+why)
	case r.Why != "":
		pc.note(breed, "not read: "+why+"; nor in the background: "+r.Why)
	case r.TaskID != "":
		pc.mu.Lock()
		pc.passTask = r.TaskID
		pc.mu.Unlock()
		pc.note(breed, "being read in the background as task "+r.TaskID+" (task_id), since "+why+
			"; follow it with tasks/get, which counts the pages read, and ask again once it has completed: the answer then comes from the pass")
	case r.Follow != "":
		pc.note(breed, "being read in the background, since "+why+"; a later call uses it; the read cannot be followed as a task: "+r.Follow)
	default:
		pc.note(breed, "being read in the background, since "+why+"; a later call uses it")
	}
}

// passTime says why the rest of a pass would not be read within the
// call's time, judged by how long its first page took and how many pages
// go at once; "" when it would, or when the Source does not say how long
// the call has left.
func (pc *Finder) passTime(pages int, first time.Duration) string {
	lim := pc.r.Src.Limits()
	if lim.TimeLeft == nil {
		return ""
	}
	w := pc.r.Parallel()
	need := time.Duration((pages-1+w-1)/w+1) * first // the pages left, then the date
	// The first page may have come from the cache, and the rest wait for
	// the rate limit whatever NSIP's speed: the pass takes at least the
	// time the limit lets its requests through in.
	if per, burst := lim.PerSecond, lim.Burst; per > 0 && pages > burst {
		need = max(need, time.Duration(float64(pages-burst)/per*float64(time.Second)))
	}
	if left := lim.TimeLeft(); need > left {
		return fmt.Sprintf("its %d pages would take about %s at %s a page, %d at once, where the call has %s left",
			pages, need.Round(time.Second), first.Round(time.Millisecond), w, left.Round(time.Second))
	}
	return ""
}

// passPage reads page n of breed's unsorted search under the call's
// evaluation, as one of the percentiles' lookups.
func (pc *Finder) passPage(ctx context.Context, breed, n int) ([]nsip.AnimalRow, int, error) {
	return pc.passPageOf(ctx, breed, "", n)
}

// passPageOf is passPage of the breed's animals of one sex ("Male" or
// "Female"), or of all ("").
func (pc *Finder) passPageOf(ctx context.Context, breed int, sex string, n int) ([]nsip.AnimalRow, int, error) {
	if !pc.take() {
		return nil, 0, errPctLimit
	}
	q := analysis.Query{SearchParams: nsip.SearchParams{BreedID: breed, Criteria: nsip.SearchCriteria{Gender: sex}}, Evaluation: pc.eval}
	rows, total, err := scan.SearchPages(pc.r, &q)(ctx, n)
	if errors.Is(err, analysis.ErrCeiling) {
		pc.untake() // refused, not read
	}
	return rows, total, err
}

// errPassBound stops a pass whose pages came to more than it may keep.
var errPassBound = errors.New("a breed pass's pages are larger than its bound")

// keep counts the rows of a page a pass keeps and reports whether the
// pages kept so far are over the pass's bound (none when maxBytes is 0).
// Each page is counted as it comes, so that an NSIP that answers its
// first page honestly and pads the rest is stopped at the bound, not
// after the last page.
func (pc *Finder) keep(rows []nsip.AnimalRow) bool {
	return pc.kept.Add(rowsBytes(rows)) > pc.maxBytes && pc.maxBytes > 0
}

// boundWhy says that breed's pages were refused for their size.
func (pc *Finder) boundWhy(breed int) string {
	return fmt.Sprintf("NSIP's pages of breed %d came to more than the %d bytes a breed pass may hold (a quarter of NSIP_CACHE_MAX_BYTES) before the last was read, so the pass was refused", breed, pc.maxBytes)
}

// rowBytes is about what a row takes in memory: its strings and their
// headers, and its traits and indexes.
func rowBytes(r *nsip.AnimalRow) int64 {
	n := int64(len(r.LPNID)+len(r.Sire)+len(r.Dam)+len(r.Status)+len(r.RegistrationNumber)+len(r.Sex)+
		len(r.DateOfBirth)+len(r.BreedName)+len(r.FlockCode)+len(r.Genotyped)) + 10*16 + 8 + 2*24
	for _, t := range r.Traits {
		n += int64(len(t.Code)) + 40
	}
	for _, ix := range r.Indexes {
		n += int64(len(ix.Name)) + 24
	}
	return n
}

type passRead struct {
	rows  []nsip.AnimalRow
	total int
}

// rowsBytes is about what rows take in memory (rowBytes).
func rowsBytes(rows []nsip.AnimalRow) int64 {
	var n int64
	for i := range rows {
		n += rowBytes(&rows[i])
	}
	return n
}

// passPagesOf reads the pages of the breed's animals of one sex, or of
// all (sex ""), after the first, as many at once as the call may have
// lookups under way (readAhead), and checks them in order as every scan
// is checked (PageScan): full pages, NSIP's count unchanged, no animal
// twice, and every row of the breed. Each page is added to b as soon as
// the pages before it have been, and its rows let go; take, when set,
// sees each row first and says whether to add it. why is what failed, ""
// when none.
//
// Two bounds hold the memory: the rows of pages read but not yet added
// (keep) and the pass built so far, each to the pass's bound.
func (pc *Finder) passPagesOf(ctx context.Context, breed int, sex string, first []nsip.AnimalRow, total int, b *breedpass.Builder, take func(*nsip.AnimalRow) bool) (string, error) {
	if pc.keep(first) {
		return pc.boundWhy(breed), nil
	}
	ctx, cancel := context.WithCancel(ctx)
	reads := pc.readAhead(ctx, breed, sex, first, total)
	defer func() { cancel(); <-reads.done }()
	sc := scan.NewPageScan(reads.page, len(reads.got))
	added, why := 0, ""
	for sc.More() {
		page, _, err := sc.Next(ctx)
		switch {
		case errors.Is(err, errPassBound):
			return pc.boundWhy(breed), nil
		case err != nil:
			return "", err
		}
		for i := range page {
			row := &page[i]
			if row.BreedID != 0 && row.BreedID != breed && why == "" {
				why = fmt.Sprintf("NSIP's search of breed %d returned %s of breed %d", breed, row.LPNID, row.BreedID)
			}
			if take == nil || take(row) {
				b.Add(*row)
			}
		}
		added += len(page)
		pc.kept.Add(-rowsBytes(page)) // let go, now in the pass
		if pc.maxBytes > 0 && b.Bytes() > pc.maxBytes {
			return pc.boundWhy(breed), nil
		}
	}
	switch {
	case !sc.Complete():
		return fmt.Sprintf("NSIP's pages of the breed were not consistent (%s)", sc.Inconsistency()), nil
	case added != total:
		return fmt.Sprintf("NSIP's pages of the breed held %d animals where its count is %d", added, total), nil
	}
	return why, nil
}

// pageReads are a breed's pages after the first, read ahead of the order
// they are taken in, each page taken once (page).
type pageReads struct {
	got   []passRead
	ready []chan struct{} // closed once got[n] is set
	done  chan struct{}   // closed once every reader has returned
	mu    sync.Mutex
	ferr  error // the first read that failed
}

// readAhead starts reading the pages after first, as many at once as the
// call may have lookups under way; a page whose rows are over the bound
// (keep) or a failed read stops the reads, as ctx's end does.
func (pc *Finder) readAhead(ctx context.Context, breed int, sex string, first []nsip.AnimalRow, total int) *pageReads {
	pages := scan.PagesOf(total)
	r := &pageReads{got: make([]passRead, pages), ready: make([]chan struct{}, pages), done: make(chan struct{})}
	for n := range r.ready {
		r.ready[n] = make(chan struct{})
	}
	r.got[0] = passRead{first, total}
	close(r.ready[0])
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(pc.r.Parallel(), max(1, pages-1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				rows, t, err := pc.passPageOf(ctx, breed, sex, n)
				if err == nil && pc.keep(rows) {
					rows, err = nil, errPassBound // not kept: the read stops
				}
				r.mu.Lock()
				if err != nil && r.ferr == nil {
					r.ferr = err
				}
				r.got[n] = passRead{rows, t}
				r.mu.Unlock()
				close(r.ready[n])
				if err == nil && pc.pageRead != nil {
					pc.pageRead()
				}
			}
		}()
	}
	go func() {
		defer close(next)
		for n := 1; n < pages && !r.failed(); n++ {
			select {
			case next <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(r.done) }()
	return r
}

func (r *pageReads) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ferr != nil
}

// page is page n once read, its rows let go by the reads; a page never
// read (the reads stopped at a failure) is that failure.
func (r *pageReads) page(ctx context.Context, n int) ([]nsip.AnimalRow, int, error) {
	select {
	case <-r.ready[n]:
	case <-r.done:
		select {
		case <-r.ready[n]:
		default:
			r.mu.Lock()
			defer r.mu.Unlock()
			return nil, 0, cmp.Or(r.ferr, error(errPassBound))
		}
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.got[n]
	r.got[n] = passRead{}
	if p.rows == nil && r.ferr != nil {
		return nil, 0, r.ferr
	}
	return p.rows, p.total, nil
}

// passClose reads the date again after the pages: "" when they are shown
// to be of the call's evaluation, else why not.
func (pc *Finder) passClose(ctx context.Context) (string, error) {
	d, err := pc.evaluation(ctx, true)
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, errPctLimit) || errors.Is(err, analysis.ErrCeiling)):
		return "", err
	case err != nil:
		return fmt.Sprintf("NSIP's last-update date could not be read again after the pages (%s), so they are not shown to be of one evaluation", pc.r.Src.ErrorCode(err)), nil
	case d != pc.eval:
		pc.mu.Lock()
		pc.newer = d
		pc.mu.Unlock()
		return fmt.Sprintf("NSIP published a new evaluation (%s, then %s) while the breed's pages were read", pc.eval, d), nil
	}
	return "", nil
}

// passMethod is how top_percent is counted from a pass.
const passMethod = "top_percent = share of the breed's animals with the EBV that are as good or better (by the trait's preferred direction; lower first for a trait with none; ties count as as good), " +
	"counted exactly over every animal of the breed from one pass over NSIP's search of the breed, 100 a page, checked (full pages, NSIP's count unchanged, no animal twice, every row of the breed) " +
	"and read under one evaluation (NSIP's last-update date the same before and after the pages); the pass is kept for later calls under that evaluation"

// passBlock says in the answer's percentiles how their values were found.
func (pc *Finder) passBlock(out *Percentiles) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	switch {
	case pc.passed && pc.searched:
		out.Via = scan.ViaPass + " and " + scan.ViaSearch
		out.Method = passMethod + "; for breeds without a pass: " + out.Method
	case pc.passed:
		out.Via, out.Method = scan.ViaPass, passMethod
	case pc.searched:
		out.Via = scan.ViaSearch
	}
	if len(pc.passNotes) > 0 {
		out.BreedPass = pc.passNotes
	}
	out.TaskID = pc.passTask
}

// ReadBreedPass reads breed's pass over src on its own, beyond any call:
// NSIP's last-update date, every page of the breed and the date again,
// checked as a call's pass is. It is nil with why when the pages do not
// pass the checks, or when the pass would take more than maxBytes (0 for
// no bound), which the first page shows. evaluation, when set, is the
// date the pass must be of. progress, when set, is told how many of the
// breed's pages have been read, from the first on.
func ReadBreedPass(ctx context.Context, src analysis.Source, log *slog.Logger, breed int, evaluation string, maxBytes int64, progress func(read, pages int)) (*breedpass.BreedPass, string, error) {
	pc := NewFinder(&analysis.Call{Src: src, Def: &analysis.Def{Def: tooldef.Def{Name: "breed pass"}}, Log: log})
	pc.unbounded = true
	if err := pc.openEvaluation(ctx); err != nil {
		return nil, "", err
	}
	switch {
	case pc.eval == "":
		return nil, "NSIP's last-update date could not be read", nil
	case evaluation != "" && pc.eval != evaluation:
		return nil, fmt.Sprintf("NSIP's evaluation is now %s, not %s", pc.eval, evaluation), nil
	}
	pc.maxBytes = maxBytes
	first, total, err := pc.passPage(ctx, breed, 0)
	if err != nil {
		return nil, "", err
	}
	if est := breedpass.NewPassOf(breed, pc.eval, first).Bytes() * int64(scan.PagesOf(total)); maxBytes > 0 && est > maxBytes {
		return nil, fmt.Sprintf("its %d animals would take about %d bytes, more than the %d passes may hold (a share of NSIP_CACHE_MAX_BYTES: raise it to keep this breed)", total, est, maxBytes), nil
	}
	var read atomic.Int64
	if progress != nil {
		pages := scan.PagesOf(total)
		if facts.Unsexed(first) {
			// Read as its rams and its ewes: each half's last page may be
			// part full, and each half's first page is read after this one.
			pages += 2
		}
		progress(int(read.Add(1)), pages)
		pc.pageRead = func() { progress(int(read.Add(1)), pages) }
	}
	p, why, err := pc.readPass(ctx, breed, first, total)
	if progress != nil && err == nil && why == "" {
		progress(int(read.Load()), int(read.Load())) // the pages it took, now known
	}
	if err == nil && why == "" {
		why, err = pc.passClose(ctx)
	}
	if err != nil || why != "" {
		return nil, why, err
	}
	return p, "", nil
}

// readPass reads the whole breed for its pass, given its first unfiltered
// page. NSIP's live rows record no sex, and a pass answers questions by
// sex, so the breed is read as its rams (gender Male) and its ewes (gender
// Female), each row taking the sex it was returned for: about as many
// pages as the breed's own, and exact when the two are apart and add up
// to the breed's count. When they do not (NSIP ignored gender, or some
// animals have no sex), the breed's own pages are read, and the rows found
// among the rams or the ewes take that sex. Rows that record a sex are
// read as they are.
func (pc *Finder) readPass(ctx context.Context, breed int, first []nsip.AnimalRow, total int) (*breedpass.BreedPass, string, error) {
	b := breedpass.NewBuilder(breed, pc.eval)
	if !facts.Unsexed(first) {
		why, err := pc.passPagesOf(ctx, breed, "", first, total, b, nil)
		if err != nil || why != "" {
			return nil, why, err
		}
		return b.Pass(), "", nil
	}
	sexOf := map[string]string{}
	both := false // an animal returned for both sexes: NSIP ignored gender
	for _, sex := range []string{"Male", "Female"} {
		f, t, err := pc.passPageOf(ctx, breed, sex, 0)
		if err != nil {
			return nil, "", err
		}
		if pc.pageRead != nil {
			pc.pageRead()
		}
		why, err := pc.passPagesOf(ctx, breed, sex, f, t, b, func(r *nsip.AnimalRow) bool {
			if _, twice := sexOf[r.LPNID]; twice {
				sexOf[r.LPNID], both = "", true
				return false
			}
			sexOf[r.LPNID], r.Sex = sex, sex
			return true
		})
		if err != nil || why != "" {
			return nil, why, err
		}
	}
	if !both && b.Animals() == total {
		return b.Pass(), "", nil
	}
	// The halves are not used: the breed's own pages are counted afresh.
	pc.kept.Store(0)
	b = breedpass.NewBuilder(breed, pc.eval)
	why, err := pc.passPagesOf(ctx, breed, "", first, total, b, func(r *nsip.AnimalRow) bool {
		r.Sex = sexOf[r.LPNID]
		return true
	})
	if err != nil || why != "" {
		return nil, why, err
	}
	return b.Pass(), "", nil
}
