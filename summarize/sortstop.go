package summarize

import (
	"fmt"
	"math"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// A search sorted by a trait and bounded on that same trait ("WWT highest
// first, WWT at least 1.5") ends, for the caller, at the first row past the
// bound: in the order the page shows, every row after it is further past,
// on this page and on the pages after it. NSIP may return such rows (it
// ignores criteria at times, see criteria.go), and its count includes them,
// so without this check a caller would be offered page after page of rows
// that cannot match. The order is the one the page's rows show, not the one
// asked for, as the rankings check it; a page that shows no order (fewer
// than two distinct values, or values up and down) proves nothing.

// searchPager is the pager of a search page, with where the page proves
// that no later row can meet the call's bound on its sort trait.
func searchPager(v *nsip.SearchResults, req Request) pager {
	pg := newPager(toolname.SearchAnimals, req.Args, v.Page, v.PageSize, len(v.Results), v.TotalCount, req.Skip)
	pg.stop, pg.stopWhy, pg.bound, pg.ordered = sortStop(v.Results, req.Args, pg.offset)
	return pg
}

// matchCount is the total_count a search page gives, and what it is
// (note, "" when it is NSIP's count of matches). Where the call bounds
// its sort trait, NSIP's count includes any rows it did not filter (it
// ignores trait_ranges at times), so it is not the count of matches
// until the page shows which rows are: the count itself once the page
// holds the first row past the bound (stop), else at least the rows up
// to this page's end when its order shows them all within it.
func (p pager) matchCount() (int, string) {
	switch {
	case p.bound == "" || (p.stopWhy == "" && p.offset+p.rows >= p.total):
		return p.total, "" // no bound, or every row NSIP counts is on the pages up to here
	case p.stopWhy != "":
		return p.offset + p.stop, fmt.Sprintf("the rows that meet the %s bound, as this page's order proves (next_withheld); NSIP counts %d, rows it did not filter included", p.bound, p.total)
	case p.ordered:
		return p.offset + p.rows, fmt.Sprintf("at least: rows 1 to %d meet the %s bound, in the order this page shows; NSIP counts %d, which includes any rows it did not filter by trait_ranges, so how many more meet it is shown by the page holding the first row past it", p.offset+p.rows, p.bound, p.total)
	}
	return p.total, fmt.Sprintf("NSIP's count, which includes any rows it did not filter by trait_ranges; this page shows no order by %s to prove how many meet the bound", p.bound)
}

// sortStop is the position on the page of the first row past the call's
// bound on its sort trait in the page's own order, and why no row after it
// can meet the bound ("" when the page does not show that); the bounded
// sort trait ("" when the call bounds none), and whether the page shows
// an order by it.
func sortStop(rows []nsip.AnimalRow, args map[string]any, offset int) (stop int, why, bound string, ordered bool) {
	code, _ := args["sorted_trait"].(string)
	code = strings.ToUpper(code)
	rg, ok := criteriaOf(args).ranges[code]
	if code == "" || !ok {
		return 0, "", "", false
	}
	var vals []float64
	var at []int
	for i, r := range rows {
		if t, ok := findTrait(r.Traits, code); ok && !math.IsNaN(t.Value) && !math.IsInf(t.Value, 0) {
			vals, at = append(vals, t.Value), append(at, i)
		}
	}
	dir := PageOrder(vals) // 2, no order, withholds nothing
	ordered = dir == 1 || dir == -1
	for j, v := range vals {
		var past string
		switch {
		case dir == 1 && v < rg.Min:
			past = fmt.Sprintf("highest first, and row %d (%s) has %s %s, below the minimum %s asked", offset+at[j]+1, rows[at[j]].LPNID, code, num(v), num(rg.Min))
		case dir == -1 && v > rg.Max:
			past = fmt.Sprintf("lowest first, and row %d (%s) has %s %s, above the maximum %s asked", offset+at[j]+1, rows[at[j]].LPNID, code, num(v), num(rg.Max))
		default:
			continue
		}
		return at[j], fmt.Sprintf("no next call: this page shows NSIP's rows sorted by %s %s in trait_ranges, so no row after it, "+
			"on this page or a later one, can meet the bound (NSIP's total_count counts rows that do not); the rows before it are all there is", code, past), code, ordered
	}
	return 0, "", code, ordered
}

// PageOrder is the order a page's values of its sort trait show, in page
// order: +1 descending, -1 ascending, 0 not yet known (fewer than two
// distinct values), 2 neither. Rankings check NSIP's order by it too, so
// that a page is read one way wherever its order is relied on.
func PageOrder(vals []float64) int {
	dir := 0
	for i := 1; i < len(vals); i++ {
		d := 0
		switch {
		case vals[i] < vals[i-1]:
			d = 1
		case vals[i] > vals[i-1]:
			d = -1
		default:
			continue
		}
		if dir != 0 && d != dir {
			return 2
		}
		dir = d
	}
	return dir
}
