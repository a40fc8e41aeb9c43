package summarize

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

var (
	testCounterOnce sync.Once
	testCounter     *Counter
)

// newTestSummarizer returns a Summarizer and its Counter; the encoder is
// loaded once for the whole test binary.
func newTestSummarizer(t testing.TB) (*Summarizer, *Counter) {
	t.Helper()
	testCounterOnce.Do(func() {
		c, err := NewCounter()
		if err != nil {
			panic(err)
		}
		testCounter = c
	})
	c := &Counter{enc: testCounter.enc}
	return New(c), c
}

func compactOf(t testing.TB, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("test data is not JSON: %v", err)
	}
	return b.String()
}

// checkResult asserts what holds for every result: Text is JSON, Tokens is
// its count, and the budget rules of FR-005/FR-015/SC-002.
func checkResult(t testing.TB, c *Counter, req Request, r Result) {
	t.Helper()
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if !json.Valid([]byte(r.Text)) {
		t.Fatalf("result is not JSON: %.200s", r.Text)
	}
	if got := c.Count(r.Text); got != r.Tokens {
		t.Errorf("Tokens = %d, but the text has %d", r.Tokens, got)
	}
	if r.Tokens > budget {
		t.Errorf("result has %d tokens, over the budget of %d", r.Tokens, budget)
	}
	if !r.Summarized {
		if want := compactOf(t, req.Raw); r.Text != want {
			t.Errorf("pass-through differs from the compact upstream JSON:\n got %.300s\nwant %.300s", r.Text, want)
		}
		return
	}
	// Asking for traits or skipped rows shapes even an answer that fits;
	// the share rule holds only on the automatic path.
	shaped := len(req.Traits) > 0 || req.Skip > 0
	if r.OriginalTokens <= budget && !shaped {
		t.Errorf("summarized an answer of %d tokens within the budget of %d", r.OriginalTokens, budget)
	}
	if !req.view() && float64(r.Tokens) > MaxSummaryShare*float64(r.OriginalTokens) {
		t.Errorf("summary has %d tokens, more than 30%% of the original %d", r.Tokens, r.OriginalTokens)
	}
	var head struct {
		Summary bool `json:"summary"`
	}
	if err := json.Unmarshal([]byte(r.Text), &head); err != nil || !head.Summary {
		t.Errorf("a summary must say so with \"summary\":true: %.200s", r.Text)
	}
}

var clipMark = regexp.MustCompile(`…\(\+[0-9]+ chars\)$`)

// sameOrClipped asserts got is want, or want cut short with the clip note
// (allowed only for values longer than the shortest clip level).
func sameOrClipped(t testing.TB, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	loc := clipMark.FindStringIndex(got)
	if loc == nil || len(want) <= clipLevels[len(clipLevels)-1] || !strings.HasPrefix(want, got[:loc[0]]) {
		t.Errorf("%s = %.80q, want %.80q", what, got, want)
	}
}

// checkTopTraits asserts cells are the source's most accurate traits: each
// has accuracy >= 50, they run from most to least accurate, there are as
// many as the source has eligible (up to n), and no eligible trait left out
// is more accurate than the last one shown.
func checkTopTraits(t testing.TB, what string, cells []traitObject, src []nsip.Trait, n int) {
	t.Helper()
	var eligible []nsip.Trait
	for _, s := range src {
		if s.HasAccuracy && s.Accuracy >= 50 {
			eligible = append(eligible, s)
		}
	}
	if len(cells) != min(n, len(eligible)) {
		t.Errorf("%s: %d top traits, want %d (of %d eligible)", what, len(cells), min(n, len(eligible)), len(eligible))
		return
	}
	shown := map[string]bool{}
	for i, c := range cells {
		var s *nsip.Trait
		for j := range src {
			if src[j].Code == c.Code {
				s = &src[j]
			}
		}
		if s == nil {
			t.Errorf("%s: trait %q is not in the source", what, c.Code)
			continue
		}
		if c.Value != s.Value || math.Abs(c.Accuracy-s.Accuracy) > 0.005 || !s.HasAccuracy || s.Accuracy < 50 {
			t.Errorf("%s: trait %+v, source has %+v", what, c, *s)
		}
		if i > 0 && cells[i-1].Accuracy < c.Accuracy {
			t.Errorf("%s: traits not ordered by accuracy: %+v", what, cells)
		}
		shown[c.Code] = true
	}
	if len(cells) > 0 {
		last := cells[len(cells)-1].Accuracy
		for _, e := range eligible {
			if !shown[e.Code] && e.Accuracy > last+0.005 {
				t.Errorf("%s: %s (accuracy %v) left out for a less accurate one", what, e.Code, e.Accuracy)
			}
		}
	}
}

