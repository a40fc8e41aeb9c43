package gateway

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// Percentile pages are cached under NSIP's evaluation date: once the date
// changes, pages cached under the earlier one are read again rather than
// combined with the new evaluation, and the answer names the date. The
// date is whatever text NSIP sends, so one with a quote or a brace in it
// must key the pages like any other.
func TestPercentilePagesKeyedByEvaluation(t *testing.T) {
	for _, c := range []struct{ name, first, second string }{
		{"dates", "", "12/01/2025"}, // first: the stand-in's own
		{"any text", `Release "2025-09"`, `Release {2025-12}"`},
	} {
		t.Run(c.name, func(t *testing.T) { evaluationsReadAfresh(t, c.first, c.second) })
	}
}

// evaluationsReadAfresh asks a breed-640 animal's percentiles under the
// evaluation first ("" keeps the stand-in's), again under the same, then
// under second, and checks which pages came from the cache.
func evaluationsReadAfresh(t *testing.T, first, second string) {
	e := newEnv(t)
	d := e.up.Data()
	var id string
	for _, x := range d.AnimalIDs() {
		if an, _ := d.Animal(x); an.BreedID == 640 {
			id = x
			break
		}
	}
	evaluation := func() string {
		r := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": true}).mustOK(t)
		var a struct {
			Percentiles struct {
				Evaluation string `json:"evaluation"`
			} `json:"percentiles"`
		}
		if err := json.Unmarshal([]byte(r.text), &a); err != nil {
			t.Fatalf("%v: %.300s", err, r.text)
		}
		return a.Percentiles.Evaluation
	}
	if first == "" {
		first = d.LastUpdated()
	} else {
		e.up.SetLastUpdated(first)
	}
	// The date is cached half an hour before the pages, so that it expires
	// while they are still fresh.
	e.call("nsip_get_last_update", map[string]any{}).mustOK(t)
	e.clock.Advance(30 * time.Minute)
	if got := evaluation(); got != first {
		t.Fatalf("percentiles.evaluation = %q, want %q", got, first)
	}
	pages := e.up.Requests(nsiptest.EndpointSearch)
	if got := evaluation(); got != first || e.up.Requests(nsiptest.EndpointSearch) != pages {
		t.Fatalf("same evaluation: %q, %d pages fetched again; want every page from the cache", got, e.up.Requests(nsiptest.EndpointSearch)-pages)
	}
	e.up.SetLastUpdated(second)
	e.clock.Advance(31 * time.Minute)
	if got := evaluation(); got != second {
		t.Fatalf("after a new evaluation: percentiles.evaluation = %q, want %q", got, second)
	}
	if again := e.up.Requests(nsiptest.EndpointSearch) - pages; again < 2 {
		t.Errorf("after a new evaluation %d pages were fetched, want every page read again rather than the earlier evaluation's from the cache", again)
	}
}
