package gateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// statusCalls are a call of every tool that takes search criteria, each
// with the status given: the search, a ranking by weights and by NSIP's
// index, and a summary of a search's animals.
func statusCalls(status string) map[string][]map[string]any {
	crit := map[string]any{"status": status}
	return map[string][]map[string]any{
		"nsip_search_animals": {{"breed_id": 640, "page_size": 30, "search_criteria": crit}},
		"nsip_rank_animals": {
			{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5, "search_criteria": crit},
			{"breed_id": 640, "index": "US Hair Index", "top_n": 5, "search_criteria": crit},
		},
		"nsip_flock_summary": {{"search": map[string]any{"breed_id": 640, "search_criteria": crit}}},
	}
}

// takesCriteria reports whether a tool's arguments hold search criteria,
// as search_criteria or a search object.
func takesCriteria(d *toolDef) bool {
	b, _ := json.Marshal(d.Args.InputSchema())
	return strings.Contains(string(b), `"search_criteria"`) || strings.Contains(string(b), `"search":`)
}

// rowsOf are the rows an answer of tool shows, as status, birth year (0
// when not shown) and LPN ID.
type shownRow struct {
	id, status string
	year       int
}

func rowsOf(t *testing.T, tool, text string) []shownRow {
	t.Helper()
	var a struct {
		Columns []string          `json:"columns"`
		Top     [][]any           `json:"top"`
		Rows    []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatalf("%s: %v: %.300s", tool, err, text)
	}
	rows := a.Top
	for _, r := range a.Rows {
		var cells []any
		if json.Unmarshal(r, &cells) == nil {
			rows = append(rows, cells)
		}
	}
	at := func(name string) int { return slices.Index(a.Columns, name) }
	var out []shownRow
	for _, r := range rows {
		s := shownRow{}
		if i := at("lpn_id"); i >= 0 {
			s.id, _ = r[i].(string)
		}
		if i := at("status"); i >= 0 {
			s.status, _ = r[i].(string)
		}
		if i := at("birth_year"); i >= 0 {
			y, _ := r[i].(float64)
			s.year = int(y)
		}
		if i := at("dob"); i >= 0 { // a summary's: a date, or a year alone
			d, _ := r[i].(string)
			s.year, _ = strconv.Atoi(d[:min(4, len(d))])
		}
		out = append(out, s)
	}
	return out
}

// Every tool that takes criteria, asked for "living" animals on the
// stand-in, answers with some, none dead or culled, and says how the word
// was read: no exact answer of nothing, as NSIP gives for a status it does
// not record.
func TestLivingIsNeverAnExactEmptyAnswer(t *testing.T) {
	e := newEnv(t)
	calls := statusCalls("living")
	for _, d := range registry {
		if takesCriteria(d) && calls[d.Name] == nil {
			t.Errorf("%s takes search criteria but is not tested here", d.Name)
		}
	}
	for tool, list := range calls {
		for _, args := range list {
			r := e.call(tool, args).mustOK(t)
			notes, _ := json.Marshal(r.meta["notes"])
			if !strings.Contains(string(notes), `status \"living\" read as every status but DEAD and CULL`) ||
				!strings.Contains(r.text, `status \"living\" read as every status but DEAD and CULL`) {
				t.Errorf("%s: _meta.notes %s; want the word's reading there and in the answer: %.300s", tool, notes, r.text)
			}
			if tool == "nsip_flock_summary" {
				var f struct {
					Animals  int            `json:"animals"`
					ByStatus map[string]int `json:"by_status"`
					LeftOut  struct {
						Count int    `json:"count"`
						Why   string `json:"why"`
					} `json:"left_out"`
				}
				_ = json.Unmarshal([]byte(r.text), &f)
				living, gone := 0, 0
				d := e.up.Data()
				for _, id := range d.AnimalIDs() {
					if an := standIn(d, id); an.BreedID == 640 && (an.Status == "DEAD" || an.Status == "CULL") {
						gone++
					} else if an.BreedID == 640 {
						living++
					}
				}
				if f.Animals != living || f.ByStatus["DEAD"]+f.ByStatus["CULL"] != 0 || f.LeftOut.Count != gone || !strings.Contains(f.LeftOut.Why, "read as every status but DEAD and CULL") {
					t.Errorf("flock summary: %d animals %v, %d left out (%q); want the %d living counted, the %d dead or culled left out", f.Animals, f.ByStatus, f.LeftOut.Count, f.LeftOut.Why, living, gone)
				}
				continue
			}
			rows := rowsOf(t, tool, r.text)
			if len(rows) == 0 {
				t.Errorf("%s %v: no animals: %.300s", tool, args, r.text)
			}
			for _, row := range rows {
				if row.status == "DEAD" || row.status == "CULL" || row.status == "" {
					t.Errorf("%s: row %+v is not shown living", tool, row)
				}
			}
		}
	}
}