// cellTraits reads [code, value, accuracy] cells.
func cellTraits(t testing.TB, raw json.RawMessage) []traitObject {
	t.Helper()
	var cells [][]json.RawMessage
	if string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, &cells); err != nil {
		t.Fatalf("trait cells %s: %v", raw, err)
	}
	var out []traitObject
	for _, c := range cells {
		out = append(out, cellTrait(t, c))
	}
	return out
}

func cellTrait(t testing.TB, c []json.RawMessage) traitObject {
	t.Helper()
	var o traitObject
	if len(c) != 3 || json.Unmarshal(c[0], &o.Code) != nil || json.Unmarshal(c[1], &o.Value) != nil || json.Unmarshal(c[2], &o.Accuracy) != nil {
		t.Fatalf("trait cell %s is not [code, value, accuracy]", c)
	}
	return o
}

// pageOut is a search or progeny summary as the client reads it.
type pageOut struct {
	pageSummary
	Rows [][]json.RawMessage `json:"rows"`
}

func str(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s is not a string", raw)
	}
	return s
}

func decode[T any](t testing.TB, text string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("summary does not decode: %v\n%.300s", err, text)
	}
	return v
}

// checkSearch asserts a search summary against its page: counts, columns,
// and every shown row's identifiers and top traits.
func checkSearch(t testing.TB, text string, v *nsip.SearchResults) pageOut {
	t.Helper()
	p := decode[pageOut](t, text)
	if p.Kind != KindSearch || *p.TotalCount != v.TotalCount || p.Page != v.Page || p.PageSize != v.PageSize || p.PageRows != len(v.Results) {
		t.Errorf("header %s/%d/%d/%d/%d, want search_results/%d/%d/%d/%d", p.Kind, p.TotalCount, p.Page, p.PageSize, p.PageRows, v.TotalCount, v.Page, v.PageSize, len(v.Results))
	}
	for _, col := range []string{"lpn_id", "sex", "dob", "status"} {
		if !slices.Contains(p.Columns, col) {
			t.Errorf("columns %v lack %s", p.Columns, col)
		}
	}
	skip := checkPositions(t, p)
	top := 0
	for _, row := range p.Rows {
		if cells := byColumn(t, p, row); cells["top_traits"] != nil {
			top = max(top, len(cellTraits(t, cells["top_traits"])))
		}
	}
	for i, row := range p.Rows {
		src := v.Results[skip+i]
		cells := byColumn(t, p, row)
		sameOrClipped(t, "lpn_id", str(t, cells["lpn_id"]), src.LPNID)
		if cells["sire"] != nil {
			sameOrClipped(t, "sire", str(t, cells["sire"]), src.Sire)
			sameOrClipped(t, "dam", str(t, cells["dam"]), src.Dam)
		}
		sameOrClipped(t, "status", str(t, cells["status"]), src.Status)
		if cells["genotyped"] != nil {
			sameOrClipped(t, "genotyped", str(t, cells["genotyped"]), src.Genotyped)
		}
		sameOrClipped(t, "sex", str(t, cells["sex"]), sexCode(src.Sex))
		sameOrClipped(t, "dob", str(t, cells["dob"]), shortDate(src.DateOfBirth))
		checkTraitColumns(t, p, cells, src.LPNID, src.Traits)
		if cells["top_traits"] != nil {
			var rest []nsip.Trait
			for _, tr := range src.Traits {
				if !slices.Contains(p.Columns, tr.Code) {
					rest = append(rest, tr)
				}
			}
			checkTopTraits(t, "row "+src.LPNID, cellTraits(t, cells["top_traits"]), rest, top)
		}
	}
	checkNext(t, p, toolname.SearchAnimals)
	return p
}

// byColumn reads a table row by its column names.
func byColumn(t testing.TB, p pageOut, row []json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	if len(row) != len(p.Columns) {
		t.Fatalf("row of %d cells under %d columns %v", len(row), len(p.Columns), p.Columns)
	}
	m := map[string]json.RawMessage{}
	for i, c := range p.Columns {
		m[c] = row[i]
	}
	return m
}

