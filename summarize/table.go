package summarize

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// pageSummary is a page of rows as a table: column names once, then one
// array per row, so 100 rows do not repeat 100 sets of keys.
type pageSummary struct {
	Summary bool   `json:"summary,omitempty"`
	Kind    Kind   `json:"kind,omitempty"`
	LPNID   string `json:"lpn_id,omitempty"`
	// TotalCount is NSIP's count, or what StatusHeld says; null when
	// nothing read proves a count.
	TotalCount *int      `json:"total_count"`
	Page       int       `json:"page"`
	PageSize   int       `json:"page_size"`
	PageRows   int       `json:"page_rows"` // rows on the requested page
	Shown      int       `json:"shown"`
	ShownFrom  int       `json:"shown_from,omitempty"` // 1-based positions in the whole result set
	ShownTo    int       `json:"shown_to,omitempty"`
	PageTo     int       `json:"page_to,omitempty"` // position of the requested page's last row
	Next       *NextCall `json:"next,omitempty"`
	// NextWithheld says why there is no next call although NSIP counts
	// rows after these: the page proves none of them can match.
	NextWithheld string `json:"next_withheld,omitempty"`
	Breed        string `json:"breed,omitempty"` // the breed of every row, when the page has one
	// Contradicting counts the rows left out for contradicting the call's
	// criteria (see criteria.go).
	Contradicting *Contradicting `json:"contradicting_criteria,omitempty"`
	// Born says where a dob of a year alone came from.
	Born string `json:"born,omitempty"`
	// StatusRead says how a status word of one status was read.
	StatusRead string `json:"status_read,omitempty"`
	// StatusHeld counts the rows left out by a status word of several
	// statuses (statusheld.go).
	StatusHeld *StatusHeld `json:"status_held,omitempty"`
	// StatsOver says what Sex and TraitStats count: this page's rows,
	// which are all of the result set only when it fits one page.
	StatsOver string `json:"stats_over,omitempty"`
	// Genotyped says what a genotyped column's empty cells mean, or that
	// the rows stated it for none: live answers are known to carry the
	// status in animal details only.
	Genotyped string    `json:"genotyped,omitempty"`
	Sex       *sexSplit `json:"sex,omitempty"`
	// TraitStats covers every row of the page, shown or not.
	TraitStats *statsTable `json:"trait_stats,omitempty"`
	Omitted    []string    `json:"omitted,omitempty"` // parts left out to fit
	Columns    []string    `json:"columns"`
	// TraitCell names the members of a trait column's cell; TopCell those
	// of each cell of a top_traits column.
	TraitCell []string          `json:"trait_cell,omitempty"`
	TopCell   []string          `json:"top_trait_cell,omitempty"`
	Rows      []json.RawMessage `json:"rows"`
}

// omitStats names the statistics when they give way to rows.
const omitStats = "trait_stats"

var (
	traitCellFormat = []string{"value", "accuracy"}
	topCellFormat   = []string{"code", "value", "accuracy"}
)

// layout is one way of rendering a page: its columns and its rows.
type layout struct {
	columns []string
	rows    []json.RawMessage
	stats   bool // the page statistics are shown
	partial bool // only for showing part of a page, never a whole one
}

