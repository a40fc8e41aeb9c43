package summarize

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// shapeSummary runs the summarizer for kind on req.Value, trying the clip
// levels in turn. A level whose result is complete wins at once; otherwise
// the first result that fits at all is kept.
func shapeSummary(f *fitter, kind Kind, req Request) ([]byte, error) {
	var level func(clip int) ([]byte, bool, error)
	var err error
	switch kind {
	case KindAnimal:
		level, err = bind(req.Value, func(v *nsip.AnimalDetails, c int) ([]byte, bool, error) { return animalSummary(f, v, c) })
	case KindSearch:
		level, err = bind(req.Value, func(v *nsip.SearchResults, c int) ([]byte, bool, error) { return searchSummary(f, v, req, c) })
	case KindProgeny:
		level, err = bind(req.Value, func(v *nsip.ProgenyPage, c int) ([]byte, bool, error) { return progenySummary(f, v, req, c) })
	case KindLineage:
		level, err = bind(req.Value, func(v *nsip.Lineage, c int) ([]byte, bool, error) { return lineageSummary(f, v, c) })
	case KindProfile:
		level, err = bind(req.Value, func(v *nsip.AnimalProfile, c int) ([]byte, bool, error) { return profileSummary(f, v, req, c) })
	default:
		err = fmt.Errorf("summarize: no shape summarizer for %q", kind)
	}
	if err != nil {
		return nil, err
	}
	out, _, err := firstComplete(len(clipLevels), func(i int) ([]byte, bool, error) { return level(clipLevels[i]) })
	return out, err
}

// firstComplete tries levels 0..n-1 in turn and returns the first complete
// result, or failing that the first that fits at all (nil output means
// nothing fitted at that level); errNoFit when none did.
func firstComplete(n int, level func(i int) (out []byte, complete bool, err error)) ([]byte, bool, error) {
	var first []byte
	for i := range n {
		out, complete, err := level(i)
		if err != nil {
			return nil, false, err
		}
		if out != nil && complete {
			return out, true, nil
		}
		if first == nil {
			first = out
		}
	}
	if first == nil {
		return nil, false, errNoFit
	}
	return first, false, nil
}

// bind checks the model's type once and returns fn as a level function.
func bind[T any](value any, fn func(v *T, clip int) ([]byte, bool, error)) (func(int) ([]byte, bool, error), error) {
	v, err := as[T](value)
	if err != nil {
		return nil, err
	}
	return func(c int) ([]byte, bool, error) { return fn(v, c) }, nil
}

// as accepts the model by pointer or by value.
func as[T any](v any) (*T, error) {
	switch x := v.(type) {
	case *T:
		if x != nil {
			return x, nil
		}
	case T:
		return &x, nil
	}
	return nil, fmt.Errorf("summarize: want a %T, got %T", (*T)(nil), v)
}

// topTraits returns up to n traits with a known accuracy of at least 50%,
// most accurate first; ties keep the model's trait order (FR-005a/b).
func topTraits(ts []nsip.Trait, n int) []nsip.Trait {
	var c []nsip.Trait
	for _, t := range ts {
		if t.HasAccuracy && t.Accuracy >= 50 {
			c = append(c, t)
		}
	}
	sort.SliceStable(c, func(i, j int) bool { return c[i].Accuracy > c[j].Accuracy })
	return c[:min(n, len(c))]
}

// traitCell is a trait as a top_traits cell: [code, value, accuracy%].
func traitCell(t nsip.Trait, c int) []any {
	return []any{clip(t.Code, c), t.Value, round(t.Accuracy, 2)}
}

// NextCall is a tool call the assistant can make as is.
type NextCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// pager is where a page sits in its result set and how to ask for more.
type pager struct {
	tool   string
	args   map[string]any // the call's arguments; page, page_size and skip are replaced
	page   int
	size   int
	rows   int // rows on this page, skipped ones included
	total  int
	skip   int // rows of this page the caller has seen already
	offset int // page*size, the first row's position in the result set
	// pos, when rows after skip were left out, holds the position (after
	// skip) of each row kept, in order; nil means every row is kept.
	pos []int
	// From row stop of this page on (counting skipped rows), the page
	// proves that no row, here or on a later page, meets the call's bound
	// on its sort trait: stopWhy says how, and next offers no call that
	// starts there. stopWhy is "" when the page proves nothing.
	stop    int
	stopWhy string
	bound   string // the sort trait the call bounds, "" if none
	ordered bool   // the page shows an order by bound
}

func newPager(tool string, args map[string]any, page, size, rows, total, skip int) pager {
	if page < 0 {
		page = 0
	}
	if size <= 0 {
		size = argInt(args, "page_size", rows)
	}
	skip = min(max(skip, 0), rows)
	return pager{tool: tool, args: args, page: page, size: size, rows: rows, total: total, skip: skip, offset: page * size}
}