// checkTraitColumns asserts every trait column's cell: the row's value and
// accuracy, null accuracy when it has none, a null cell when it lacks it.
func checkTraitColumns(t testing.TB, p pageOut, cells map[string]json.RawMessage, what string, src []nsip.Trait) {
	t.Helper()
	for _, col := range p.Columns {
		if slices.Contains(identityColumns, col) {
			continue
		}
		var cell []*float64
		if err := json.Unmarshal(cells[col], &cell); err != nil {
			t.Fatalf("%s %s cell %s: %v", what, col, cells[col], err)
		}
		tr, ok := findTrait(src, col)
		switch {
		case !ok && cell != nil:
			t.Errorf("%s: %s cell %s, but the row lacks the trait", what, col, cells[col])
		case ok && (len(cell) != 2 || cell[0] == nil || *cell[0] != tr.Value):
			t.Errorf("%s: %s cell %s, want value %v", what, col, cells[col], tr.Value)
		case ok && tr.HasAccuracy != (cell[1] != nil):
			t.Errorf("%s: %s cell %s, accuracy known: %v", what, col, cells[col], tr.HasAccuracy)
		case ok && tr.HasAccuracy && math.Abs(*cell[1]-tr.Accuracy) > 0.005:
			t.Errorf("%s: %s accuracy %v, want %v", what, col, *cell[1], tr.Accuracy)
		}
	}
}

// checkPositions asserts the shown rows' positions and the page's end, and
// returns how many rows of the page were skipped.
func checkPositions(t testing.TB, p pageOut) int {
	t.Helper()
	if p.Shown != len(p.Rows) || p.Shown > p.PageRows {
		t.Fatalf("shown %d with %d rows of %d", p.Shown, len(p.Rows), p.PageRows)
	}
	offset := p.Page * p.PageSize
	if p.PageTo != offset+p.PageRows {
		t.Errorf("page_to %d, want %d", p.PageTo, offset+p.PageRows)
	}
	if p.Shown == 0 {
		return 0
	}
	skip := p.ShownFrom - 1 - offset
	if skip < 0 || p.ShownTo-p.ShownFrom+1 != p.Shown || skip+p.Shown > p.PageRows {
		t.Fatalf("shown_from %d shown_to %d for %d rows on page at %d", p.ShownFrom, p.ShownTo, p.Shown, offset)
	}
	return skip
}

// checkNext asserts the hint starts exactly after the last shown row: the
// same page skipping what was shown, or the next page when all of it was.
func checkNext(t testing.TB, p pageOut, tool string) {
	t.Helper()
	offset := p.Page * p.PageSize
	end := offset + p.PageRows
	at := p.ShownTo
	if p.Shown == 0 {
		// Nothing fitted: the hint is a page of the one row after the
		// skipped ones, wherever that is.
		if p.PageRows > 0 && (p.Next == nil || argInt(p.Next.Arguments, "page_size", 0) != 1 || argInt(p.Next.Arguments, "page", -1) < offset) {
			t.Errorf("no row shown and the hint %+v is not a one-row page", p.Next)
		}
		return
	}
	more := at < end || (p.PageRows > 0 && end < *p.TotalCount)
	if !more {
		if p.Next != nil {
			t.Errorf("hint %+v although everything was shown", p.Next)
		}
		return
	}
	if p.Next == nil {
		t.Fatalf("no hint although rows from %d on remain", at)
	}
	page, size, skip := argInt(p.Next.Arguments, "page", -1), argInt(p.Next.Arguments, "page_size", -1), argInt(p.Next.Arguments, "skip", 0)
	if p.Next.Tool != tool || size < 1 || size > 100 || page*size+skip != at || skip >= size {
		t.Errorf("hint %s page %d size %d skip %d, want %s starting after row %d", p.Next.Tool, page, size, skip, tool, at)
	}
	if at < end && p.Shown > 0 && p.PageSize <= nsip.MaxPageSize && (page != p.Page || size != p.PageSize) {
		t.Errorf("hint for the rest of the page asks for page %d size %d, not the same page", page, size)
	}
}

// checkProgeny asserts a progeny summary against its page.
func checkProgeny(t testing.TB, text string, v *nsip.ProgenyPage, nested bool) pageOut {
	t.Helper()
	p := decode[pageOut](t, text)
	checkProgenyPage(t, p, v, nested)
	return p
}