// fitLayouts renders the page in the first layout whose rows all fit; when
// none does, as many rows as fit of the fallback layout. Layouts go from
// richest to leanest, so a page arrives whole with fewer traits per row
// rather than cut. wrap places the page in its enclosing summary.
func fitLayouts(f *fitter, ps *pageSummary, stats *statsTable, pg pager, layouts []layout, fallback int, wrap func(*pageSummary) any) ([]byte, bool, error) {
	use := func(l layout) {
		ps.Columns = l.columns
		ps.TraitStats, ps.Omitted = nil, nil
		if stats != nil {
			if l.stats {
				ps.TraitStats = stats
			} else {
				ps.Omitted = []string{omitStats}
			}
		}
		ps.TraitCell, ps.TopCell = nil, nil
		for _, c := range l.columns {
			switch {
			case c == colTop:
				ps.TopCell = topCellFormat
			case !slices.Contains(identityColumns, c):
				ps.TraitCell = traitCellFormat
			}
		}
	}
	// Layouts are alike JSON, so the tokens per byte of one counted
	// rendering tell which others cannot fit without counting them.
	// A layout's size in bytes is its frame's (rendered once per way of
	// showing the statistics) plus its rows', so most are ruled out without
	// rendering them.
	var perByte float64
	frames := map[bool]int{}
	for _, l := range layouts {
		if l.partial {
			continue
		}
		use(l)
		if perByte > 0 {
			frame, ok := frames[l.stats]
			if !ok {
				empty, err := pg.render(f, ps, nil, 0, wrap)
				if err != nil {
					return nil, false, err
				}
				frame = len(empty)
				frames[l.stats] = frame
			}
			size := frame + len(l.rows)
			for _, r := range l.rows {
				size += len(r)
			}
			if float64(size)*perByte > 1.15*float64(f.limit) {
				continue
			}
		}
		out, err := pg.render(f, ps, l.rows, len(l.rows), wrap)
		if err != nil {
			return nil, false, err
		}
		if len(out) <= f.limit {
			return out, true, nil // no longer in bytes than the limit in tokens
		}
		n := f.c.Count(string(out))
		if n <= f.limit {
			return out, true, nil
		}
		perByte = float64(n) / float64(len(out))
	}
	for i := fallback; i < len(layouts); i++ {
		use(layouts[i])
		out, complete, err := fitPage(f, ps, layouts[i].rows, pg, wrap)
		if err != nil || out != nil {
			return out, complete, err
		}
	}
	return nil, false, nil
}

// fitPage shows as many rows of ps as fit, with the hint for the rest.
// complete is false when rows exist and none fits.
func fitPage(f *fitter, ps *pageSummary, rows []json.RawMessage, pg pager, wrap func(*pageSummary) any) (out []byte, complete bool, err error) {
	render := func(k int) ([]byte, error) { return pg.render(f, ps, rows, k, wrap) }
	empty, err := render(0)
	if err != nil {
		return nil, false, err
	}
	sizes := make([]int, len(rows))
	for i, r := range rows {
		sizes[i] = len(r)
	}
	guess := f.guessRows(len(empty), sizes)
	if guess < len(rows) {
		// The whole page may not fit: measure rather than guess.
		fixed := f.c.Count(string(empty))
		if fixed > f.limit {
			return nil, false, nil // not even the frame without rows fits
		}
		if guess, err = f.refine(len(rows), guess, fixed, render); err != nil {
			return nil, false, err
		}
	}
	fit, out, ok, err := f.largest(len(rows), guess, render)
	if err != nil || !ok {
		return nil, false, err
	}
	return out, fit > 0 || len(rows) == 0, nil
}

// Columns every page table may have besides its trait columns.
const (
	colLPN    = "lpn_id"
	colSex    = "sex"
	colDOB    = "dob"
	colStatus = "status"
	colBreed  = "breed"
	colSire   = "sire"
	colDam    = "dam"
	colGeno   = "genotyped"
	colTop    = "top_traits"
)

var identityColumns = []string{colLPN, colSex, colDOB, colStatus, colGeno, colBreed, colSire, colDam, colTop}

// searchSummary shows a search page. Every row carries the traits the
// call is about (the sort trait and the trait_ranges criteria, or exactly
// the requested traits) beside its most accurate others, down to none of
// those others before any row is cut.
func searchSummary(f *fitter, v *nsip.SearchResults, req Request, c int) ([]byte, bool, error) {
	results, pos, contra := keepSearchRows(skipRows(v.Results, req.Skip), req.Args)
	pg := searchPager(v, req)
	pg.pos = pos
	held := statusHeld(v, req.Args)
	ps := &pageSummary{
		Summary: true, Kind: KindSearch, TotalCount: heldTotal(v, held),
		Page: pg.page, PageSize: pg.size, PageRows: len(v.Results),
		Contradicting: contra, StatusHeld: held, Born: bornNote(results),
	}
	if held == nil {
		ps.StatusRead = nsip.StatusNote(criteriaStatus(req.Args))
	}
	fixed := req.Traits
	if len(fixed) == 0 {
		fixed = callTraits(req.Args)
	}
	base := []string{colLPN, colSex, colDOB, colStatus}
	switch stated := genotypedRows(results); {
	case stated == 0 && len(results) > 0:
		ps.Genotyped = "not stated in NSIP's search rows; " + toolname.GetAnimal + " shows it"
	case stated > 0:
		base = append(base, colGeno)
		if stated < len(results) {
			ps.Genotyped = `"" where the row did not state it, which is not "not genotyped"`
		}
	}
	if breeds := breedsOf(results); len(breeds) > 1 {
		base = append(base, colBreed)
	} else if len(breeds) == 1 {
		ps.Breed = clip(breeds[0], c)
	}
	if len(req.Traits) == 0 {
		base = append(base, colSire, colDam)
	}
	tops := []int{3, 2, 1, 0}
	if len(req.Traits) > 0 {
		tops = []int{0}
	}
	cached := make([]rowCells, len(results))
	for i, r := range results {
		head := make([]any, len(base))
		for j, col := range base {
			head[j] = clip(searchCell(r, col), c)
		}
		var err error
		if cached[i], err = newRowCells(head, r.Traits, fixed); err != nil {
			return nil, false, err
		}
	}
	var layouts []layout
	for _, k := range tops {
		cols := append(append(slices.Clone(base), fixed...), colTop)
		if k == 0 {
			cols = cols[:len(cols)-1]
		}
		rows := make([]json.RawMessage, len(results))
		for i, r := range results {
			var tail [][]byte
			if k > 0 {
				b, err := nsip.PlainJSON(topCells(r.Traits, fixed, k, c))
				if err != nil {
					return nil, false, err
				}
				tail = append(tail, b)
			}
			rows[i] = cached[i].row(fixed, tail...)
		}
		layouts = append(layouts, layout{columns: cols, rows: rows})
	}
	return fitLayouts(f, ps, nil, pg, layouts, len(layouts)-1, func(p *pageSummary) any { return p })
}

