package percentile

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Breed percentiles. An EBV's top_percent is the share of the breed's
// animals with that EBV whose value is as good as it or better, by the
// trait's preferred direction in the glossary (lower first for a trait
// with none), in percent: the breed's best animal is top 1/n.
//
// It is found exactly from NSIP's own search of the breed sorted by the
// trait: no list of the breed is kept. The first and last pages show
// NSIP's order and where the animals without the EBV sit; then, for each
// value, a search over the pages finds the first position past it, every
// page read once per call. Each page it reads is guessed from the values
// read so far (EBVs are spread smoothly, so a guess by straight line lands
// on or near the page), every other one by halving as a binary search
// would: a few lookups per value where halving alone takes log2(pages),
// and never more than about twice that. The guesses choose pages, not
// counts: the position is read off the pages themselves. A
// count of positions is exact however NSIP orders animals that tie, as
// long as each page is a slice of one sorted order, which is what the
// pages read are checked for: full pages before the last, the count NSIP
// gives unchanged, no animal on two pages, every page and every pair of
// pages read in one order, animals without the EBV only at one end. A
// trait that fails any check has no percentile, and says why.
//
// Every percentile rests on one NSIP evaluation. The call reads NSIP's
// last-update date before its first page, keys every page it reads by
// that date (so that a page cached under an earlier evaluation is not
// read under a later one), and reads the date again after the pages of
// each value: dates only move forward, so the same date on both sides
// puts every page between under it. A value whose pages straddle a new
// date has no percentile, and says so; when the date cannot be read, the
// percentiles are computed but say they are not tied to one evaluation.

// Lookups bounds the search pages percentiles may read in one call: how
// many lookups percentiles may add to a call.
const Lookups = 150

var Param = param.Spec{Name: "percentiles", Kind: param.Boolean, Default: false, Example: true}

// pctTrait is what the pages read show of one trait of one breed.
type pctTrait struct {
	code  string
	total int // the animals of NSIP's listing: its count less missing
	// missing are the animals NSIP's count holds that its listing, short
	// on its last page, does not: each could be anywhere in the order, so
	// a share is proven only within a range (topPercentOf).
	missing  int
	pages    map[int][]nsip.AnimalRow
	seen     map[string]int // LPN ID -> page it was on
	order    int            // +1 highest first, -1 lowest first, 0 all equal
	head     int            // animals without the EBV before the others
	tail     int            // and after them
	n        int            // animals with the EBV
	bad      string         // why no percentile of this trait can be proven
	allEqual float64
	ready    bool
	reads    int // pages this trait has read, for a value's own count
}

// Finder computes top_percent for one call; its traits share pages.
// The values of different traits are computed at once (parallel.go);
// mu guards what they share. A trait's own state is held by one value at
// a time.
type Finder struct {
	r      *analysis.Call
	mu     sync.Mutex
	traits map[[2]any]*pctTrait // {breed, code}
	Used   int
	short  int // values not computed for want of lookups or time
	// breedTotal is the largest count of each breed's animals a page has
	// shown, which bounds the lookups a value of the breed may take.
	breedTotal map[int]int
	sched      *pctSched // admitting values, while they are computed
	limit      error     // the limit that stopped the first value not computed: errPctLimit, ErrTimeLimit or ErrCeiling
	// subject and missing, for one animal's percentiles, are its LPN ID
	// and the traits a limit stopped, which the advice names.
	subject string
	missing []string

	evalRead bool
	eval     string // NSIP's last-update date the pages are read under
	evalErr  error  // why it could not be read
	newer    string // a later date seen during the call

	// What the breeds' passes did (pass.go): by breed, and
	// whether any value came from one or from the binary search.
	passNotes        map[string]string
	passed, searched bool
	// unbounded lifts the percentiles' own limit of lookups, for a pass
	// read in the background, which has its own.
	unbounded bool
	// passTask is the caller's task following a pass read in the
	// background; pageRead, when set, is told of each page a pass reads
	// after the first.
	passTask string
	pageRead func()
	// maxBytes bounds the rows a pass keeps (0 for none); kept counts
	// them as its pages come (keep).
	maxBytes int64
	kept     atomic.Int64
}

