package gateway

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
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
	id := breedAnimal(t, e, 640)
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
		first = e.up.Data().LastUpdated()
	} else {
		e.up.SetLastUpdated(first)
	}
	// The date is cached before the pages, and the clock never moves: the
	// pages' keys must follow NSIP's date, not the cache's copy of it.
	e.call("nsip_get_last_update", map[string]any{}).mustOK(t)
	if got := evaluation(); got != first {
		t.Fatalf("percentiles.evaluation = %q, want %q", got, first)
	}
	pages := e.up.Requests(nsiptest.EndpointSearch)
	if got := evaluation(); got != first || e.up.Requests(nsiptest.EndpointSearch) != pages {
		t.Fatalf("same evaluation: %q, %d pages fetched again; want every page from the cache", got, e.up.Requests(nsiptest.EndpointSearch)-pages)
	}
	e.up.SetLastUpdated(second)
	// Within the recheck window NSIP's date of moments ago stands; once
	// it has passed the date is asked again, the cache's copy still an
	// hour from expiring.
	if got := evaluation(); got != first {
		t.Fatalf("a new evaluation within the recheck window: percentiles.evaluation = %q, want the date read moments ago, %q", got, first)
	}
	e.clock.Advance(DefaultConfig().EvaluationRecheck)
	if got := evaluation(); got != second {
		t.Fatalf("after a new evaluation: percentiles.evaluation = %q, want %q", got, second)
	}
	if again := e.up.Requests(nsiptest.EndpointSearch) - pages; again < 2 {
		t.Errorf("after a new evaluation %d pages were fetched, want every page read again rather than the earlier evaluation's from the cache", again)
	}
}

// A new evaluation published within the hour the date is cached for is
// still seen: the percentiles read NSIP's date afresh rather than from the
// cache, so the pages are read again under the new date instead of being
// fetched from the new evaluation and filed under the old one. The date
// read is then what nsip_get_last_update answers, without asking NSIP.
func TestPercentileEvaluationSeenWithinTheDatesCacheLife(t *testing.T) {
	e := newEnv(t)
	id := breedAnimal(t, e, 640)
	first := e.up.Data().LastUpdated()
	if got := e.call("nsip_get_last_update", map[string]any{}).mustOK(t).text; !strings.Contains(got, first) {
		t.Fatalf("nsip_get_last_update = %.200s, want %s", got, first)
	}
	if got := percentileEvaluation(t, e, id); got.Evaluation == nil || *got.Evaluation != first {
		t.Fatalf("percentiles.evaluation = %s, want %q", got.date(), first)
	}
	pages := e.up.Requests(nsiptest.EndpointSearch)

	const second = "12/01/2025"
	e.up.SetLastUpdated(second)
	// The clock moves on by the recheck window only: the cached date has
	// most of its hour left.
	e.clock.Advance(DefaultConfig().EvaluationRecheck)
	got := percentileEvaluation(t, e, id)
	if got.Evaluation == nil || *got.Evaluation != second {
		t.Fatalf("after a new evaluation within the hour: percentiles.evaluation = %s, want %q", got.date(), second)
	}
	if again := e.up.Requests(nsiptest.EndpointSearch) - pages; again < 2 {
		t.Errorf("after a new evaluation %d pages were fetched, want every page read again under the new date", again)
	}
	dates := e.up.Requests(nsiptest.EndpointLastUpdated)
	if got := e.call("nsip_get_last_update", map[string]any{}).mustOK(t).text; !strings.Contains(got, second) {
		t.Errorf("nsip_get_last_update after the percentiles = %.200s, want the date they read, %s", got, second)
	}
	if n := e.up.Requests(nsiptest.EndpointLastUpdated) - dates; n != 0 {
		t.Errorf("nsip_get_last_update asked NSIP %d times, want the percentiles' fresh read from the cache", n)
	}
}