// searchCell is one identity cell of a search row.
func searchCell(r nsip.AnimalRow, col string) string {
	switch col {
	case colLPN:
		return r.LPNID
	case colSire:
		return r.Sire
	case colDam:
		return r.Dam
	case colStatus:
		return r.Status
	case colSex:
		return sexCode(r.Sex)
	case colDOB:
		return rowBorn(r)
	case colBreed:
		return rowBreed(r)
	case colGeno:
		return r.Genotyped
	}
	return ""
}

// rowBorn is a search row's birth date, or else the birth year its LPN ID
// carries (live rows carry no date), or "".
func rowBorn(r nsip.AnimalRow) string {
	if d := shortDate(r.DateOfBirth); d != "" {
		return d
	}
	if y, lpn := r.BirthYear(); lpn {
		return strconv.Itoa(y)
	}
	return ""
}

// bornNote says, for rows of which some show a year alone as their birth
// date, where the year came from; "" when none does.
func bornNote(rows []nsip.AnimalRow) string {
	for _, r := range rows {
		if _, lpn := r.BirthYear(); lpn && shortDate(r.DateOfBirth) == "" {
			return "a dob of a year alone is the year in the LPN ID, NSIP's search rows carrying no birth date"
		}
	}
	return ""
}

// genotypedRows counts the rows that state whether they are genotyped.
func genotypedRows(rows []nsip.AnimalRow) int {
	n := 0
	for _, r := range rows {
		if r.Genotyped != "" {
			n++
		}
	}
	return n
}

// rowBreed names a search row's breed: its name when the row has one,
// else its ID.
func rowBreed(r nsip.AnimalRow) string {
	if r.BreedName != "" {
		return r.BreedName
	}
	if r.BreedID != 0 {
		return strconv.Itoa(r.BreedID)
	}
	return ""
}

// breedsOf lists the distinct breeds on a page.
func breedsOf(rows []nsip.AnimalRow) []string {
	var seen []string
	for _, r := range rows {
		if b := rowBreed(r); !slices.Contains(seen, b) {
			seen = append(seen, b)
		}
	}
	return seen
}

// sexCode writes the sex as M or F, reading it as nsip.NormalizeSex does
// (Male, M, 1, ram / Female, F, 2, ewe); anything else is kept as sent.
func sexCode(s string) string {
	switch nsip.NormalizeSex(s) {
	case "Male":
		return "M"
	case "Female":
		return "F"
	}
	return s
}

// callTraits are the traits a search call is about: its sort trait, then
// those of its trait_ranges criteria in trait order.
func callTraits(args map[string]any) []string {
	var out []string
	if s, ok := args["sorted_trait"].(string); ok && s != "" {
		out = append(out, strings.ToUpper(s))
	}
	crit, _ := args["search_criteria"].(map[string]any)
	tr, _ := crit["trait_ranges"].(map[string]any)
	var codes []string
	for code := range tr {
		if code = strings.ToUpper(code); !slices.Contains(out, code) {
			codes = append(codes, code)
		}
	}
	traitOrder(codes)
	return append(out, codes...)
}

