package gateway

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestIgnoredCriterionIsLeftOutNamedAndAlarmed: NSIP starts ignoring the
// gender of a search for rams. A summarized page shows rams only and says
// how many ewes it left out and why; a page small enough to pass through is
// NSIP's answer byte for byte, ewes included, and only _meta says so; the
// drift alarm names the criterion once, and /healthz lists it.
func TestIgnoredCriterionIsLeftOutNamedAndAlarmed(t *testing.T) {
	e := newEnv(t)
	// Rows that state their sex, as other clients assumed NSIP's do: a
	// live row states none, so no row can show gender was ignored.
	e.up.SetRichRows(true)
	e.up.SetIrregular(nsiptest.Irregular{IgnoreCriteria: []string{"gender"}})
	rams := map[string]any{"gender": "Male"}

	r := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": 100, "search_criteria": rams}).mustOK(t)
	var page struct {
		Summary       bool                 `json:"summary"`
		Columns       []string             `json:"columns"`
		Rows          [][]any              `json:"rows"`
		Shown         int                  `json:"shown"`
		Contradicting *struct{ Count int } `json:"contradicting_criteria"`
	}
	if err := json.Unmarshal([]byte(r.text), &page); err != nil || !page.Summary {
		t.Fatalf("want a summarized page: %v %.200s", err, r.text)
	}
	// What NSIP sent: page 0 of Katahdins of both sexes.
	ids, err := e.up.Data().Search(640, nsiptest.Criteria{}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	ewes := 0
	for _, id := range ids[:100] {
		if a, _ := e.up.Data().Animal(id); a.Gender == "Female" {
			ewes++
		}
	}
	if ewes == 0 || ewes == 100 {
		t.Fatalf("page 0 has %d ewes; the test needs both sexes", ewes)
	}
	for _, row := range page.Rows {
		if row[1] != "M" {
			t.Errorf("row %v shown in a search for rams", row)
		}
	}
	if page.Contradicting == nil || page.Contradicting.Count != ewes {
		t.Errorf("contradicting_criteria %+v in the text, want %d ewes counted", page.Contradicting, ewes)
	}
	mc, _ := r.meta["contradicting_criteria"].(map[string]any)
	by, _ := mc["by_criterion"].(map[string]any)
	if by["gender"] != float64(ewes) || !strings.Contains(mc["effect"].(string), "left out") {
		t.Errorf("_meta.contradicting_criteria %v, want %d under gender, left out", mc, ewes)
	}

	// A few rows, down to the first ewe, pass through: NSIP's bytes, and
	// the note in _meta alone.
	n := 0
	for i, id := range ids {
		if a, _ := e.up.Data().Animal(id); a.Gender == "Female" {
			n = i + 1
			break
		}
	}
	if n == 0 || n > 5 {
		t.Fatalf("the first ewe is row %d; the test needs one within a page that passes through", n)
	}
	small := e.call("nsip_search_animals", map[string]any{"breed_id": 640, "page_size": n, "search_criteria": rams}).mustOK(t)
	want := e.upstreamBody("POST", nsiptest.EndpointSearch+"?page=0&pageSize="+strconv.Itoa(n)+"&breedId=640", `{"gender":"Male"}`)
	if small.meta["summarized"] != false || small.text != want {
		t.Errorf("pass-through %s\nwant NSIP's answer %s", small.text, want)
	}
	mc, _ = small.meta["contradicting_criteria"].(map[string]any)
	if mc == nil || mc["count"] != float64(1) || !strings.Contains(mc["effect"].(string), "shown as NSIP sent them") {
		t.Errorf("_meta.contradicting_criteria %v, want the ewe, shown as sent", mc)
	}

	warnings := 0
	for _, l := range e.logs.Records(t) {
		if l["level"] == "WARN" && l["criterion"] != nil {
			warnings++
			if l["criterion"] != "gender" || l["endpoint"] != "search_animals" || !strings.Contains(l["example"].(string), "gender Male asked") {
				t.Errorf("warning %v: want the search endpoint, the criterion gender and a row that broke it", l)
			}
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings for one criterion ignored on two fetches, want 1", warnings)
	}
	var entry *struct{ endpoint, criterion string }
	for _, d := range e.gw.Health().FormatDrift {
		if d.Criterion != "" {
			entry = &struct{ endpoint, criterion string }{d.Endpoint, d.Criterion}
			if d.Count != 2 || d.Signature != "" {
				t.Errorf("drift entry %+v: want 2 sightings and no shape", d)
			}
		}
	}
	if entry == nil || entry.criterion != "gender" || entry.endpoint != "search_animals" {
		t.Errorf("health lists %+v, want the search endpoint ignoring gender", e.gw.Health().FormatDrift)
	}
}
