package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestMaxTokensWithinTheCap: a budget asked for lets a page that the
// default would summarize pass through unchanged, from the same cache
// entry; above the server's cap the call is refused naming both.
func TestMaxTokensWithinTheCap(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.MaxBudget = 9000 }))
	args := map[string]any{"breed_id": 640, "page": 0, "page_size": 15}
	auto := e.call("nsip_search_animals", args).mustOK(t)
	if auto.meta["summarized"] != true || auto.metaInt(t, "budget") != 2000 {
		t.Fatalf("a 15-row page under the default budget: meta %v", auto.meta)
	}
	args["max_tokens"] = 9000
	big := e.call("nsip_search_animals", args).mustOK(t)
	if big.meta["summarized"] != false || big.metaInt(t, "budget") != 9000 || big.metaInt(t, "tokens") != auto.metaInt(t, "original_tokens") {
		t.Errorf("with max_tokens 9000: meta %v, want the whole page of %v tokens", big.meta, auto.meta["original_tokens"])
	}
	if n := e.up.Requests(nsiptest.EndpointSearch); n != 1 {
		t.Errorf("%d upstream searches for two views of one page, want 1", n)
	}
	// A 100-row page over max_tokens is summarized within it, without the
	// 30% rule of the automatic path.
	r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 100, "max_tokens": 6000}).mustOK(t)
	if tok := r.metaInt(t, "tokens"); r.meta["summarized"] != true || tok > 6000 || tok < 4000 {
		t.Errorf("100 rows within max_tokens 6000: %d tokens (meta %v)", tok, r.meta)
	}

	for _, tc := range []struct {
		n       int
		problem string
	}{
		{9001, "is 9001, above this server's cap of 9000 tokens (NSIP_MAX_TOKEN_BUDGET)"},
		{100, "is 100; a budget under 256 tokens cannot hold a row"},
	} {
		b := e.call("nsip_get_last_update", map[string]any{"max_tokens": tc.n}).errorBody(t)
		if b.Field != "max_tokens" || b.Problem != "max_tokens "+tc.problem || b.Expected != "integer 256..9000" {
			t.Errorf("max_tokens %d: field %q problem %q expected %q", tc.n, b.Field, b.Problem, b.Expected)
		}
		if n, _ := exampleOf(b.Example)["max_tokens"].(float64); n != 9000 {
			t.Errorf("max_tokens %d: the example call asks for %v", tc.n, exampleOf(b.Example)["max_tokens"])
		}
	}
}

// tableOf decodes a summary's table header and rows.
type tableOf struct {
	Summary  bool                `json:"summary"`
	Shown    int                 `json:"shown"`
	PageRows int                 `json:"page_rows"`
	PageTo   int                 `json:"page_to"`
	Columns  []string            `json:"columns"`
	Rows     [][]json.RawMessage `json:"rows"`
}

// TestTraitsShapeTheRows: rows carry exactly the traits asked for, codes
// in any case; a well-formed code the glossary lacks is used and pointed
// out; a malformed one is refused naming its place in the list.
func TestTraitsShapeTheRows(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 5, "traits": []any{"wwt", " NLB", "WWT"}}).mustOK(t)
	var tb tableOf
	if err := json.Unmarshal([]byte(r.text), &tb); err != nil || !tb.Summary {
		t.Fatalf("answer %v: %.300s", err, r.text)
	}
	if got := strings.Join(tb.Columns, ","); got != "lpn_id,sex,dob,status,WWT,NLB" {
		t.Errorf("columns %s", got)
	}
	if tb.Shown != 5 || len(tb.Rows) != 5 {
		t.Errorf("shown %d of a 5-row page", tb.Shown)
	}
	d := e.up.Data()
	for _, row := range tb.Rows {
		var id string
		_ = json.Unmarshal(row[0], &id)
		a, _ := d.Animal(id)
		for i, code := range []string{"WWT", "NLB"} {
			var cell []float64
			_ = json.Unmarshal(row[4+i], &cell)
			tr, _ := a.Trait(code)
			if len(cell) != 2 || cell[0] != tr.Value || cell[1] != float64(tr.Accuracy) {
				t.Errorf("%s %s cell %s, want [%v,%d]", id, code, row[4+i], tr.Value, tr.Accuracy)
			}
		}
	}

	r = e.call("nsip_get_progeny", map[string]any{"lpn_id": d.MostProgeny(), "traits": []any{"WWTT"}}).mustOK(t)
	notes, _ := r.meta["notes"].([]any)
	if len(notes) != 1 || !strings.Contains(notes[0].(string), "WWTT is not in the glossary") || !strings.Contains(notes[0].(string), "did you mean WWT?") {
		t.Errorf("notes %v", r.meta["notes"])
	}

	b := e.call("nsip_search_animals", map[string]any{"traits": []any{"WWT", "W-T"}}).errorBody(t)
	if b.Field != "traits[1]" || !strings.Contains(b.Problem, "is not a trait code") {
		t.Errorf("malformed code: field %q problem %q", b.Field, b.Problem)
	}
	b = e.call("nsip_get_lineage", map[string]any{"lpn_id": nsiparg.ExampleLPN, "traits": []any{"WWT"}}).errorBody(t)
	if b.Field != "traits" || !strings.Contains(b.Problem, "is not an argument of this tool") {
		t.Errorf("traits on the pedigree: field %q problem %q", b.Field, b.Problem)
	}
}