// rowCells is one row's cells already in JSON, so that the many layouts of
// a page are assembled from bytes rather than encoded again each time.
type rowCells struct {
	head   []byte            // the leading cells, comma-separated
	traits map[string][]byte // code -> [value, accuracy]; absent: null
}

// newRowCells encodes head and, for each code, the row's trait cell:
// [value, accuracy], accuracy null when NSIP gave none.
func newRowCells(head []any, ts []nsip.Trait, codes []string) (rowCells, error) {
	b, err := nsip.PlainJSON(head)
	if err != nil {
		return rowCells{}, err
	}
	r := rowCells{head: b[1 : len(b)-1], traits: make(map[string][]byte, len(codes))}
	for _, code := range codes {
		if t, ok := findTrait(ts, code); ok {
			if r.traits[code], err = nsip.PlainJSON(valueCell(t)); err != nil {
				return rowCells{}, err
			}
		}
	}
	return r, nil
}

// row writes the row with a cell per code (null where the row lacks the
// trait), then tail.
func (r rowCells) row(codes []string, tail ...[]byte) json.RawMessage {
	b := make([]byte, 0, len(r.head)+16*len(codes)+64)
	b = append(append(b, '['), r.head...)
	for _, code := range codes {
		b = append(b, ',')
		if cell, ok := r.traits[code]; ok {
			b = append(b, cell...)
		} else {
			b = append(b, "null"...)
		}
	}
	for _, t := range tail {
		b = append(append(b, ','), t...)
	}
	return append(b, ']')
}

func valueCell(t nsip.Trait) []any {
	if !t.HasAccuracy {
		return []any{t.Value, nil}
	}
	return []any{t.Value, round(t.Accuracy, 2)}
}

func findTrait(ts []nsip.Trait, code string) (nsip.Trait, bool) {
	for _, t := range ts {
		if strings.EqualFold(t.Code, code) {
			return t, true
		}
	}
	return nsip.Trait{}, false
}

// topCells is a row's k most accurate traits not already in a column.
func topCells(ts []nsip.Trait, except []string, k, c int) [][]any {
	var rest []nsip.Trait
	for _, t := range ts {
		if !slices.ContainsFunc(except, func(e string) bool { return strings.EqualFold(e, t.Code) }) {
			rest = append(rest, t)
		}
	}
	cells := [][]any{}
	for _, t := range topTraits(rest, k) {
		cells = append(cells, traitCell(t, c))
	}
	return cells
}

// skipRows drops the first n rows, which the caller has seen.
func skipRows[T any](rows []T, n int) []T {
	return rows[min(max(n, 0), len(rows)):]
}

// progenyColumnsBase are the columns of every progeny row before its traits.
var progenyColumnsBase = []string{colLPN, colSex, colDOB}