func checkProgenyPage(t testing.TB, p pageOut, v *nsip.ProgenyPage, nested bool) {
	t.Helper()
	if !nested && (p.Kind != KindProgeny || p.LPNID != v.LPNID) {
		t.Errorf("kind %q lpn %q, want progeny of %q", p.Kind, p.LPNID, v.LPNID)
	}
	if *p.TotalCount != v.TotalCount || p.PageRows != len(v.Animals) {
		t.Errorf("total %d rows %d, want %d and %d", p.TotalCount, p.PageRows, v.TotalCount, len(v.Animals))
	}
	// The sex split covers the whole page.
	if p.Sex == nil || p.Sex.M+p.Sex.F+p.Sex.Other != len(v.Animals) {
		t.Errorf("sex split %+v does not add up to %d", p.Sex, len(v.Animals))
	}
	checkStats(t, p.TraitStats, p.Omitted, v.Animals, p.Columns[min(3, len(p.Columns)):])
	if strings.Join(p.Columns[:min(3, len(p.Columns))], ",") != "lpn_id,sex,dob" {
		t.Errorf("columns %v", p.Columns)
	}
	skip := checkPositions(t, p)
	for i, row := range p.Rows {
		src := v.Animals[skip+i]
		cells := byColumn(t, p, row)
		sameOrClipped(t, "lpn_id", str(t, cells["lpn_id"]), src.LPNID)
		sameOrClipped(t, "sex", str(t, cells["sex"]), sexCode(src.Sex))
		sameOrClipped(t, "dob", str(t, cells["dob"]), shortDate(src.DateOfBirth))
		checkTraitColumns(t, p, cells, "progeny "+src.LPNID, src.Traits)
	}
	checkNext(t, p, toolname.GetProgeny)
	if p.Next != nil && p.Next.Arguments["lpn_id"] != v.LPNID {
		t.Errorf("hint for lpn_id %v, want %q", p.Next.Arguments["lpn_id"], v.LPNID)
	}
}

// checkStats recomputes the per-trait statistics of a page, the holders
// of the extremes included.
// With traits asked for, the statistics cover exactly the trait columns.
func checkStats(t testing.TB, st *statsTable, omitted []string, rows []nsip.ProgenyRow, cols []string) {
	t.Helper()
	asked := st != nil && len(st.Rows) == len(cols)
	for i := 0; asked && i < len(cols); i++ {
		code, _ := st.Rows[i][0].(string)
		asked = slices.Contains(cols, code)
	}
	type agg struct {
		n        int
		sum      float64
		lo, high float64
	}
	want := map[string]*agg{}
	holds := map[string]nsip.Trait{} // code + lpn -> trait
	for _, r := range rows {
		for _, tr := range r.Traits {
			if asked && !slices.Contains(cols, tr.Code) {
				continue
			}
			a := want[tr.Code]
			if a == nil {
				a = &agg{lo: math.Inf(1), high: math.Inf(-1)}
				want[tr.Code] = a
			}
			a.n++
			a.sum += tr.Value
			a.lo, a.high = math.Min(a.lo, tr.Value), math.Max(a.high, tr.Value)
			holds[tr.Code+"/"+r.LPNID] = tr
		}
	}
	if len(want) == 0 && st != nil {
		t.Errorf("trait stats %v for a page without traits", st)
	}
	if st == nil {
		// They give way when the budget is tight, but say so.
		if len(want) > 0 && !slices.Contains(omitted, omitStats) {
			t.Errorf("trait statistics left out without a word: %v", omitted)
		}
		return
	}
	if len(st.Rows) != len(want) || strings.Join(st.Columns, ",") != strings.Join(statsColumns, ",") {
		t.Fatalf("trait stats %v, want %d traits", st, len(want))
	}
	for _, r := range st.Rows {
		b, _ := json.Marshal(r)
		var cells []json.RawMessage
		_ = json.Unmarshal(b, &cells)
		var code, maxLPN, minLPN string
		var n int
		var mean, lo, high float64
		var maxAcc, minAcc *float64
		for i, dst := range []any{&code, &n, &mean, &high, &maxLPN, &maxAcc, &lo, &minLPN, &minAcc} {
			if err := json.Unmarshal(cells[i], dst); err != nil {
				t.Fatalf("stats row %s: %v", b, err)
			}
		}
		a := want[code]
		if a == nil || a.n != n || math.Abs(a.sum/float64(a.n)-mean) > 0.0005+1e-9 || a.lo != lo || a.high != high {
			t.Errorf("stats for %s = n %d mean %v min %v max %v, want %+v", code, n, mean, lo, high, a)
		}
		for _, h := range []struct {
			lpn string
			v   float64
			acc *float64
		}{{maxLPN, high, maxAcc}, {minLPN, lo, minAcc}} {
			tr, ok := holds[code+"/"+h.lpn]
			if loc := clipMark.FindStringIndex(h.lpn); !ok && loc != nil {
				for k, x := range holds {
					if strings.HasPrefix(k, code+"/"+h.lpn[:loc[0]]) && x.Value == h.v {
						tr, ok = x, true
					}
				}
			}
			if !ok || tr.Value != h.v || tr.HasAccuracy != (h.acc != nil) || (h.acc != nil && math.Abs(*h.acc-tr.Accuracy) > 0.005) {
				t.Errorf("stats for %s name %s as holding %v (accuracy %v); it has %+v", code, h.lpn, h.v, h.acc, tr)
			}
		}
	}
}