// A status NSIP does not record and no word means is refused before NSIP
// is asked, naming NSIP's statuses and the words; a status in another
// case is that status.
func TestUnknownStatusIsRefused(t *testing.T) {
	e := newEnv(t)
	for tool, list := range statusCalls("alvie") {
		before := e.up.Requests(nsiptest.EndpointSearch)
		te := e.call(tool, list[0]).errorBody(t)
		if !strings.HasSuffix(te.Field, "search_criteria.status") || !strings.Contains(te.Problem, `"ALVIE" is not a status NSIP records`) ||
			!strings.Contains(te.Expected, "CURRENT, SOLD, DEAD, COMMERCIAL, CULL, EXPORTED") || !strings.Contains(te.Expected, "living/alive (every status but DEAD and CULL)") {
			t.Errorf("%s: %+v; want search_criteria.status refused with NSIP's statuses and the words", tool, te)
		}
		if n := e.up.Requests(nsiptest.EndpointSearch) - before; n != 0 {
			t.Errorf("%s: %d searches for a status that was refused", tool, n)
		}
	}
	r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 30, "search_criteria": map[string]any{"status": "Sold"}}).mustOK(t)
	for _, row := range rowsOf(t, "nsip_search_animals", r.text) {
		if row.status != "SOLD" {
			t.Errorf("status Sold: row %+v", row)
		}
	}
}

// Each word of the table reads as its meaning on the stand-in: the rows
// shown are of the statuses it holds, each with its birth year (from the
// LPN ID, as live rows carry no date), a word that is no code says how it
// was read, and one of several statuses counts the rows it left out.
func TestEachStatusWord(t *testing.T) {
	e := newEnv(t)
	for _, w := range nsip.StatusWords() {
		m, _ := nsip.StatusWord(w)
		r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 100, "search_criteria": map[string]any{"status": w}}).mustOK(t)
		rows := rowsOf(t, "nsip_search_animals", r.text)
		if len(rows) == 0 {
			t.Errorf("%s: no rows", w)
		}
		for _, row := range rows {
			if an := standIn(e.up.Data(), row.id); !m.Holds(row.status) || row.status != an.Status || row.year != an.Born.Year() {
				t.Errorf("%s: row %+v; the animal is %s, born %d", w, row, an.Status, an.Born.Year())
			}
		}
		if !strings.Contains(r.text, `"born":"a dob of a year alone is the year in the LPN ID`) {
			t.Errorf("%s: the summary does not say where its birth years came from: %.300s", w, r.text)
		}
		notes, _ := json.Marshal(r.meta["notes"])
		if said := strings.Contains(string(notes), fmt.Sprintf(`status \"%s\" read as`, w)); said != (w != strings.ToLower(m.Code)) {
			t.Errorf("%s: _meta.notes %s", w, notes)
		}
		if _, held := r.meta["status_held"]; held != m.Several() {
			t.Errorf("%s: status_held %v", w, r.meta["status_held"])
		}
		if read := strings.Contains(r.text, fmt.Sprintf(`status \"%s\" read as`, w)); read != (w != strings.ToLower(m.Code)) {
			t.Errorf("%s: the summary says how the word was read: %v: %.300s", w, read, r.text)
		}
	}
}