// progenyLayouts builds a progeny page's summary frame and its layouts,
// richest first: every trait on the page (or exactly the requested ones),
// then fewer, the least accurate on the page going first. The fallback
// layouts, for pages too long to show whole, have the statistics and the
// three most accurate traits.
func progenyLayouts(v *nsip.ProgenyPage, req Request, c int) (*pageSummary, *statsTable, pager, []layout, int, error) {
	parent := progenyParent(v, req.Args)
	animals, pos, contra := keepProgenyRows(skipRows(v.Animals, req.Skip), parent)
	// The statistics cover the page, shown rows or not, but never a row
	// left out.
	page, _, _ := keepProgenyRows(v.Animals, parent)
	pg := progenyPager(v, req.Args, req.Skip)
	pg.pos = pos
	ps := &pageSummary{
		LPNID: clip(pg.args["lpn_id"].(string), c), TotalCount: &v.TotalCount,
		Page: pg.page, PageSize: pg.size, PageRows: len(v.Animals),
		Contradicting: contra,
		StatsOver:     statsOver(pg, len(page)),
		Sex:           sexOf(page),
	}
	codes := req.Traits
	if len(codes) == 0 {
		codes = byAccuracy(page)
	}
	stats := traitStats(page, req.Traits, c)
	cached := make([]rowCells, len(animals))
	for i, a := range animals {
		var err error
		head := []any{clip(a.LPNID, c), clip(sexCode(a.Sex), c), clip(shortDate(a.DateOfBirth), c)}
		if cached[i], err = newRowCells(head, a.Traits, codes); err != nil {
			return nil, nil, pager{}, nil, 0, err
		}
	}
	var layouts []layout
	build := func(n int, withStats, partial bool) {
		if withStats && stats == nil {
			return
		}
		cols := slices.Clone(codes[:min(n, len(codes))])
		if len(req.Traits) == 0 {
			traitOrder(cols)
		}
		rows := make([]json.RawMessage, len(animals))
		for i := range animals {
			rows[i] = cached[i].row(cols)
		}
		layouts = append(layouts, layout{columns: append(slices.Clone(progenyColumnsBase), cols...), rows: rows, stats: withStats, partial: partial})
	}
	// Whole pages: all traits with statistics or without (either way
	// nothing is hidden); then fewer traits with the statistics, which
	// still name who holds each extreme; then fewer without; then the
	// statistics alone. Rows with neither say little: a page that long
	// shows some of its rows with both instead, or failing that fewer.
	type step struct {
		n              int
		stats, partial bool
	}
	all := len(codes)
	steps := []step{{all, true, false}, {all, false, false}}
	if len(req.Traits) == 0 {
		for n := all - 1; n >= 1; n-- {
			steps = append(steps, step{n, true, false})
		}
		for n := all - 1; n >= 1; n-- {
			steps = append(steps, step{n, false, false})
		}
		steps = append(steps, step{0, true, false})
	}
	fallbackSteps := []step{{min(3, all), true, true}, {min(3, all), false, true}, {0, false, true}}
	if len(req.Traits) > 0 {
		// Requested traits are never cut: rows give way instead.
		fallbackSteps = []step{{all, true, true}, {all, false, true}}
	}
	for _, st := range steps {
		build(st.n, st.stats, st.partial)
	}
	fallback := len(layouts)
	for _, st := range fallbackSteps {
		build(st.n, st.stats, st.partial)
	}
	return ps, stats, pg, layouts, fallback, nil
}

// progenyPager places a progeny page in its result set. Its next call
// takes only what nsip_get_progeny takes (page, page_size and skip being
// the pager's): a profile's other arguments do not belong to it.
func progenyPager(v *nsip.ProgenyPage, args map[string]any, skip int) pager {
	lpn := v.LPNID
	if lpn == "" {
		lpn, _ = args["lpn_id"].(string)
	}
	hint := map[string]any{"lpn_id": lpn}
	for _, k := range []string{"traits", "max_tokens"} {
		if a, ok := args[k]; ok {
			hint[k] = a
		}
	}
	size := v.PageSize
	if size <= 0 {
		size = argInt(args, "page_size", len(v.Animals))
	}
	return newPager(toolname.GetProgeny, hint, v.Page, size, len(v.Animals), v.TotalCount, skip)
}

// byAccuracy lists the trait codes on a page, those with the highest mean
// accuracy over the page first (a trait without accuracy counts as 0).
func byAccuracy(rows []nsip.ProgenyRow) []string {
	sum := map[string]float64{}
	var codes []string
	for _, r := range rows {
		for _, t := range r.Traits {
			if _, ok := sum[t.Code]; !ok {
				codes = append(codes, t.Code)
				sum[t.Code] = 0
			}
			if t.HasAccuracy {
				sum[t.Code] += t.Accuracy
			}
		}
	}
	traitOrder(codes)
	slices.SortStableFunc(codes, func(a, b string) int {
		switch {
		case sum[a] > sum[b]:
			return -1
		case sum[a] < sum[b]:
			return 1
		}
		return 0
	})
	return codes
}

// progenySummary shows a progeny page: every offspring with as many of
// its EBVs as fit, and statistics naming who holds each extreme.
func progenySummary(f *fitter, v *nsip.ProgenyPage, req Request, c int) ([]byte, bool, error) {
	ps, stats, pg, layouts, fallback, err := progenyLayouts(v, req, c)
	if err != nil {
		return nil, false, err
	}
	ps.Summary, ps.Kind = true, KindProgeny
	out, complete, err := fitLayouts(f, ps, stats, pg, layouts, fallback, func(p *pageSummary) any { return p })
	if errors.Is(err, errNoFit) {
		return nil, false, nil
	}
	return out, complete, err
}