func NewFinder(r *analysis.Call) *Finder {
	return &Finder{r: r, traits: map[[2]any]*pctTrait{}, breedTotal: map[int]int{}}
}

var errPctLimit = errors.New("percentile lookups exhausted")

func hasT(row nsip.AnimalRow, code string) (float64, bool) {
	for _, t := range row.Traits {
		if strings.EqualFold(t.Code, code) {
			return t.Value, true
		}
	}
	return 0, false
}

// page reads page p of t, checking it against those read before.
func (pc *Finder) page(ctx context.Context, breed int, t *pctTrait, p int) ([]nsip.AnimalRow, error) {
	if rows, ok := t.pages[p]; ok {
		return rows, nil
	}
	if !pc.take() {
		return nil, errPctLimit
	}
	t.reads++
	q := analysis.Query{SearchParams: nsip.SearchParams{BreedID: breed, SortedTrait: t.code}, Evaluation: pc.eval}
	results, count, err := scan.SearchPages(pc.r, &q)(ctx, p)
	if errors.Is(err, analysis.ErrCeiling) {
		pc.untake() // refused, not read
		t.reads--
	}
	if err != nil {
		return nil, err
	}
	if t.pages == nil {
		t.pages, t.seen, t.total = map[int][]nsip.AnimalRow{}, map[string]int{}, count
	}
	pc.mu.Lock()
	grew := count > pc.breedTotal[breed]
	pc.breedTotal[breed] = max(pc.breedTotal[breed], count)
	s := pc.sched
	pc.mu.Unlock()
	if grew && s != nil {
		s.refit()
	}
	results = slimRows(results, t.code)
	t.pages[p] = results
	if count != t.total+t.missing && t.bad == "" {
		t.bad = fmt.Sprintf("NSIP's count of the breed changed between pages (%d, then %d)", t.total+t.missing, count)
	}
	last := scan.PagesOf(t.total) - 1
	want := scan.PageSize
	if p == last {
		want = t.total - last*scan.PageSize
	}
	if p == last && len(results) < want && t.missing == 0 && t.bad == "" {
		// The listing ends before NSIP's count: positions in it are still
		// exact, and the animals counted but not listed bound the share.
		t.missing = want - len(results)
		t.total -= t.missing
		want = len(results)
	}
	if len(results) != want && t.bad == "" {
		t.bad = fmt.Sprintf("page %d of the sorted breed held %d rows where NSIP's count of %d implies %d", p, len(results), t.total, want)
	}
	for _, row := range results {
		// Each page is read once, so a row seen before is a repeat, on
		// another page or this one.
		if q, ok := t.seen[row.LPNID]; ok && t.bad == "" {
			if q == p {
				t.bad = fmt.Sprintf("%s was twice on page %d, so another animal was skipped", row.LPNID, p)
			} else {
				t.bad = fmt.Sprintf("%s was on pages %d and %d, so another animal was skipped", row.LPNID, q, p)
			}
		}
		t.seen[row.LPNID] = p
	}
	if t.ready {
		t.check()
	}
	return results, nil
}

// slimRows is what the binary search keeps of a page of trait code: each
// row's LPN ID and its value of code, all the search and its checks read.
// The rest of a row (its other traits, indexes and text) is let go, so
// that the pages a trait keeps for the call take a few kilobytes each
// whatever NSIP sent in them.
func slimRows(rows []nsip.AnimalRow, code string) []nsip.AnimalRow {
	out := make([]nsip.AnimalRow, len(rows))
	for i, r := range rows {
		out[i].LPNID = r.LPNID
		for _, t := range r.Traits {
			if strings.EqualFold(t.Code, code) {
				out[i].Traits = []nsip.Trait{t}
				break
			}
		}
	}
	return out
}