// TestPagingMeta: every paged answer says where it sits and what follows,
// passed through or summarized; the last page has no next.
func TestPagingMeta(t *testing.T) {
	e := newEnv(t)
	first := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page": 0, "page_size": 3}).mustOK(t)
	total := first.metaInt(t, "total_count")
	if first.meta["summarized"] != false || first.metaInt(t, "page") != 0 || first.metaInt(t, "page_size") != 3 || total < 10 {
		t.Fatalf("meta %v", first.meta)
	}
	next, _ := first.meta["next"].(map[string]any)
	args, _ := next["arguments"].(map[string]any)
	if next["tool"] != "nsip_search_animals" || args["page"] != float64(1) || args["page_size"] != float64(3) || args["breed_id"] != float64(640) {
		t.Errorf("next after a passed-through page: %v", next)
	}
	last := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page": (total - 1) / 3, "page_size": 3}).mustOK(t)
	if _, ok := last.meta["next"]; ok {
		t.Errorf("the last page has next %v", last.meta["next"])
	}

	// A summarized page that shows part of itself: next is the same page,
	// skipping what was shown, and that call shows the rows after.
	r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page": 1, "page_size": 100}).mustOK(t)
	var tb tableOf
	_ = json.Unmarshal([]byte(r.text), &tb)
	next, _ = r.meta["next"].(map[string]any)
	args, _ = next["arguments"].(map[string]any)
	if tb.Shown >= 100 || args["page"] != float64(1) || args["page_size"] != float64(100) || args["skip"] != float64(tb.Shown) || tb.PageTo != 200 {
		t.Fatalf("shown %d, page_to %d, next %v", tb.Shown, tb.PageTo, next)
	}
	rest := e.call("nsip_search_animals", args).mustOK(t)
	var tb2 tableOf
	_ = json.Unmarshal([]byte(rest.text), &tb2)
	ids, _ := e.up.Data().Search(640, nsiptest.Criteria{}, "", false)
	var id string
	_ = json.Unmarshal(tb2.Rows[0][0], &id)
	if id != ids[100+tb.Shown] {
		t.Errorf("the rest starts at %s, want %s", id, ids[100+tb.Shown])
	}
	if n := e.up.Requests(nsiptest.EndpointSearch); n != 3 {
		t.Errorf("%d upstream searches; the rest of a page comes from the cache", n)
	}
	b := e.call("nsip_search_animals", map[string]any{"page_size": 10, "skip": 10}).errorBody(t)
	if b.Field != "skip" || !strings.Contains(b.Problem, "the page has only 10 rows") || exampleOf(b.Example)["skip"] != nil {
		t.Errorf("skip past the page: field %q problem %q example %v", b.Field, b.Problem, b.Example)
	}
}

// TestDefaultPagesArriveWhole: the default search page (15 rows) and
// progeny page (10) show every row, fewer traits per row if need be.
func TestDefaultPagesArriveWhole(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	summarized := 0
	for _, breed := range d.BreedIDs()[:4] {
		r := e.call("nsip_search_animals", map[string]any{"breed_id": breed}).mustOK(t)
		var tb tableOf
		_ = json.Unmarshal([]byte(r.text), &tb)
		if tb.Summary {
			summarized++
		}
		if tb.Summary && tb.Shown != tb.PageRows {
			t.Errorf("breed %d: %d rows of %d shown", breed, tb.Shown, tb.PageRows)
		}
	}
	for _, id := range []string{d.MostProgeny(), d.DeepPedigree()} {
		r := e.call("nsip_get_progeny", map[string]any{"lpn_id": id}).mustOK(t)
		var tb tableOf
		_ = json.Unmarshal([]byte(r.text), &tb)
		if tb.Summary {
			summarized++
		}
		if tb.Summary && (tb.Shown != tb.PageRows || len(tb.Columns) < 4) {
			t.Errorf("progeny of %s: %d rows of %d shown, columns %v", id, tb.Shown, tb.PageRows, tb.Columns)
		}
	}
	// NSIP's progeny rows are three members each, so a default progeny
	// page fits whole; the four search pages are over the budget.
	if summarized < 4 {
		t.Errorf("only %d of the 6 default pages were summarized; the test needs the search pages over the budget", summarized)
	}
}

// TestProfileViews: a profile is fitted again for traits and max_tokens
// from the same cached parts, and the default fit stays cached.
func TestProfileViews(t *testing.T) {
	e := newEnv(t, withSmallBudget())
	ram := e.up.Data().MostProgeny()
	auto := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": ram}).mustOK(t)
	if auto.meta["summarized"] != true {
		t.Fatalf("the profile of the ram with the most offspring passed through: %v", auto.meta)
	}
	r := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": ram, "traits": []any{"WWT"}}).mustOK(t)
	var p struct {
		Progeny struct {
			Columns []string `json:"columns"`
		} `json:"progeny"`
		EBVs [][]any `json:"ebvs"`
	}
	if err := json.Unmarshal([]byte(r.text), &p); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Progeny.Columns, ","); got != "lpn_id,sex,dob,WWT" {
		t.Errorf("offspring columns %s", got)
	}
	for _, c := range p.EBVs {
		if c[0] != "WWT" {
			t.Errorf("EBV %v shown; only WWT was asked for", c)
		}
	}
	big := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": ram, "max_tokens": 8000}).mustOK(t)
	if tok := big.metaInt(t, "tokens"); tok <= auto.metaInt(t, "tokens") || tok > 8000 {
		t.Errorf("max_tokens 8000 gave %d tokens, the default %d", tok, auto.metaInt(t, "tokens"))
	}
	again := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": ram}).mustOK(t)
	if again.text != auto.text || again.meta["cache"] != "hit" {
		t.Errorf("the default profile after views: cache %v, same text %v", again.meta["cache"], again.text == auto.text)
	}
	if n := e.up.TotalRequests(); n != 3 {
		t.Errorf("%d upstream requests for four views of one profile, want its 3 parts", n)
	}
}
