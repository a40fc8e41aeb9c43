package gateway

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The questions of specs/answers.md, asked of the gateway over the stand-in
// the way an assistant would: with the tools' own arguments and hints and
// nothing else, reading only the text the tools return. Each is checked
// against the answer worked out from the stand-in's data directly, and the
// calls and tokens it took are logged for specs/answers.md.

// asker makes tool calls and counts what they cost.
type asker struct {
	t      *testing.T
	e      *env
	calls  int
	tokens int
}

func (a *asker) call(tool string, args map[string]any) reply {
	a.t.Helper()
	r := a.e.call(tool, args).mustOK(a.t)
	a.calls++
	a.tokens += a.e.count(r.text)
	return r
}

func (e *env) count(s string) int {
	_, c := summarizer(e.t)
	return c.Count(s)
}

// seenTrait is an EBV as an answer shows it; acc is nil when not given.
type seenTrait struct {
	v   float64
	acc *float64
}

// seenRow is one animal as an answer shows it, whatever its format.
type seenRow struct {
	lpn, sex, dob, status, breed string
	traits                       map[string]seenTrait
}

// pageSeen is a page answer read back: its rows, the page's breed when
// one is named for all rows, and its statistics by trait code.
type pageSeen struct {
	rows  []seenRow
	stats map[string]map[string]any
}

// readPage reads a search or progeny answer: NSIP's own JSON when it
// passed through, or the summary's table.
func readPage(t *testing.T, text string) pageSeen {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	if m["summary"] != true {
		var p pageSeen
		recs, _ := m["records"].([]any)
		for _, r := range recs {
			p.rows = append(p.rows, recordRow(r.(map[string]any)))
		}
		return p
	}
	return tableRows(m)
}

// recordRow reads one flat NSIP record: trait x is the pair x, accx.
// notTraits are the numeric members of a row that are not EBVs.
var notTraits = map[string]bool{"breedId": true, "progenyCount": true, "usIndex": true, "usHairIndex": true, "srcIndex": true}

func recordRow(r map[string]any) seenRow {
	s := seenRow{traits: map[string]seenTrait{}}
	s.lpn = text(r["lpnId"])
	s.sex = sexLetter(text(firstOf(r, "gender", "sex")))
	s.dob = text(firstOf(r, "dateOfBirth", "dob"))
	s.status = text(r["status"])
	s.breed = text(firstOf(r, "breedName", "breedId"))
	for k, v := range r {
		f, isNum := v.(float64)
		if !isNum || strings.HasPrefix(k, "acc") || notTraits[k] {
			continue
		}
		acc, ok := r["acc"+k].(float64)
		if !ok {
			s.traits[strings.ToUpper(k)] = seenTrait{f, nil} // MWWT comes without one
			continue
		}
		if acc <= 1 {
			acc *= 100
		}
		s.traits[strings.ToUpper(k)] = seenTrait{f, &acc}
	}
	return s
}