// statsOver says what a progeny page's statistics count: n offspring of
// this page alone, unless the page holds the whole result set. A model
// reading "sex":{"M":52,"F":48} beside "total_count":240 must not take it
// for the whole progeny.
func statsOver(pg pager, n int) string {
	if pg.offset == 0 && pg.rows >= pg.total {
		return fmt.Sprintf("sex and trait_stats: all %d offspring", n)
	}
	if pg.rows == 0 {
		return fmt.Sprintf("sex and trait_stats: no offspring on this page (page %d of %d-row pages; %d in all)", pg.page, pg.size, pg.total)
	}
	return fmt.Sprintf("sex and trait_stats: this page only, %d offspring at %d-%d of %d, not all %d",
		n, pg.offset+1, pg.offset+pg.rows, pg.total, pg.total)
}

// sexSplit counts a page's offspring by sex.
type sexSplit struct {
	M     int `json:"M"`
	F     int `json:"F"`
	Other int `json:"other,omitempty"`
}

// sexOf counts NSIP's codes ("1"/"2" in live progeny pages, M/F, Male/Female)
// as M and F.
func sexOf(rows []nsip.ProgenyRow) *sexSplit {
	var s sexSplit
	for _, r := range rows {
		switch sexCode(r.Sex) {
		case "M":
			s.M++
		case "F":
			s.F++
		default:
			s.Other++
		}
	}
	return &s
}

// shortDate writes a date NSIP sent in any of its forms as YYYY-MM-DD, the
// time of day ("2025-02-16T00:00:00") being noise; text that is not a date
// is kept.
func shortDate(s string) string {
	if d, ok := nsip.ParseDate(s); ok {
		return d.Format(time.DateOnly)
	}
	return s
}

// statsTable is per-trait statistics over a page, one row per trait.
type statsTable struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// The last four are per sex, so that "the mean WWT of his ewe lambs" is
// read off the page: n and mean over the females (F), then the males (M);
// a mean is null where no offspring of that sex has the trait.
var statsColumns = []string{"code", "n", "mean", "max", "max_lpn_id", "max_accuracy", "min", "min_lpn_id", "min_accuracy", "n_f", "mean_f", "n_m", "mean_m"}

// traitStats summarizes each trait on the page (only, when codes is not
// empty, those): how many rows carry it, the mean, and the greatest and
// least values with the offspring holding each (the first on the page
// when several tie) and its accuracy, null when NSIP gave none.
func traitStats(rows []nsip.ProgenyRow, codes []string, c int) *statsTable {
	type extreme struct {
		t   nsip.Trait
		lpn string
	}
	type acc struct {
		n        int
		sum      float64
		min, max extreme
		bySex    [2]struct {
			n   int
			sum float64
		} // F, M
	}
	by := map[string]*acc{}
	var seen []string
	for _, r := range rows {
		for _, t := range r.Traits {
			if math.IsNaN(t.Value) || math.IsInf(t.Value, 0) {
				continue
			}
			if len(codes) > 0 && !slices.ContainsFunc(codes, func(s string) bool { return strings.EqualFold(s, t.Code) }) {
				continue
			}
			a := by[t.Code]
			if a == nil {
				a = &acc{min: extreme{t, r.LPNID}, max: extreme{t, r.LPNID}}
				by[t.Code] = a
				seen = append(seen, t.Code)
			}
			a.n++
			a.sum += t.Value
			switch sexCode(r.Sex) {
			case "F":
				a.bySex[0].n++
				a.bySex[0].sum += t.Value
			case "M":
				a.bySex[1].n++
				a.bySex[1].sum += t.Value
			}
			if t.Value < a.min.t.Value {
				a.min = extreme{t, r.LPNID}
			}
			if t.Value > a.max.t.Value {
				a.max = extreme{t, r.LPNID}
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	traitOrder(seen)
	st := &statsTable{Columns: statsColumns}
	for _, code := range seen {
		a := by[code]
		row := []any{clip(code, c), a.n, round(a.sum/float64(a.n), 3),
			a.max.t.Value, clip(a.max.lpn, c), valueCell(a.max.t)[1],
			a.min.t.Value, clip(a.min.lpn, c), valueCell(a.min.t)[1]}
		for _, x := range a.bySex {
			var mean any // null: no offspring of this sex has the trait
			if x.n > 0 {
				mean = round(x.sum/float64(x.n), 3)
			}
			row = append(row, x.n, mean)
		}
		st.Rows = append(st.Rows, row)
	}
	return st
}
