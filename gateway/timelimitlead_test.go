package gateway

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// slowEnv is a gateway over the stand-in whose every request costs the
// call step of its 30 s time limit on the gateway's clock: the test counts
// requests, not seconds, so where the limit falls is exact.
func slowEnv(t *testing.T, step time.Duration) *env {
	t.Helper()
	var e *env
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.clock.Advance(step)
		e.up.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	e = newEnv(t, func(c *Config, o *[]nsip.Option) {
		c.AnalysisTimeout = 30 * time.Second
		*o = append(*o, nsip.WithBaseURL(ts.URL+"/api"))
	})
	return e
}

// A ranking for ewes that the call's time limit cuts says so first: its
// answer opens with time_limit_reached, which names the limit, what it
// left unresolved and the call that goes on; for_ewes blames the unread
// pedigrees on the limit, not on "lookups ran out or a lineage failed",
// and does not say that only so many rams pass. The next call it offers,
// made as offered, reads on from the cache and settles the rest. Before,
// the limit was only in a note, and the answer read as if 200 rams had
// failed max_mean_coi.
func TestRankingForEwesCutByTheTimeLimitSaysSoFirst(t *testing.T) {
	ewes, _ := standInEwes(newEnv(t).up.Data(), 4, 0)
	args := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5, "for_ewes": ewes, "max_mean_coi": 0.0625, "max_tokens": 8000}
	// The whole ranking's requests, at no cost in time.
	whole := slowEnv(t, 0)
	if r := whole.call("nsip_rank_animals", args).mustOK(t); strings.Contains(r.text, "time_limit_reached") {
		t.Fatalf("uncut ranking: %.300s", r.text)
	}
	n := whole.up.TotalRequests()
	// The limit's nine tenths (27 s) pass at request n-10, in the reading
	// of the rams' pedigrees, which come last.
	step := (27*time.Second + time.Duration(n-11)*time.Millisecond) / time.Duration(n-10)
	e := slowEnv(t, step.Round(time.Millisecond)+time.Millisecond)
	r := e.call("nsip_rank_animals", args).mustOK(t)
	if !strings.HasPrefix(r.text, `{"time_limit_reached":{`) {
		t.Fatalf("the cut ranking does not open with time_limit_reached: %.400s", r.text)
	}
	var a struct {
		Cut struct {
			Effect  string `json:"effect"`
			Seconds int    `json:"seconds"`
			Next    struct {
				Tool string         `json:"tool"`
				Set  map[string]any `json:"set"`
			} `json:"next"`
		} `json:"time_limit_reached"`
		ForEwes struct {
			LineagesRead int    `json:"lineages_read"`
			Short        string `json:"short"`
			Unresolved   *struct {
				Count  int    `json:"count"`
				Effect string `json:"effect"`
			} `json:"unresolved"`
		} `json:"for_ewes"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatal(err)
	}
	c, fe := a.Cut, a.ForEwes
	if c.Seconds != 30 || !strings.Contains(c.Effect, "time limit of 30 s") || c.Next.Tool != "nsip_rank_animals" || c.Next.Set["max_tokens"] != float64(8000) {
		t.Errorf("time_limit_reached %+v; want 30 s, named, and the same call next", c)
	}
	if fe.Unresolved == nil || !strings.Contains(fe.Unresolved.Effect, "time limit of 30 s passed") || strings.Contains(fe.Unresolved.Effect, "lookups ran out") ||
		!strings.Contains(c.Effect, "unresolved") {
		t.Errorf("for_ewes.unresolved %+v, lead %q; want the rams unresolved for the time limit, said so", fe.Unresolved, c.Effect)
	}
	// Lineages refused at the limit were sought, not read.
	if sent := e.up.Requests(nsiptest.EndpointLineage); fe.LineagesRead > sent {
		t.Errorf("for_ewes.lineages_read %d, but NSIP was asked for %d", fe.LineagesRead, sent)
	}
	if strings.HasPrefix(fe.Short, "only") {
		t.Errorf("for_ewes.short %q: reads as rams failing max_mean_coi", fe.Short)
	}
	// The next call, as offered, goes on from the cache and is not cut.
	next := e.call("nsip_rank_animals", args).mustOK(t)
	if strings.Contains(next.text, "time_limit_reached") || strings.Contains(next.text, `"unresolved"`) {
		t.Errorf("the next call: %.400s; want the ranking settled", next.text)
	}
}