// render shows the first k of rows (the page after its skipped rows), says
// where they sit and where the page ends, and gives the call for the rest.
func (p pager) render(f *fitter, ps *pageSummary, rows []json.RawMessage, k int, wrap func(*pageSummary) any) ([]byte, error) {
	ps.Rows, ps.Shown = rows[:k], k
	ps.ShownFrom, ps.ShownTo = 0, 0
	if k > 0 {
		ps.ShownFrom, ps.ShownTo = p.offset+p.skip+p.at(0)+1, p.offset+p.skip+p.at(k-1)+1
	}
	ps.PageTo = p.offset + p.rows
	ps.Next, ps.NextWithheld = p.nextOrWhy(k)
	out, err := nsip.PlainJSON(wrap(ps))
	if err == nil {
		f.rendered(out, ps.Next)
		f.withheld(ps.NextWithheld)
	}
	return out, err
}

// nextOrWhy is next, or nil and why when the rows it would ask for are
// past the page's proof that none can match (see pager.stop).
func (p pager) nextOrWhy(shown int) (*NextCall, string) {
	n := p.next(shown)
	if n == nil || p.stopWhy == "" || p.skip+p.consumed(shown) < p.stop {
		return n, ""
	}
	return nil, p.stopWhy
}

// next is the call for the rows after the shown ones: the rest of this
// page (the same page, skipping what was shown; the cache answers it
// without asking NSIP again), or the next page of the same size once all
// of it was shown; nil after the last row. When no row could be shown the
// call asks for a page of that one row, which is smaller.
func (p pager) next(shown int) *NextCall {
	at := p.skip + p.consumed(shown)
	switch {
	case shown == 0 && at < p.rows:
		return p.call(p.offset+at, 1, 0)
	case at < p.rows && p.size <= nsip.MaxPageSize:
		return p.call(p.page, p.size, at)
	case at < p.rows:
		return p.resume(p.offset + at)
	case p.rows == 0 || p.offset+p.rows >= p.total:
		return nil
	case p.rows < p.size || p.size > nsip.MaxPageSize:
		return p.resume(p.offset + p.rows)
	}
	return p.call(p.page+1, p.size, 0)
}

// at is the position after skip of the i-th row kept.
func (p pager) at(i int) int {
	if p.pos == nil {
		return i
	}
	return p.pos[i]
}

// consumed is how many rows after skip the first k kept rows account for:
// up to the k-th one, or all of them once every kept row is shown, so that
// rows left out after the last shown one are not asked for again. With
// none shown, it is the rows left out before the first kept one.
func (p pager) consumed(k int) int {
	switch {
	case p.pos == nil:
		return k
	case k >= len(p.pos):
		return p.rows - p.skip
	case k == 0:
		return p.pos[0]
	}
	return p.pos[k-1] + 1
}

// unshown counts the kept rows after skip that k shown rows leave.
func (p pager) unshown(k int) int {
	if p.pos == nil {
		return p.rows - p.skip - k
	}
	return len(p.pos) - k
}

// resume is the call starting at row position at, for pages that cannot
// simply be asked for again or in turn (a short page with rows after it,
// a page larger than the API gives): the API pages by page*page_size, so
// the size is the largest that divides at.
func (p pager) resume(at int) *NextCall {
	d := largestDivisor(at, min(max(p.size, 1), nsip.MaxPageSize))
	return p.call(at/d, d, 0)
}

func (p pager) call(page, size, skip int) *NextCall {
	a := make(map[string]any, len(p.args)+3)
	maps.Copy(a, p.args)
	a["page"], a["page_size"] = page, size
	delete(a, "skip")
	if skip > 0 {
		a["skip"] = skip
	}
	return &NextCall{Tool: p.tool, Arguments: a}
}

// largestDivisor is the largest d in [1, limit] dividing n (any d divides 0).
func largestDivisor(n, limit int) int {
	for d := limit; d > 1; d-- {
		if n%d == 0 {
			return d
		}
	}
	return 1
}

// argInt reads an integer argument that may have come from JSON (float64)
// or from Go code (int), with def when absent.
func argInt(args map[string]any, key string, def int) int {
	switch v := args[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return int(i)
		}
	}
	return def
}

// traitOrder sorts codes as nsip.TraitCodes lists them, unknown codes after
// in alphabetical order.
func traitOrder(codes []string) {
	rank := func(c string) int {
		if i := slices.Index(nsip.TraitCodes, c); i >= 0 {
			return i
		}
		return len(nsip.TraitCodes)
	}
	sort.Slice(codes, func(i, j int) bool {
		ri, rj := rank(codes[i]), rank(codes[j])
		if ri != rj {
			return ri < rj
		}
		return codes[i] < codes[j]
	})
}