// A stale date is no evidence of the evaluation: when NSIP does not give
// the date, the percentiles say it could not be read rather than vouch
// for the pages with the one the cache still holds.
func TestPercentileEvaluationNotFromStaleCache(t *testing.T) {
	e := newEnv(t)
	id := breedAnimal(t, e, 640)
	e.call("nsip_get_last_update", map[string]any{}).mustOK(t)
	e.clock.Advance(61 * time.Minute) // expired, still kept as a fallback
	e.up.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500})
	got := percentileEvaluation(t, e, id)
	if got.Evaluation != nil {
		t.Fatalf("percentiles.evaluation = %q with NSIP's date unreadable, want null", *got.Evaluation)
	}
	const want = "NSIP's last-update date could not be read (upstream_error), so these percentiles are not tied to one evaluation: pages from before and after a new one may be combined"
	if got.Note != want {
		t.Errorf("evaluation_note = %q, want %q", got.Note, want)
	}
}

// breedAnimal is the stand-in's first animal of breed.
func breedAnimal(t *testing.T, e *env, breed int) string {
	t.Helper()
	d := e.up.Data()
	for _, x := range d.AnimalIDs() {
		if an, _ := d.Animal(x); an.BreedID == breed {
			return x
		}
	}
	t.Fatalf("the stand-in has no animal of breed %d", breed)
	return ""
}

// pctEvaluation is what an answer's percentiles say of their evaluation.
type pctEvaluation struct {
	Evaluation *string `json:"evaluation"`
	Note       string  `json:"evaluation_note"`
}

func (p pctEvaluation) date() string {
	if p.Evaluation == nil {
		return "null (" + p.Note + ")"
	}
	return strconv.Quote(*p.Evaluation)
}

// percentileEvaluation asks for id's percentiles.
func percentileEvaluation(t *testing.T, e *env, id string) pctEvaluation {
	t.Helper()
	r := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": true}).mustOK(t)
	var a struct {
		Percentiles pctEvaluation `json:"percentiles"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	return a.Percentiles
}

// NSIP's last-update date hanging must not cost a ranking the answer its
// cached pages give: the fresh read of the date gives up after its share of
// the call's time, and the ranking answers, not exact, saying the date
// could not be read. Before, the read took the call's whole time and the
// ranking failed with a timeout.
func TestRankAnswersWhenTheDateHangs(t *testing.T) {
	e := newEnv(t, func(c *Config, _ *[]nsip.Option) { c.AnalysisTimeout = 12 * time.Second })
	args := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5}
	type ranked struct {
		Top      [][]any `json:"top"`
		Computed struct {
			Exact           bool   `json:"exact"`
			Evaluation      string `json:"evaluation"`
			EvaluationCheck string `json:"evaluation_check"`
			Upstream        struct {
				TimeLimitReached bool `json:"time_limit_reached"`
			} `json:"upstream"`
		} `json:"computed"`
	}
	var first, second ranked
	if err := json.Unmarshal([]byte(e.call("nsip_rank_animals", args).mustOK(t).text), &first); err != nil {
		t.Fatal(err)
	}
	if !first.Computed.Exact || first.Computed.Evaluation == "" {
		t.Fatalf("first ranking: %+v; want exact under a date", first.Computed)
	}
	e.up.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultHang})
	if err := json.Unmarshal([]byte(e.call("nsip_rank_animals", args).mustOK(t).text), &second); err != nil {
		t.Fatal(err)
	}
	c := second.Computed
	if c.Exact || c.Upstream.TimeLimitReached || !strings.Contains(c.EvaluationCheck, "last-update date could not be read") {
		t.Errorf("ranking with the date hanging: %+v; want not exact, within the time limit, saying the date could not be read", c)
	}
	if fmt.Sprint(second.Top) != fmt.Sprint(first.Top) {
		t.Errorf("top %v, want the cached pages' %v", second.Top, first.Top)
	}
}