// check holds every page read to one order, with animals without the EBV
// only where the ends showed them.
func (t *pctTrait) check() {
	if t.bad != "" {
		return
	}
	ps := make([]int, 0, len(t.pages))
	for p := range t.pages {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	prev, have := 0.0, false
	for _, p := range ps {
		for j, row := range t.pages[p] {
			pos := p*scan.PageSize + j
			v, ok := hasT(row, t.code)
			inside := pos >= t.head && pos < t.total-t.tail
			if ok != inside {
				t.bad = fmt.Sprintf("animals without %s are not all at one end of NSIP's order (%s at position %d)", t.code, row.LPNID, pos+1)
				return
			}
			if !ok {
				continue
			}
			if have && (t.order == 1 && v > prev || t.order == -1 && v < prev || t.order == 0 && v != prev) {
				t.bad = fmt.Sprintf("NSIP's pages sorted by %s are not in one order (%g after %g at position %d)", t.code, v, prev, pos+1)
				return
			}
			prev, have = v, true
		}
	}
}

// first is the first position at or after from where pred holds, given
// that it holds from some position to the end: a search over pages, then
// within the page. A page whose first row fails pred and whose last row
// holds it ends the search at once. guess, when set, names the page to
// read next within [lo, hi) from the values read so far; guesses alternate
// with halving, so that a poor guess costs at most as many reads again as
// halving alone would have taken.
func (pc *Finder) first(ctx context.Context, breed int, t *pctTrait, pred func(nsip.AnimalRow) bool, guess func(lo, hi int) int) (int, error) {
	lo, hi := 0, scan.PagesOf(t.total)
	for step := 0; lo < hi; step++ {
		mid := (lo + hi) / 2
		if guess != nil && step%2 == 0 {
			mid = min(max(guess(lo, hi), lo), hi-1)
		}
		rows, err := pc.page(ctx, breed, t, mid)
		if err != nil {
			return 0, err
		}
		if len(rows) > 0 && pred(rows[len(rows)-1]) {
			if !pred(rows[0]) {
				return mid*scan.PageSize + slices.IndexFunc(rows, pred), nil
			}
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == scan.PagesOf(t.total) {
		return t.total, nil
	}
	rows, err := pc.page(ctx, breed, t, lo)
	if err != nil {
		return 0, err
	}
	if j := slices.IndexFunc(rows, pred); j >= 0 {
		return lo*scan.PageSize + j, nil
	}
	return lo*scan.PageSize + len(rows), nil
}

// guessPage is the page where t's values pass v (past turns true), by
// straight-line interpolation between the two values read so far that
// are nearest to it on either side; the middle of [lo, hi) when no value
// read lies on one side. It only chooses which page to read: the count is
// still found, and checked, from the pages themselves.
func (t *pctTrait) guessPage(v float64, past func(float64) bool, lo, hi int) int {
	var pa, pb int
	var xa, xb float64
	haveA, haveB := false, false
	for p, rows := range t.pages {
		// A page's ends bound its values, which are in order, so they
		// are all a guess needs of it.
		for _, j := range []int{0, len(rows) - 1} {
			if j < 0 || len(rows) == 0 {
				continue // a page past the listing's end holds none
			}
			x, ok := hasT(rows[j], t.code)
			if !ok {
				continue
			}
			pos := p*scan.PageSize + j
			if !past(x) && (!haveA || pos > pa) {
				pa, xa, haveA = pos, x, true
			}
			if past(x) && (!haveB || pos < pb) {
				pb, xb, haveB = pos, x, true
			}
		}
	}
	if !haveA || !haveB || xa == xb || pb < pa {
		return (lo + hi) / 2
	}
	f := min(max((v-xa)/(xb-xa), 0), 1)
	return (pa + int(f*float64(pb-pa))) / scan.PageSize
}

// traitOf is the state of breed's trait code, new when none is yet.
func (pc *Finder) traitOf(breed int, code string) (*pctTrait, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	key := [2]any{breed, code}
	if t, ok := pc.traits[key]; ok {
		return t, true
	}
	t := &pctTrait{code: code}
	pc.traits[key] = t
	return t, false
}

// take counts one lookup of the percentiles, false when none is left.
func (pc *Finder) take() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.Used >= Lookups && !pc.unbounded {
		return false
	}
	pc.Used++
	return true
}

// untake gives back a lookup the call's ceiling refused unread.
func (pc *Finder) untake() {
	pc.mu.Lock()
	pc.Used--
	pc.mu.Unlock()
}

// trait reads what the ends of breed's order by code show.
func (pc *Finder) trait(ctx context.Context, breed int, code string) (*pctTrait, error) {
	t, _ := pc.traitOf(breed, code)
	// A trait a limit stopped part way is read on from the pages it has,
	// never taken as ready with no animals counted.
	if t.ready || t.bad != "" {
		return t, nil
	}
	if !facts.Sortable(code) {
		t.bad = "NSIP cannot sort by " + code
		return t, nil
	}
	first, err := pc.page(ctx, breed, t, 0)
	if err != nil {
		return t, err
	}
	if t.total+t.missing == 0 || len(first) == 0 {
		t.bad = "NSIP's search of the breed returned no animals"
		return t, nil
	}
	lastP := scan.PagesOf(t.total) - 1
	last, err := pc.page(ctx, breed, t, lastP)
	if err == nil && len(last) == 0 && t.missing > 0 && t.total > 0 {
		// The listing ended a page before the count: its last page is
		// the one before.
		last, err = pc.page(ctx, breed, t, scan.PagesOf(t.total)-1)
	}
	if err != nil {
		return t, err
	}
	if t.bad != "" || len(last) == 0 {
		return t, nil
	}
	_, headOK := hasT(first[0], code)
	_, tailOK := hasT(last[len(last)-1], code)
	switch {
	case !headOK && !tailOK:
		t.bad = "animals without " + code + " are at both ends of NSIP's order"
		return t, nil
	case !headOK:
		end, err := pc.first(ctx, breed, t, func(row nsip.AnimalRow) bool { _, ok := hasT(row, code); return ok }, nil)
		if err != nil {
			return t, err
		}
		t.head = end
	case !tailOK:
		start, err := pc.first(ctx, breed, t, func(row nsip.AnimalRow) bool { _, ok := hasT(row, code); return !ok }, nil)
		if err != nil {
			return t, err
		}
		t.tail = t.total - start
	}
	t.n = t.total - t.head - t.tail
	if t.n <= 0 {
		t.bad = "no animal of the breed has " + code
		return t, nil
	}
	// NSIP's order: the first value with the EBV against the last.
	hp, hj := t.head/scan.PageSize, t.head%scan.PageSize
	tp, tj := (t.total-t.tail-1)/scan.PageSize, (t.total-t.tail-1)%scan.PageSize
	hr, err := pc.page(ctx, breed, t, hp)
	if err != nil {
		return t, err
	}
	tr, err := pc.page(ctx, breed, t, tp)
	if err != nil {
		return t, err
	}
	if hj >= len(hr) || tj >= len(tr) {
		t.bad = "NSIP's pages were not as long as its count"
		return t, nil
	}
	a, _ := hasT(hr[hj], code)
	b, _ := hasT(tr[tj], code)
	switch {
	case a > b:
		t.order = 1
	case a < b:
		t.order = -1
	default:
		t.allEqual = a
	}
	t.ready = true
	t.check()
	return t, nil
}

// evaluation reads NSIP's last-update date, as one of the lookups: as
// NSIP gave it recently to open a computation, or (now) asked after pages
// to close one.
func (pc *Finder) evaluation(ctx context.Context, now bool) (string, error) {
	if !pc.take() {
		return "", errPctLimit
	}
	read := pc.r.Evaluation
	if now {
		read = pc.r.EvaluationNow
	}
	d, err := read(ctx)
	if errors.Is(err, analysis.ErrCeiling) {
		pc.untake() // refused, not read
	}
	return d, err
}

// OpenEvaluation reads NSIP's last-update date before the first page, once
// a call; the values computed at once all read their pages under it.
func (pc *Finder) openEvaluation(ctx context.Context) error {
	if pc.evalRead {
		return nil
	}
	pc.evalRead = true
	d, err := pc.evaluation(ctx, false)
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case err != nil:
		pc.evalErr = err
	case d == "":
		pc.evalErr = errors.New("NSIP gave no date")
	default:
		pc.eval = d
	}
	return nil
}

// pctResult is one value's top_percent, or nil and why it has none;
// stopped when a limit (time or lookups) left it uncomputed.
type pctResult struct {
	TopPercent *float64
	Why        string
	Range      string // where TopPercent is not exact, the range proven
	stopped    bool
}

// topPercent is the share in percent of breed's animals with code whose
// EBV is as good as v or better; nil and why when not proven. cost is the
// lookups it took. The caller holds the trait (parallel.go) and has
// read the date (OpenEvaluation).
func (pc *Finder) topPercent(ctx context.Context, breed int, code string, v float64) (res pctResult, cost int, err error) {
	t, _ := pc.traitOf(breed, code)
	before := t.reads
	p, why, rng, short, err := pc.topPercentOf(ctx, breed, code, v)
	cost = t.reads - before
	if err != nil || pc.eval == "" || cost == 0 || short {
		return pctResult{TopPercent: p, Why: why, Range: rng, stopped: short}, cost, err
	}
	// New pages were read for this value: they are of pc.eval only if the
	// date still is.
	d, derr := pc.evaluation(ctx, true)
	if !errors.Is(derr, errPctLimit) && !errors.Is(derr, analysis.ErrCeiling) {
		cost++
	}
	switch {
	case derr != nil && ctx.Err() != nil:
		return pctResult{}, cost, derr
	case errors.Is(derr, errPctLimit) || errors.Is(derr, analysis.ErrCeiling):
		return pctResult{Why: pc.stopped(derr), stopped: true}, cost, nil
	case derr != nil && p == nil:
		return pctResult{Why: why}, cost, nil
	case derr != nil:
		return pctResult{Why: fmt.Sprintf("NSIP's last-update date could not be read again after the pages sorted by %s (%s), so they are not shown to be of one evaluation", code, pc.r.Src.ErrorCode(derr))}, cost, nil
	case d != pc.eval:
		// A check the mixed pages failed is this, not NSIP's paging.
		pc.mu.Lock()
		pc.newer = d
		pc.mu.Unlock()
		if !strings.HasPrefix(t.bad, "NSIP published") {
			t.bad = fmt.Sprintf("NSIP published a new evaluation (%s, then %s) while the pages sorted by %s were read; call again for percentiles of one evaluation", pc.eval, d, code)
		}
		return pctResult{Why: t.bad}, cost, nil
	}
	return pctResult{TopPercent: p, Why: why, Range: rng}, cost, nil
}

// TimeLimitSetting is the setting that raises the call's time limit,
// which an analysis's lookups share (the gateway's AnalysisTimeout).
const TimeLimitSetting = "NSIP_CALL_TIMEOUT"

// limitOf is which limit err is: the call's time limit (itself met as a
// ceiling), the percentiles' own lookups, or the call's lookup ceiling.
func limitOf(err error) error {
	switch {
	case errors.Is(err, analysis.ErrTimeLimit):
		return analysis.ErrTimeLimit
	case errors.Is(err, errPctLimit):
		return errPctLimit
	}
	return analysis.ErrCeiling
}

// stopped counts a value a limit stopped and says which limit it was.
func (pc *Finder) stopped(err error) string {
	lim := limitOf(err)
	pc.mu.Lock()
	pc.short++
	if pc.limit == nil || lim == analysis.ErrTimeLimit {
		// Once the time has passed no later value could have been
		// computed, whatever stopped an earlier one.
		pc.limit = lim
	}
	pc.mu.Unlock()
	return "not computed: " + pc.limitWhy(lim)
}

// limitWhy names limit as the answer states it: what it is, what was
// spent, and, where a setting raises it, that setting.
func (pc *Finder) limitWhy(limit error) string {
	u := pc.r.Src.Upstream()
	switch limit {
	case analysis.ErrTimeLimit:
		pc.mu.Lock()
		used := pc.Used
		pc.mu.Unlock()
		return fmt.Sprintf("the call's time limit of %d s passed (%d lookups read, %d of them for percentiles; %s raises the limit)", u.TimeLimitSeconds, u.Lookups, used, TimeLimitSetting)
	case errPctLimit:
		return fmt.Sprintf("the %d lookups for percentiles ran out, a fixed limit of each call", Lookups)
	}
	return fmt.Sprintf("the call's ceiling of %d lookups was reached, a fixed limit of %s", pc.r.Def.Ceiling, pc.r.Def.Name)
}

// advice is what the caller can do about limit with the same tool (or,
// where it takes no narrower question, the tool that does).
func (pc *Finder) advice(limit error) string {
	if limit == analysis.ErrTimeLimit {
		return "call again: the pages read so far are cached, so the next call gets further"
	}
	switch pc.r.Def.Name {
	case toolname.CompareAnimals:
		return "ask about fewer animals or traits (lpn_ids, traits)"
	case toolname.RankAnimals:
		return "ask for fewer rows (top_n) or fewer weighted traits"
	}
	if pc.subject != "" && len(pc.missing) > 0 {
		return fmt.Sprintf(`ask `+toolname.CompareAnimals+` with lpn_ids ["%s"], percentiles: true and traits %s, a few at a time`, pc.subject, param.JSONText(pc.missing))
	}
	return "ask " + toolname.CompareAnimals + " for this animal with percentiles: true and the traits still missing (traits), a few at a time"
}

// topPercentOf is topPercent from the pages, whatever their evaluation;
// short when the lookups ran out; rng, when the share is not exact, the
// range the pages prove.
func (pc *Finder) topPercentOf(ctx context.Context, breed int, code string, v float64) (p *float64, why, rng string, short bool, err error) {
	t, err := pc.trait(ctx, breed, code)
	if err == nil && t.bad == "" {
		var count int
		count, err = pc.count(ctx, breed, t, v)
		if err == nil && t.bad == "" && t.missing > 0 {
			why, rng = t.between(count)
			return nil, why, rng, false, nil
		}
		if err == nil && t.bad == "" {
			p := math.Round(10000*float64(count)/float64(t.n)) / 100
			return &p, "", "", false, nil
		}
	}
	switch {
	case errors.Is(err, errPctLimit) || errors.Is(err, analysis.ErrCeiling):
		return nil, pc.stopped(err), "", true, nil
	case err != nil && ctx.Err() != nil:
		return nil, "", "", false, err
	case err != nil:
		// A page NSIP did not answer leaves the trait without percentiles,
		// not the call without an answer.
		t.bad = fmt.Sprintf("a page of NSIP's search sorted by %s could not be read (%s)", code, pc.r.Src.ErrorCode(err))
	}
	return nil, t.bad, "", false, nil
}

// WithRange is the reason a trait has no exact share of animal id, given
// the reason so far (prev) and this value's (why, and rng, the range its
// pages prove, if any): the breed's reason once, then each animal's range.
func WithRange(prev, why, rng, id string) string {
	if rng == "" {
		return why
	}
	if strings.HasPrefix(prev, why) {
		why = prev
	}
	return why + fmt.Sprintf("; %s's share is %s", id, rng)
}

// between is why a value as good as or better than count animals of the
// listing has no exact share, with the range the listing proves: of the
// t.missing animals counted and not listed, none or all may have the EBV
// and be as good, so the share is at least count/(n+missing) and at most
// (count+missing)/(n+missing) (at count/n with none of them, in between).
// The ends are rounded outwards, so that the range holds the share.
func (t *pctTrait) between(count int) (why, rng string) {
	all := float64(t.n + t.missing)
	low := math.Floor(10000*float64(count)/all) / 100
	high := math.Ceil(10000*float64(count+t.missing)/all) / 100
	why = fmt.Sprintf("NSIP's count of the breed (%d) and its listing (%d) disagree, so the share is not exact: the %d counted and not listed may or may not be as good",
		t.total+t.missing, t.total, t.missing)
	return why, fmt.Sprintf("between %.2f and %.2f %%", low, high)
}

// count is how many animals with the EBV are as good as v or better.
func (pc *Finder) count(ctx context.Context, breed int, t *pctTrait, v float64) (int, error) {
	info, _ := nsip.LookupTrait(t.code)
	higher := info.Direction == "higher"
	if t.order == 0 {
		if v == t.allEqual || higher && t.allEqual > v || !higher && t.allEqual < v {
			return t.n, nil
		}
		return 0, nil
	}
	// In NSIP's order, past is true from the first animal no longer as
	// good as v (or, going worst first, the first better than v) onwards;
	// animals without the EBV count as past at the tail and not at the
	// head, so that past holds from some position to the end.
	var past func(x float64) bool
	worstFirst := (t.order == 1) != higher
	switch {
	case t.order == 1 && higher:
		past = func(x float64) bool { return x < v }
	case t.order == 1:
		past = func(x float64) bool { return x <= v }
	case higher:
		past = func(x float64) bool { return x >= v }
	default:
		past = func(x float64) bool { return x > v }
	}
	pos, err := pc.first(ctx, breed, t, func(row nsip.AnimalRow) bool {
		x, ok := hasT(row, t.code)
		if !ok {
			return t.tail > 0
		}
		return past(x)
	}, func(lo, hi int) int { return t.guessPage(v, past, lo, hi) })
	if err != nil {
		return 0, err
	}
	i := min(pos, t.total-t.tail) - t.head // animals with the EBV before pos
	if worstFirst {
		return t.n - i, nil
	}
	return i, nil
}

// Block is the answer's account of the percentiles computed, with why
// each trait in unproven has none.
func (pc *Finder) Block(unproven map[string]string) *Percentiles {
	out := &Percentiles{
		Method: "top_percent = share of the breed's animals with the EBV that are as good or better (by the trait's preferred direction; lower first for a trait with none; ties count as as good), " +
			"counted exactly by binary search over NSIP's search of the breed sorted by the trait: the first and last pages, then the pages a value needs, each chosen by interpolating between the values read so far, every other one by halving (at most about 2 log2(pages) a value), each checked (full pages, NSIP's count unchanged, no animal twice, one order, animals without the EBV at one end only); " +
			"all under one evaluation: NSIP's last-update date is read before the pages and again after each value's, and the pages are cached under it; " +
			"null with a reason where a check failed",
		Lookups: pc.Used,
		Limit:   Lookups,
	}
	switch {
	case pc.eval != "":
		eval := &[]string{pc.eval}[0]
		out.Evaluation = &eval
		if pc.newer != "" {
			out.EvaluationChanged = fmt.Sprintf("NSIP published the evaluation of %s during this call: values whose pages were read after it have no percentile; call again for all of them under %s", pc.newer, pc.newer)
		}
	case pc.evalErr != nil:
		out.Evaluation = new(*string) // null: the date could not be read
		out.EvaluationNote = "NSIP's last-update date could not be read (" + pc.r.Src.ErrorCode(pc.evalErr) + "), so these percentiles are not tied to one evaluation: pages from before and after a new one may be combined"
	}
	if pc.short > 0 {
		out.NotComputed = fmt.Sprintf("%d values: %s; %s", pc.short, pc.limitWhy(pc.limit), pc.advice(pc.limit))
	}
	if len(unproven) > 0 {
		out.Unproven = unproven
	}
	pc.passBlock(out)
	return out
}

// RowPercentiles appends to each ranked row (lpn_id at 1) the top_percent
// of each code, from its search row, and returns the columns added.
func (pc *Finder) RowPercentiles(ctx context.Context, breed int, out [][]any, found map[string]nsip.AnimalRow, codes []string, unproven map[string]string) ([]string, error) {
	var cols []string
	for _, c := range codes {
		cols = append(cols, c+"_top_percent")
	}
	var qs []Query
	for _, row := range out {
		ebv := facts.EBVMap(found[row[1].(string)].Traits)
		for _, c := range codes {
			if v, ok := ebv[c]; ok {
				qs = append(qs, Query{breed, c, v})
			}
		}
	}
	res, err := pc.TopPercents(ctx, qs)
	if err != nil {
		return nil, err
	}
	for i, row := range out {
		ebv := facts.EBVMap(found[row[1].(string)].Traits)
		for _, c := range codes {
			if _, ok := ebv[c]; !ok {
				out[i] = append(out[i], nil)
				continue
			}
			r := res[0]
			res = res[1:]
			if r.TopPercent == nil {
				unproven[c] = WithRange(unproven[c], r.Why, r.Range, row[1].(string))
				out[i] = append(out[i], nil)
				continue
			}
			out[i] = append(out[i], *r.TopPercent)
		}
	}
	return cols, nil
}