// tableRows reads a summary's table by its column names.
func tableRows(m map[string]any) pageSeen {
	var p pageSeen
	cols := strs(m["columns"])
	rows, _ := m["rows"].([]any)
	for _, r := range rows {
		cells := r.([]any)
		s := seenRow{traits: map[string]seenTrait{}, breed: text(m["breed"])}
		for i, c := range cols {
			switch c {
			case "lpn_id":
				s.lpn = text(cells[i])
			case "sex":
				s.sex = text(cells[i])
			case "dob":
				s.dob = text(cells[i])
			case "status":
				s.status = text(cells[i])
			case "breed":
				s.breed = text(cells[i])
			case "sire", "dam":
			case "top_traits":
				for _, tc := range cells[i].([]any) {
					x := tc.([]any)
					acc := x[2].(float64)
					s.traits[x[0].(string)] = seenTrait{x[1].(float64), &acc}
				}
			default:
				if x, ok := cells[i].([]any); ok {
					st := seenTrait{v: x[0].(float64)}
					if a, ok := x[1].(float64); ok {
						st.acc = &a
					}
					s.traits[c] = st
				}
			}
		}
		p.rows = append(p.rows, s)
	}
	if st, ok := m["trait_stats"].(map[string]any); ok {
		p.stats = map[string]map[string]any{}
		sc := strs(st["columns"])
		for _, r := range st["rows"].([]any) {
			row := map[string]any{}
			for i, c := range sc {
				row[c] = r.([]any)[i]
			}
			p.stats[row["code"].(string)] = row
		}
	}
	return p
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func sexLetter(s string) string {
	switch strings.ToUpper(s) {
	case "MALE", "M", "1":
		return "M"
	case "FEMALE", "F", "2":
		return "F"
	}
	return s
}

// nextOf is the call _meta offers after an answer, if any.
func nextOf(r reply) (string, map[string]any) {
	n, ok := r.meta["next"].(map[string]any)
	if !ok {
		return "", nil
	}
	args, _ := n["arguments"].(map[string]any)
	return n["tool"].(string), args
}

// wholePage asks for one page and follows the hints for the rest of it
// (never past it): every row of the page as the answers show them.
func (a *asker) wholePage(tool string, args map[string]any) []seenRow {
	page := args["page"]
	var rows []seenRow
	for {
		r := a.call(tool, args)
		rows = append(rows, readPage(a.t, r.text).rows...)
		next, nargs := nextOf(r)
		if next == "" || fmt.Sprint(nargs["page"]) != fmt.Sprint(page) || nargs["skip"] == nil {
			return rows
		}
		args = nargs
	}
}

// rawRows reads rows [from, to) of a result set in pages small enough to
// pass through whole, as an assistant had to for exact answers when
// summaries dropped what it needed: the way questions were answered before
// rows carried their traits. A page that comes back summarized is asked
// again smaller, and that call counts too.
func (a *asker) rawRows(tool string, args map[string]any, from, to, size int) []seenRow {
	var rows []seenRow
	for at := from; at < to; {
		d := size
		for d > 1 && at%d != 0 {
			d--
		}
		q := maps.Clone(args)
		q["page"], q["page_size"] = at/d, d
		r := a.call(tool, q)
		if r.meta["summarized"] == true {
			size = max(1, size-1)
			continue
		}
		page := readPage(a.t, r.text).rows
		rows = append(rows, page...)
		at += d
		if len(page) < d {
			break
		}
	}
	return rows[:min(len(rows), to-from)]
}

// question is one breeder's question: how an assistant answers it with the
// tools, and the true answer from the stand-in's data.
type question struct {
	id, text string
	ask      func(a *asker) string
	truth    func() []string // every acceptable answer (ties)
}

// maxCallsPerQuestion: each question is answered in one call, all rows of
// a 100-row page in two at most.
const maxCallsPerQuestion = 2

func TestBreederQuestionsAreAnswerable(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	animal := func(id string) nsiptest.Animal {
		x, ok := d.Animal(id)
		if !ok {
			t.Fatalf("no animal %s", id)
		}
		return x
	}
	ram := d.MostProgeny()
	deep := d.DeepPedigree()
	qs := []question{
		{"top50-nlb", "Of the top 50 Katahdin rams by WWT, which has the most accurate NLB?",
			func(a *asker) string {
				rows := a.wholePage("nsip_search_animals", map[string]any{
					"breed_id": 640, "sorted_trait": "WWT", "page": 0, "page_size": 50,
					"search_criteria": map[string]any{"gender": "Male"}, "traits": []any{"WWT", "NLB"}})
				best, acc := "", -1.0
				for _, r := range rows {
					if t, ok := r.traits["NLB"]; ok && t.acc != nil && *t.acc > acc {
						best, acc = r.lpn, *t.acc
					}
				}
				return best
			},
			func() []string {
				ids, err := d.Search(640, nsiptest.Criteria{Gender: "Male"}, "WWT", false)
				if err != nil {
					t.Fatal(err)
				}
				return argmax(ids[:min(50, len(ids))], func(id string) (float64, bool) {
					tr, ok := animal(id).Trait("NLB")
					return float64(tr.Accuracy), ok
				})
			}},
		{"progeny-max-pwwt", "Which of this ram's offspring has the highest PWWT?",
			func(a *asker) string {
				return a.progenyExtreme(ram, "PWWT", "max")
			},
			func() []string {
				return argmax(d.Progeny(ram), func(id string) (float64, bool) {
					tr, ok := animal(id).Trait("PWWT")
					return tr.Value, ok
				})
			}},
		{"progeny-min-bwt", "Which of this ram's offspring has the lowest BWT, and how accurate is it?",
			func(a *asker) string {
				return a.progenyExtreme(ram, "BWT", "min")
			},
			func() []string {
				ids := argmax(d.Progeny(ram), func(id string) (float64, bool) {
					tr, ok := animal(id).Trait("BWT")
					return -tr.Value, ok
				})
				var out []string
				for _, id := range ids {
					tr, _ := animal(id).Trait("BWT")
					out = append(out, fmt.Sprintf("%s %d", id, tr.Accuracy))
				}
				return out
			}},
		// NSIP's search rows carry no sex, birth date or breed: the LPN ID
		// carries the breed and birth year, as an assistant reads them.
		{"page2-list", "List the animals on page 2 of a search across breeds: status, breed, birth year.",
			func(a *asker) string {
				rows := a.wholePage("nsip_search_animals", map[string]any{"page": 2, "page_size": 15})
				var lines []string
				for _, r := range rows {
					lpn, _ := nsip.ParseLPN(r.lpn)
					lines = append(lines, fmt.Sprintf("%s %s %d %d", r.lpn, r.status, lpn.Breed, lpn.Year))
				}
				return strings.Join(lines, "\n")
			},
			func() []string {
				ids, _ := d.Search(0, nsiptest.Criteria{}, "", false)
				var lines []string
				for _, id := range ids[30:45] {
					x := animal(id)
					lines = append(lines, fmt.Sprintf("%s %s %d %d", id, x.Status, x.BreedID, x.Born.Year()))
				}
				return []string{strings.Join(lines, "\n")}
			}},
		{"page100-all", "Every row of a 100-row Katahdin page.",
			func(a *asker) string {
				rows := a.wholePage("nsip_search_animals", map[string]any{"breed_id": 640, "page": 0, "page_size": 100, "max_tokens": 8000})
				var ids []string
				for _, r := range rows {
					ids = append(ids, r.lpn)
				}
				return strings.Join(ids, ",")
			},
			func() []string {
				ids, _ := d.Search(640, nsiptest.Criteria{}, "", false)
				return []string{strings.Join(ids[:100], ",")}
			}},
		{"ewes-nlb", "The 10 Katahdin ewes born since 2022 with the highest NLB, with value and accuracy.",
			func(a *asker) string {
				rows := a.wholePage("nsip_search_animals", map[string]any{"breed_id": 640, "sorted_trait": "NLB", "page": 0, "page_size": 10,
					"search_criteria": map[string]any{"gender": "Female", "born_after": "2022-01-01"}})
				var out []string
				for _, r := range rows {
					tr := r.traits["NLB"]
					out = append(out, fmt.Sprintf("%s %g %s", r.lpn, tr.v, accText(tr.acc)))
				}
				return strings.Join(out, "\n")
			},
			func() []string {
				ids, _ := d.Search(640, nsiptest.Criteria{Gender: "Female", BornAfter: "2022-01-01"}, "NLB", false)
				var out []string
				for _, id := range ids[:min(10, len(ids))] {
					tr, _ := animal(id).Trait("NLB")
					acc := float64(tr.Accuracy)
					out = append(out, fmt.Sprintf("%s %g %s", id, tr.Value, accText(&acc)))
				}
				return []string{strings.Join(out, "\n")}
			}},
		{"usable-rams", "The 5 best Katahdin rams by WWT a breeder can use now, with birth year and status.",
			func(a *asker) string {
				r := a.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5,
					"search_criteria": map[string]any{"gender": "Male"}})
				var out []string
				for _, row := range rowsOf(a.t, "nsip_rank_animals", r.text) {
					out = append(out, fmt.Sprintf("%s %d %s", row.id, row.year, row.status))
				}
				return strings.Join(out, "\n")
			},
			func() []string {
				ids, _ := d.Search(640, nsiptest.Criteria{Gender: "Male", Status: "CURRENT"}, "WWT", false)
				var out []string
				for _, id := range ids[:min(5, len(ids))] {
					out = append(out, fmt.Sprintf("%s %d CURRENT", id, animal(id).Born.Year()))
				}
				return []string{strings.Join(out, "\n")}
			}},
		{"offspring-females", "How many offspring does this ram have, and how many are ewes?",
			func(a *asker) string {
				args := map[string]any{"lpn_id": ram, "page": 0, "page_size": 100, "traits": []any{"BWT"}}
				total, females := 0, 0
				for {
					r := a.call("nsip_get_progeny", args)
					total = r.metaInt(a.t, "total_count")
					var m struct {
						Sex     *struct{ F int } `json:"sex"`
						Records []map[string]any `json:"records"`
					}
					_ = json.Unmarshal([]byte(r.text), &m)
					if m.Sex != nil {
						females += m.Sex.F
					}
					for _, rec := range m.Records {
						if sexLetter(text(firstOf(rec, "sex", "gender"))) == "F" {
							females++
						}
					}
					_, next := nextOf(r)
					if next == nil || next["skip"] != nil && fmt.Sprint(next["page"]) == fmt.Sprint(args["page"]) {
						// The sex split covers the whole page: skip the rest of it.
						page := argInt(args, "page", 0) + 1
						if page*100 >= total {
							return fmt.Sprintf("%d %d", total, females)
						}
						args = map[string]any{"lpn_id": ram, "page": page, "page_size": 100, "traits": []any{"BWT"}}
						continue
					}
					args = next
				}
			},
			func() []string {
				kids := d.Progeny(ram)
				f := 0
				for _, id := range kids {
					if animal(id).Gender == "Female" {
						f++
					}
				}
				return []string{fmt.Sprintf("%d %d", len(kids), f)}
			}},
		{"profile-ebvs-grandparents", "Give this animal's every EBV with accuracy, and its four grandparents.",
			func(a *asker) string { return a.profile(deep) },
			func() []string {
				x := animal(deep)
				var parts []string
				for _, tr := range x.Traits {
					parts = append(parts, fmt.Sprintf("%s=%g@%s", tr.Code, tr.Value, standInAcc(tr.Accuracy)))
				}
				for _, p := range []string{x.Sire, x.Dam} {
					px := animal(p)
					parts = append(parts, "gp:"+px.Sire, "gp:"+px.Dam)
				}
				sort.Strings(parts)
				return []string{strings.Join(parts, " ")}
			}},
		{"profile-sire", "The same for the ram with the most offspring.",
			func(a *asker) string { return a.profile(ram) },
			func() []string {
				x := animal(ram)
				var parts []string
				for _, tr := range x.Traits {
					parts = append(parts, fmt.Sprintf("%s=%g@%s", tr.Code, tr.Value, standInAcc(tr.Accuracy)))
				}
				for _, p := range []string{x.Sire, x.Dam} {
					if px, ok := d.Animal(p); ok {
						for _, g := range []string{px.Sire, px.Dam} {
							if g != "" {
								parts = append(parts, "gp:"+g)
							}
						}
					}
				}
				sort.Strings(parts)
				return []string{strings.Join(parts, " ")}
			}},
		{"breed-range", "What is the range of WWT among Katahdins?",
			func(a *asker) string {
				r := a.call("nsip_get_trait_ranges", map[string]any{"breed_id": 640})
				var m map[string]any
				_ = json.Unmarshal([]byte(r.text), &m)
				if data, ok := m["data"].(map[string]any); ok {
					m = data
				}
				w, _ := m["WWT"].(map[string]any)
				if w == nil {
					w, _ = m["wwt"].(map[string]any)
				}
				return fmt.Sprintf("%v..%v", w["min"], w["max"])
			},
			func() []string {
				r, _ := d.TraitRanges(640)
				return []string{fmt.Sprintf("%v..%v", r["WWT"].Min, r["WWT"].Max)}
			}},
		{"breeder-contact", "Who bred this ram and how do I reach them?",
			func(a *asker) string {
				r := a.call("nsip_get_animal", map[string]any{"search_string": ram})
				var m struct {
					Data struct {
						Contact struct {
							FarmName string `json:"farmName"`
							Phone    string `json:"phone"`
						} `json:"contactInfo"`
					} `json:"data"`
				}
				_ = json.Unmarshal([]byte(r.text), &m)
				return m.Data.Contact.FarmName + " " + m.Data.Contact.Phone
			},
			func() []string {
				c := animal(ram).Contact
				return []string{c.FarmName + " " + c.Phone}
			}},
		{"last-evaluation", "How current are the EBVs?",
			func(a *asker) string {
				r := a.call("nsip_get_last_update", map[string]any{})
				var m struct{ Date string }
				_ = json.Unmarshal([]byte(r.text), &m)
				return m.Date
			},
			func() []string { return []string{d.LastUpdated()} }},
	}
	// Before: exact answers came from pages small enough to pass through
	// (6 search rows, 8 offspring), and profiles from their parts.
	search := func(args map[string]any, from, to int) func(a *asker) {
		return func(a *asker) { a.rawRows("nsip_search_animals", args, from, to, 6) }
	}
	allProgeny := func(a *asker) {
		a.rawRows("nsip_get_progeny", map[string]any{"lpn_id": ram}, 0, len(d.Progeny(ram)), 8)
	}
	parts := func(id string) func(a *asker) {
		return func(a *asker) {
			a.call("nsip_get_animal", map[string]any{"search_string": id})
			a.call("nsip_get_lineage", map[string]any{"lpn_id": id})
		}
	}
	befores := map[string]func(a *asker){
		"top50-nlb":         search(map[string]any{"breed_id": 640, "sorted_trait": "WWT", "search_criteria": map[string]any{"gender": "Male"}}, 0, 50),
		"progeny-max-pwwt":  allProgeny,
		"progeny-min-bwt":   allProgeny,
		"page2-list":        search(map[string]any{}, 30, 45),
		"page100-all":       search(map[string]any{"breed_id": 640}, 0, 100),
		"ewes-nlb":          search(map[string]any{"breed_id": 640, "sorted_trait": "NLB", "search_criteria": map[string]any{"gender": "Female", "born_after": "2022-01-01"}}, 0, 10),
		"offspring-females": allProgeny,
		"profile-sire":      parts(ram),
	}
	var table []string
	for _, q := range qs {
		t.Run(q.id, func(t *testing.T) {
			a := &asker{t: t, e: e}
			got := q.ask(a)
			want := q.truth()
			if !slices.Contains(want, got) {
				t.Errorf("%s\nanswered %q\nwant one of %q", q.text, got, want)
			}
			if a.calls > maxCallsPerQuestion {
				t.Errorf("%s took %d calls, more than %d", q.text, a.calls, maxCallsPerQuestion)
			}
			b := &asker{t: t, e: e}
			if f := befores[q.id]; f != nil {
				f(b)
			} else {
				q.ask(b) // answered whole then as now
			}
			table = append(table, fmt.Sprintf("| %s | %d | %d | %d | %d |", q.id, b.calls, b.tokens, a.calls, a.tokens))
		})
	}
	t.Logf("| question | calls before | tokens before | calls | tokens |\n%s", strings.Join(table, "\n"))
}

