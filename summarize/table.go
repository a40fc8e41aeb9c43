package summarize

import (
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// pageSummary is a page of rows as a table: column names once, then one
// array per row, so 100 rows do not repeat 100 sets of keys.
type pageSummary struct {
	Summary    bool              `json:"summary,omitempty"`
	Kind       Kind              `json:"kind,omitempty"`
	LPNID      string            `json:"lpn_id,omitempty"`
	TotalCount int               `json:"total_count"`
	Page       int               `json:"page"`
	PageSize   int               `json:"page_size"`
	PageRows   int               `json:"page_rows"`
	Shown      int               `json:"shown"`
	Next       *nextCall         `json:"next,omitempty"`
	Sex        *sexSplit         `json:"sex,omitempty"`
	TraitStats *statsTable       `json:"trait_stats,omitempty"`
	Omitted    []string          `json:"omitted,omitempty"` // parts left out to fit
	Columns    []string          `json:"columns"`
	TraitCell  []string          `json:"trait_cell"`
	Rows       []json.RawMessage `json:"rows"`
}

// omitStats names the statistics when they give way to rows.
const omitStats = "trait_stats"

// withStats shows the page's trait statistics, or says they were left out.
func (ps *pageSummary) withStats(stats *statsTable, show bool) {
	ps.TraitStats, ps.Omitted = stats, nil
	if !show && stats != nil {
		ps.TraitStats, ps.Omitted = nil, []string{omitStats}
	}
}

// fitPage shows as many rows of ps as fit, with the hint for the rest.
// wrap places the page in its enclosing summary (the profile nests it).
// complete is false when rows exist and none fits.
func fitPage(f *fitter, ps *pageSummary, rows []json.RawMessage, pg pager, wrap func(*pageSummary) any) (out []byte, complete bool, err error) {
	show := func(k, fit int) ([]byte, error) {
		ps.Rows, ps.Shown, ps.Next = rows[:k], k, pg.next(k, fit)
		return marshal(wrap(ps))
	}
	render := func(k int) ([]byte, error) { return show(k, k) }
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
	if n := pg.pickShown(fit); n != fit {
		if b, err := show(n, fit); err == nil && f.fits(b) {
			out = b
		}
	}
	return out, fit > 0 || len(rows) == 0, nil
}

// searchColumns are the columns of a search summary's rows.
var searchColumns = []string{"lpn_id", "sire", "dam", "top_traits"}

func searchSummary(f *fitter, v *nsip.SearchResults, args map[string]any, c int) ([]byte, bool, error) {
	rows := make([]json.RawMessage, len(v.Results))
	for i, r := range v.Results {
		b, err := marshal([]any{clip(r.LPNID, c), clip(r.Sire, c), clip(r.Dam, c), traitCells(r.Traits, c)})
		if err != nil {
			return nil, false, err
		}
		rows[i] = b
	}
	pg := newPager(toolSearch, args, v.Page, v.PageSize, len(rows), v.TotalCount)
	ps := &pageSummary{
		Summary: true, Kind: KindSearch, TotalCount: v.TotalCount,
		Page: pg.page, PageSize: pg.size, PageRows: len(rows),
		Columns: searchColumns, TraitCell: traitCellFormat,
	}
	return fitPage(f, ps, rows, pg, func(p *pageSummary) any { return p })
}

// progenyColumns are the columns of a progeny summary's rows.
var progenyColumns = []string{"lpn_id", "sex", "dob", "top_trait"}

// progenyPage builds the page summary of a progeny page and its rows.
func progenyPage(v *nsip.ProgenyPage, args map[string]any, c int) (*pageSummary, []json.RawMessage, pager, error) {
	rows := make([]json.RawMessage, len(v.Animals))
	for i, a := range v.Animals {
		var top any // null when no trait is accurate enough
		if t := topTraits(a.Traits, 1); len(t) == 1 {
			top = traitCell(t[0], c)
		}
		b, err := marshal([]any{clip(a.LPNID, c), clip(nsip.NormalizeSex(a.Sex), c), clip(shortDate(a.DateOfBirth), c), top})
		if err != nil {
			return nil, nil, pager{}, err
		}
		rows[i] = b
	}
	lpn := v.LPNID
	if lpn == "" {
		lpn, _ = args["lpn_id"].(string)
	}
	// The hint needs only the parent and the page; other arguments of the
	// call (a profile's, say) do not belong to nsip_get_progeny.
	size := v.PageSize
	if size <= 0 {
		size = argInt(args, "page_size", len(rows))
	}
	pg := newPager(toolProgeny, map[string]any{"lpn_id": lpn}, v.Page, size, len(rows), v.TotalCount)
	ps := &pageSummary{
		LPNID: clip(lpn, c), TotalCount: v.TotalCount,
		Page: pg.page, PageSize: pg.size, PageRows: len(rows),
		Sex: sexOf(v.Animals), TraitStats: traitStats(v.Animals, c),
		Columns: progenyColumns, TraitCell: traitCellFormat,
	}
	return ps, rows, pg, nil
}

// progenySummary shows the page's statistics and as many offspring as
// fit. When the statistics leave room for no offspring at all, they give
// way: rows are what the next-call hints page through.
func progenySummary(f *fitter, v *nsip.ProgenyPage, args map[string]any, c int) ([]byte, bool, error) {
	ps, rows, pg, err := progenyPage(v, args, c)
	if err != nil {
		return nil, false, err
	}
	ps.Summary, ps.Kind = true, KindProgeny
	stats := ps.TraitStats
	out, complete, err := firstComplete(2, func(i int) ([]byte, bool, error) {
		ps.withStats(stats, i == 0)
		return fitPage(f, ps, rows, pg, func(p *pageSummary) any { return p })
	})
	if errors.Is(err, errNoFit) {
		return nil, false, nil
	}
	return out, complete, err
}

// sexSplit counts a page's offspring by sex.
type sexSplit struct {
	M     int `json:"Male"`
	F     int `json:"Female"`
	Other int `json:"other,omitempty"`
}

// sexOf counts NSIP's codes ("1"/"2" in live progeny pages, M/F, Male/Female)
// as Male and Female.
func sexOf(rows []nsip.ProgenyRow) *sexSplit {
	var s sexSplit
	for _, r := range rows {
		switch nsip.NormalizeSex(r.Sex) {
		case "Male":
			s.M++
		case "Female":
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

var statsColumns = []string{"code", "n", "mean", "min", "max"}

// traitStats summarizes each trait present on the page: how many rows
// carry it and the mean, least and greatest value among them.
func traitStats(rows []nsip.ProgenyRow, c int) *statsTable {
	type acc struct {
		n             int
		sum, min, max float64
	}
	by := map[string]*acc{}
	var codes []string
	for _, r := range rows {
		for _, t := range r.Traits {
			if math.IsNaN(t.Value) || math.IsInf(t.Value, 0) {
				continue
			}
			a := by[t.Code]
			if a == nil {
				a = &acc{min: t.Value, max: t.Value}
				by[t.Code] = a
				codes = append(codes, t.Code)
			}
			a.n++
			a.sum += t.Value
			a.min, a.max = min(a.min, t.Value), max(a.max, t.Value)
		}
	}
	if len(codes) == 0 {
		return nil
	}
	traitOrder(codes)
	st := &statsTable{Columns: statsColumns}
	for _, code := range codes {
		a := by[code]
		st.Rows = append(st.Rows, []any{clip(code, c), a.n, round(a.sum/float64(a.n), 3), a.min, a.max})
	}
	return st
}
