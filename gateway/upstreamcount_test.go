package gateway

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// computedLookups is an analysis answer's computed.upstream.lookups.
func computedLookups(t *testing.T, r reply) int {
	t.Helper()
	var a struct {
		Computed struct {
			Upstream *struct {
				Lookups int `json:"lookups"`
			} `json:"upstream"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || a.Computed.Upstream == nil {
		t.Fatalf("no computed.upstream (%v): %.400s", err, r.text)
	}
	return a.Computed.Upstream.Lookups
}

// standInEwes are n ewes of breed 640 with both parents recorded, and m
// rams, by LPN ID.
func standInEwes(d *nsiptest.Dataset, n, m int) (ewes, rams []string) {
	ids := d.AnimalIDs()
	slices.Sort(ids)
	for _, id := range ids {
		a, _ := d.Animal(id)
		if a.BreedID != 640 || a.Sire == "" || a.Dam == "" {
			continue
		}
		switch {
		case a.Gender == "Female" && len(ewes) < n:
			ewes = append(ewes, id)
		case a.Gender == "Male" && len(rams) < m:
			rams = append(rams, id)
		}
	}
	return ewes, rams
}

// An answer's computed.upstream.lookups is what it cost NSIP: every
// request the stand-in received for it, the retries of lineages NSIP
// failed once included, for a ranking for ewes and for a plan. Before,
// a retried lookup counted once, and a lookup the time limit cut not at
// all, though NSIP answered it: one ranking at NSIP 1 s a request said 61
// of 106.
func TestComputedLookupsCountEveryRequest(t *testing.T) {
	// Four attempts, so that the three failures pass whichever lookups
	// they fall on: the lineages are read at once, and a retry may meet a
	// failure again (with two attempts, one lineage failing twice failed
	// the whole call, as it did once under load).
	retrying := func(_ *Config, o *[]nsip.Option) {
		*o = append(*o, nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Second}))
	}
	ewes, rams := standInEwes(newEnv(t).up.Data(), 4, 3)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5, "for_ewes": ewes, "max_mean_coi": 0.0625}},
		{"nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1}}},
	}
	for _, c := range calls {
		e := newEnv(t, retrying) // nothing cached
		// Three lineage requests fail and are asked again.
		e.up.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 3})
		r := e.call(c.tool, c.args).mustOK(t)
		sent := e.up.TotalRequests()

		if got := computedLookups(t, r); got != sent || e.up.Requests(nsiptest.EndpointLineage) < 4 {
			t.Errorf("%s: computed.upstream.lookups %d, the stand-in received %d (%d lineages); want them equal", c.tool, got, sent, e.up.Requests(nsiptest.EndpointLineage))
		}
	}
}