// animalOut is an animal summary (or a profile's animal block).
type animalOut struct {
	Summary      bool          `json:"summary"`
	Kind         string        `json:"kind"`
	LPNID        *string       `json:"lpn_id"`
	Breed        string        `json:"breed"`
	BreedID      int           `json:"breed_id"`
	Sire         string        `json:"sire"`
	Dam          string        `json:"dam"`
	TotalProgeny *int          `json:"total_progeny"`
	Status       string        `json:"status"`
	DOB          string        `json:"dob"`
	Gender       string        `json:"gender"`
	Genotyped    string        `json:"genotyped"`
	Contact      *contactBlock `json:"contact"`
	TopTraits    []traitObject `json:"top_traits"`
}

// checkAnimal asserts every FR-005a field of an animal, the full contact
// block included.
func checkAnimal(t testing.TB, a animalOut, v *nsip.AnimalDetails) {
	t.Helper()
	if a.LPNID == nil || a.TotalProgeny == nil {
		t.Fatalf("lpn_id or total_progeny missing: %+v", a)
	}
	sameOrClipped(t, "lpn_id", *a.LPNID, v.LPNID)
	if *a.TotalProgeny != v.TotalProgeny || a.BreedID != v.BreedID {
		t.Errorf("total_progeny %d breed_id %d, want %d and %d", *a.TotalProgeny, a.BreedID, v.TotalProgeny, v.BreedID)
	}
	for _, f := range [][3]string{
		{"breed", a.Breed, v.Breed}, {"sire", a.Sire, v.Sire}, {"dam", a.Dam, v.Dam},
		{"status", a.Status, v.Status}, {"dob", a.DOB, v.DateOfBirth}, {"gender", a.Gender, v.Gender},
	} {
		sameOrClipped(t, f[0], f[1], f[2])
	}
	if v.Genotyped == "" {
		if a.Genotyped != "not stated by NSIP" {
			t.Errorf("genotyped %q for a record that does not state it", a.Genotyped)
		}
	} else {
		sameOrClipped(t, "genotyped", a.Genotyped, v.Genotyped)
	}
	c := v.Contact
	if c.IsZero() {
		if a.Contact != nil {
			t.Errorf("contact %+v for an animal without one", a.Contact)
		}
	} else {
		if a.Contact == nil {
			t.Fatalf("contact block missing; source has %+v", c)
		}
		got := a.Contact
		for _, f := range [][3]string{
			{"flock", got.Flock, c.FlockCode}, {"farm", got.Farm, c.FarmName}, {"name", got.Name, c.ContactName},
			{"phone", got.Phone, c.Phone}, {"email", got.Email, c.Email}, {"address", got.Address, c.Address},
			{"city", got.City, c.City}, {"state", got.State, c.State}, {"zip", got.Zip, c.ZipCode},
		} {
			sameOrClipped(t, "contact "+f[0], f[1], f[2])
		}
	}
	if a.TopTraits == nil {
		t.Errorf("top_traits missing")
	}
	checkTopTraits(t, "animal", a.TopTraits, v.Traits, 3)
}

// lineageOut is a lineage summary as the client reads it.
type lineageOut struct {
	lineageBlock
	Ancestors [][]json.RawMessage `json:"ancestors"`
}

