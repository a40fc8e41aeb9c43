package gateway

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A 10 x 100 plan against an NSIP taking 3 s a request: the call stops
// reading at its time limit and answers with the plan it could make,
// saying the time limit was reached and which pairs it could not settle.
// NSIP's slowness is the gateway's clock advancing 3 s with each request
// (with four requests under way at once, as an analysis keeps them), so
// the test counts requests rather than waiting: 30 s allow about 40 of the
// 400 the plan would read. Before, the plan read all of them, 192 s
// against a live-like NSIP, whatever the limit of one call promised.
func TestPlanStopsAtTheCallTimeLimit(t *testing.T) {
	h := newHerd()
	var lines []string
	var rams, ewes []string
	for i := range 10 {
		id := fmt.Sprintf("640R%03d", i)
		rams = append(rams, id)
		lines = append(lines, fmt.Sprintf("%s 640RS%03d 640RD%03d", id, i, i))
	}
	for i := range 100 {
		id := fmt.Sprintf("640E%03d", i)
		ewes = append(ewes, id)
		lines = append(lines, fmt.Sprintf("%s 640ES%03d 640ED%03d", id, i, i))
	}
	h.pedigree(lines...)
	for _, id := range append(append([]string{}, rams...), ewes...) {
		h.get(id).ebv = map[string][2]float64{"WWT": {float64(len(id) % 5), 0.6}}
	}
	var e *env
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each of four requests under way at once costs a quarter of 3 s
		// of the call's time.
		e.clock.Advance(750 * time.Millisecond)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	e = newEnv(t, func(c *Config, o *[]nsip.Option) {
		c.AnalysisTimeout = 30 * time.Second // the default, on the test clock
		*o = append(*o, nsip.WithBaseURL(ts.URL+"/api"))
	})
	args := map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1}, "max_ewes_per_ram": 10}
	sentBefore := 0
	for call := 1; ; call++ {
		r := e.call("nsip_plan_matings", args)
		total := h.count("details/getAnimalDetails") + h.count("details/getLineage")
		sent := total - sentBefore
		sentBefore = total
		// The limit's nine tenths, 27 s, are 36 requests of 750 ms; the
		// four under way when it passes finish.
		if sent > 40 {
			t.Fatalf("call %d: NSIP received %d requests; 30 s at 3 s a request, four at once, allow about 40", call, sent)
		}
		if r.isError {
			// 110 records are needed before any pair can be weighed: the
			// answer says the time ran out, and that another call goes on
			// from what this one read.
			te := r.errorBody(t)
			if te.Code != toolerr.CodeTimeout || !strings.Contains(te.Problem, "time limit of one call (30s)") || !strings.Contains(te.Next, "cached") {
				t.Fatalf("call %d: %s, want timeout naming the 30s limit and that a second call goes further", call, r.text)
			}
			if call > 4 {
				t.Fatalf("call %d still without a plan: %s", call, r.text)
			}
			continue
		}
		// Every record read, the pedigrees not: a plan, partial, saying so.
		up, _ := r.meta["upstream"].(map[string]any)
		if up["time_limit_reached"] != true || up["time_limit_seconds"] != float64(30) {
			t.Errorf("call %d: _meta.upstream = %v, want time_limit_reached and time_limit_seconds 30", call, up)
		}
		// It says so first, with the pairs left for it and the call that
		// goes on.
		if !strings.HasPrefix(r.text, `{"time_limit_reached":{"effect":"the call's time limit of 30 s passed`) || !strings.Contains(r.text, `pairs are left out as unresolved for it`) ||
			!strings.Contains(r.text, `was not read whole (the call's time limit of 30 s passed before it was)`) ||
			!strings.Contains(r.text, `"next":{"arguments":"as in this call, with","set":{"max_tokens":2000},"tool":"nsip_plan_matings"}`) {
			t.Errorf("call %d: the plan does not open with the time limit, what it left and the next call: %.600s", call, r.text)
		}
		if !strings.Contains(r.text, "stopped extending the pedigree at the call's time limit") {
			t.Errorf("call %d: the plan does not say it stopped at the time limit: %.600s", call, r.text)
		}
		if call < 3 {
			t.Errorf("the first plan came with call %d, want the third or fourth (110 records at about 36 a call)", call)
		}
		return
	}
}