// A search for "living" animals is NSIP's page of every status held to
// the word: the rows left out are counted by status as a brute force
// reading of the stand-in's page counts them, and total_count is null,
// NSIP's count being of every status. A breed whose animals all fit one
// page has its living counted exactly.
func TestLivingSearchIsCounted(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	ids, _ := d.Search(640, nsiptest.Criteria{}, "", false)
	r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 100, "page": 1, "search_criteria": map[string]any{"status": "alive"}}).mustOK(t)
	want, kept := map[string]int{}, 0
	for _, id := range ids[100:min(200, len(ids))] {
		if st := standIn(d, id).Status; st == "DEAD" || st == "CULL" {
			want[st]++
		} else {
			kept++
		}
	}
	var held struct {
		LeftOut     int            `json:"left_out"`
		ByStatus    map[string]int `json:"by_status"`
		TotalProven bool           `json:"total_proven"`
	}
	b, _ := json.Marshal(r.meta["status_held"])
	_ = json.Unmarshal(b, &held)
	if rows := rowsOf(t, "nsip_search_animals", r.text); len(rows) != kept || held.LeftOut != want["DEAD"]+want["CULL"] ||
		held.ByStatus["DEAD"] != want["DEAD"] || held.ByStatus["CULL"] != want["CULL"] || held.TotalProven || r.meta["total_count"] != nil {
		t.Errorf("page 1: %d rows, status_held %s, total_count %v; want %d rows, %v left out, total_count null", len(rows), b, r.meta["total_count"], kept, want)
	}
	if next, _ := r.meta["next"].(map[string]any); next == nil || next["arguments"].(map[string]any)["page"] != 2.0 {
		t.Errorf("next %v; want NSIP's page 2", r.meta["next"])
	}

	// A page small enough to pass through is summarized all the same, with
	// every living row of NSIP's page of three.
	r = e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 3, "search_criteria": map[string]any{"status": "living"}}).mustOK(t)
	want3 := 0
	for _, id := range ids[:3] {
		if st := standIn(d, id).Status; st != "DEAD" && st != "CULL" {
			want3++
		}
	}
	if rows := rowsOf(t, "nsip_search_animals", r.text); len(rows) != want3 || r.meta["summarized"] != true {
		t.Errorf("page of 3: %d rows (summarized %v), want the %d living: %.300s", len(rows), r.meta["summarized"], want3, r.text)
	}

	// The smallest breed of the stand-in, read whole on one page.
	small, n := 0, 0
	for _, b := range d.BreedIDs() {
		if ids, _ := d.Search(b, nsiptest.Criteria{}, "", false); len(ids) > 0 && (small == 0 || len(ids) < n) {
			small, n = b, len(ids)
		}
	}
	if n > 100 {
		t.Fatalf("no breed of the stand-in fits a page: smallest %d has %d", small, n)
	}
	ids, _ = d.Search(small, nsiptest.Criteria{}, "", false)
	living := 0
	for _, id := range ids {
		if st := standIn(d, id).Status; st != "DEAD" && st != "CULL" {
			living++
		}
	}
	r = e.call("nsip_search_animals", map[string]any{"breed_id": small, "page_size": 100, "search_criteria": map[string]any{"status": "living"}}).mustOK(t)
	if got, _ := r.meta["total_count"].(float64); int(got) != living || len(rowsOf(t, "nsip_search_animals", r.text)) != living {
		t.Errorf("breed %d: total_count %v; want the %d living of its %d animals", small, r.meta["total_count"], living, n)
	}
}

// A ranking of rams without a status lists CURRENT rams only, each with
// its birth year and status, and they are the best CURRENT rams of the
// stand-in by brute force, though better rams of other statuses exist.
func TestDefaultRankOfRamsIsUsable(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 20,
		"search_criteria": map[string]any{"gender": "Male"}}).mustOK(t)
	type ram struct {
		id  string
		wwt float64
	}
	var usable, all []ram
	d := e.up.Data()
	for _, id := range d.AnimalIDs() {
		an := standIn(d, id)
		tr, ok := an.Trait("WWT")
		if an.BreedID != 640 || an.Gender != "Male" || !ok {
			continue
		}
		all = append(all, ram{id, tr.Value})
		if an.Status == "CURRENT" {
			usable = append(usable, ram{id, tr.Value})
		}
	}
	best := func(x, y ram) int { return cmp.Or(cmp.Compare(y.wwt, x.wwt), strings.Compare(x.id, y.id)) }
	slices.SortFunc(usable, best)
	slices.SortFunc(all, best)
	if !slices.ContainsFunc(all[:20], func(x ram) bool { return standIn(d, x.id).Status != "CURRENT" }) {
		t.Fatalf("the stand-in's best 20 rams are all CURRENT: the test proves nothing")
	}
	a := decodeRank(t, r.text)
	rows := rowsOf(t, "nsip_rank_animals", r.text)
	if !a.Computed.Exact || len(rows) != 20 {
		t.Fatalf("exact %v, %d rows: %.300s", a.Computed.Exact, len(rows), r.text)
	}
	for i, row := range rows {
		an := standIn(d, row.id)
		if row.status != "CURRENT" || an.Status != "CURRENT" || row.year != an.Born.Year() {
			t.Errorf("rank %d: %+v; the animal is %s, born %d", i+1, row, an.Status, an.Born.Year())
		}
		if a.Top[i].Index != usable[i].wwt {
			t.Errorf("rank %d: %s WWT %v, brute force %s %v", i+1, row.id, a.Top[i].Index, usable[i].id, usable[i].wwt)
		}
	}
	var left struct {
		LeftOut *struct {
			Count  int    `json:"count"`
			Effect string `json:"effect"`
		} `json:"left_out_by_status"`
	}
	_ = json.Unmarshal([]byte(r.text), &left)
	if l := left.LeftOut; l == nil || l.Count == 0 || !strings.Contains(l.Effect, `search_criteria.status "living"`) {
		t.Errorf("left_out_by_status %+v; want the rams of other statuses counted and how to include them", l)
	}
}