// progenyExtreme names the offspring holding the max or min of a trait,
// from the statistics of each page (they cover every row of the page, shown
// or not); for "min" it adds the holder's accuracy.
func (a *asker) progenyExtreme(parent, code, which string) string {
	// NSIP's progeny rows carry no EBVs: the group summary reads each
	// offspring's record, and names the holders of each extreme.
	r := a.call("nsip_flock_summary", map[string]any{"progeny_of": parent})
	var g struct {
		Traits []map[string]any `json:"traits"`
	}
	if err := json.Unmarshal([]byte(r.text), &g); err != nil {
		a.t.Fatalf("%v: %.300s", err, r.text)
	}
	best := ""
	for _, tr := range g.Traits {
		if ids := strs(tr[which+"_lpn_ids"]); tr["trait"] == code && len(ids) > 0 {
			best = ids[0]
		}
	}
	if which == "max" || best == "" {
		return best
	}
	d := a.call("nsip_get_animal", map[string]any{"search_string": best})
	var m struct {
		Data struct {
			Row map[string]any `json:"searchResultViewModel"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(d.text), &m); err != nil {
		a.t.Fatalf("details: %v", err)
	}
	return best + " " + accText(recordRow(m.Data.Row).traits[code].acc)
}

// profile answers from nsip_search_by_lpn, following the calls it names
// for any part it left out.
func (a *asker) profile(id string) string {
	r := a.call("nsip_search_by_lpn", map[string]any{"lpn_id": id})
	var parts []string
	var p struct {
		Summary bool `json:"summary"`
		Animal  struct {
			Top []struct {
				Code     string  `json:"code"`
				Value    float64 `json:"value"`
				Accuracy float64 `json:"accuracy"`
			} `json:"top_traits"`
		} `json:"animal"`
		EBVs    [][]any `json:"ebvs"`
		Grand   [][]any `json:"grandparents"`
		Omitted []struct {
			Part string         `json:"part"`
			Call map[string]any `json:"call"`
		} `json:"omitted"`
		Details json.RawMessage `json:"details"`
		Lineage json.RawMessage `json:"lineage"`
	}
	if err := json.Unmarshal([]byte(r.text), &p); err != nil {
		a.t.Fatal(err)
	}
	if !p.Summary {
		parts = append(detailTraits(a.t, string(p.Details)), lineageGrand(a.t, string(p.Lineage))...)
		sort.Strings(parts)
		return strings.Join(parts, " ")
	}
	for _, tr := range p.Animal.Top {
		parts = append(parts, fmt.Sprintf("%s=%g@%d", tr.Code, tr.Value, int(math.Round(tr.Accuracy))))
	}
	for _, c := range p.EBVs {
		acc, _ := c[2].(float64) // null when NSIP gave none
		parts = append(parts, fmt.Sprintf("%s=%g@%s", c[0], c[1], accOrDash(c[2] != nil, acc)))
	}
	for _, g := range p.Grand {
		parts = append(parts, "gp:"+g[1].(string))
	}
	for _, o := range p.Omitted {
		args, _ := o.Call["arguments"].(map[string]any)
		switch o.Part {
		case "ebvs":
			r := a.call(o.Call["tool"].(string), args)
			parts = detailTraits(a.t, r.text)
			for _, g := range p.Grand {
				parts = append(parts, "gp:"+g[1].(string))
			}
		case "grandparents":
			r := a.call(o.Call["tool"].(string), args)
			parts = append(parts, lineageGrand(a.t, r.text)...)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// detailTraits reads every EBV of an nsip_get_animal answer.
func detailTraits(t *testing.T, s string) []string {
	var m struct {
		Data struct {
			Row map[string]any `json:"searchResultViewModel"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("details: %v", err)
	}
	var out []string
	for code, tr := range recordRow(m.Data.Row).traits {
		out = append(out, fmt.Sprintf("%s=%g@%s", code, tr.v, accText(tr.acc)))
	}
	return out
}

// lineageGrand reads the four grandparents of an nsip_get_lineage answer.
func lineageGrand(t *testing.T, s string) []string {
	type node struct {
		LPNID    string `json:"lpnId"`
		Children []node `json:"children"`
	}
	var m struct {
		Data node `json:"data"`
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("lineage: %v", err)
	}
	var out []string
	for _, p := range m.Data.Children {
		for _, g := range p.Children {
			out = append(out, "gp:"+g.LPNID)
		}
	}
	return out
}

// standInAcc writes a stand-in accuracy as the answers do: "-" for a value
// published without one (the stand-in's negative accuracy).
func standInAcc(acc int) string {
	if acc < 0 {
		return "-"
	}
	return strconv.Itoa(acc)
}

func accOrDash(has bool, acc float64) string {
	if !has {
		return "-"
	}
	return strconv.Itoa(int(math.Round(acc)))
}

func accText(acc *float64) string {
	if acc == nil {
		return "-"
	}
	return strconv.Itoa(int(math.Round(*acc)))
}

// argmax lists the ids with the greatest f among those that have it.
func argmax(ids []string, f func(string) (float64, bool)) []string {
	var best []string
	bv := math.Inf(-1)
	for _, id := range ids {
		v, ok := f(id)
		switch {
		case !ok:
		case v > bv:
			best, bv = []string{id}, v
		case v == bv:
			best = append(best, id)
		}
	}
	return best
}

func argInt(args map[string]any, key string, def int) int {
	switch v := args[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return def
}