func checkNode(t testing.TB, what string, got *nodeBlock, n *nsip.LineageNode) {
	t.Helper()
	if n == nil {
		if got != nil {
			t.Errorf("%s: %+v for a missing animal", what, got)
		}
		return
	}
	if got == nil {
		t.Fatalf("%s missing", what)
	}
	for _, f := range [][3]string{{"lpn_id", got.LPNID, n.LPNID}, {"farm", got.Farm, n.Farm}, {"dob", got.DOB, n.DOB}, {"sex", got.Sex, n.Sex}, {"status", got.Status, n.Status}} {
		sameOrClipped(t, what+" "+f[0], f[1], f[2])
	}
	if len(got.Indexes) != len(n.Indexes) {
		t.Errorf("%s: indexes %v, want %v", what, got.Indexes, n.Indexes)
	}
	for _, ix := range n.Indexes {
		if v, ok := got.Indexes[ix.Name]; !ok || v != ix.Value {
			t.Errorf("%s: index %q = %v, want %v", what, ix.Name, v, ix.Value)
		}
	}
}

// walk finds the pedigree node at a path of S (sire) and D (dam) steps.
func walk(n *nsip.LineageNode, path string) *nsip.LineageNode {
	for _, step := range path {
		if n == nil {
			return nil
		}
		switch step {
		case 'S':
			n = n.Sire
		case 'D':
			n = n.Dam
		default:
			return nil
		}
	}
	return n
}

// checkLineage asserts subject and parents in full, ancestors by path,
// shallow generations kept before deep ones, and the omission note.
func checkLineage(t testing.TB, l lineageOut, v *nsip.Lineage) {
	t.Helper()
	checkNode(t, "subject", l.Subject, &v.Subject)
	checkNode(t, "sire", l.Sire, v.Subject.Sire)
	checkNode(t, "dam", l.Dam, v.Subject.Dam)
	perGen := map[int]int{}
	var count func(n *nsip.LineageNode, g int)
	count = func(n *nsip.LineageNode, g int) {
		if n == nil {
			return
		}
		perGen[g]++
		count(n.Sire, g+1)
		count(n.Dam, g+1)
	}
	count(&v.Subject, 0)
	deepest := 0
	for g := range perGen {
		deepest = max(deepest, g)
	}
	if l.Generations != deepest {
		t.Errorf("generations %d, want %d", l.Generations, deepest)
	}
	shownGen := map[int]int{}
	farms := len(l.Columns) == 3
	for _, row := range l.Ancestors {
		path := str(t, row[0])
		n := walk(&v.Subject, path)
		if n == nil || len(path) < 2 {
			t.Fatalf("ancestor path %q is not in the pedigree", path)
		}
		sameOrClipped(t, "ancestor "+path, str(t, row[1]), n.LPNID)
		if farms {
			sameOrClipped(t, "farm of "+path, str(t, row[2]), n.Farm)
		}
		shownGen[len(path)]++
	}
	omitted := 0
	for g := 2; g <= deepest; g++ {
		switch shownGen[g] {
		case perGen[g]:
			if len(l.Omitted) > 0 && l.Omitted[0] < g {
				t.Errorf("generation %d shown after omitting %v", g, l.Omitted)
			}
		case 0:
			omitted += perGen[g]
		default:
			t.Errorf("generation %d partly shown (%d of %d)", g, shownGen[g], perGen[g])
		}
	}
	var wantOmitted []int
	for g := 2; g <= deepest; g++ {
		if shownGen[g] == 0 {
			wantOmitted = append(wantOmitted, g)
		}
	}
	sort.Ints(l.Omitted)
	if len(wantOmitted) != len(l.Omitted) || omitted != l.OmittedCount {
		t.Errorf("omitted generations %v (%d animals), want %v (%d)", l.Omitted, l.OmittedCount, wantOmitted, omitted)
	}
	if (omitted > 0) != (l.Next != nil) {
		t.Errorf("hint %+v with %d omitted ancestors", l.Next, omitted)
	}
}

// checkShape runs the FR-005a checks of the request's kind.
func checkShape(t *testing.T, req Request, text string) {
	t.Helper()
	switch v := req.Value.(type) {
	case *nsip.SearchResults:
		checkSearch(t, text, v)
	case *nsip.ProgenyPage:
		checkProgeny(t, text, v, false)
	case *nsip.Lineage:
		checkLineage(t, decode[lineageOut](t, text), v)
	case *nsip.AnimalDetails:
		checkAnimal(t, decode[animalOut](t, text), v)
	case *nsip.AnimalProfile:
		checkProfile(t, text, v)
	default:
		t.Fatalf("no check for %T", v)
	}
}
