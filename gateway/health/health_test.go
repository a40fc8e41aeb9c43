package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

// pool is a stand-in upstream pool whose state the test sets.
type pool struct {
	tokens      float64
	limit       float64
	burst       int
	inFlight    int64
	queued      int
	pauses      []upstream.PauseHealth
	requests    int64
	abandoned   int64
	drift       upstream.Drift
	shared      *upstream.Shared
	state       string
	failures    uint32
	retryIn     time.Duration
	lastSuccess int64
}

func (p *pool) TokensAt(time.Time) float64              { return p.tokens }
func (p *pool) LocalLimit() (float64, int)              { return p.limit, p.burst }
func (p *pool) InFlight() int64                         { return p.inFlight }
func (p *pool) Queued() int                             { return p.queued }
func (p *pool) Pauses(time.Time) []upstream.PauseHealth { return p.pauses }
func (p *pool) Requests() int64                         { return p.requests }
func (p *pool) Abandoned() int64                        { return p.abandoned }
func (p *pool) Drift() *upstream.Drift                  { return &p.drift }
func (p *pool) Shared() *upstream.Shared                { return p.shared }
func (p *pool) Breaker() (string, uint32)               { return p.state, p.failures }
func (p *pool) BreakerOpen() bool                       { return p.state == "open" }
func (p *pool) RetryIn() time.Duration                  { return p.retryIn }
func (p *pool) LastSuccess() int64                      { return p.lastSuccess }

// newPool is a pool with a closed breaker and a limit of 10 a second,
// bursts of 20, sharing nothing.
func newPool() *pool {
	return &pool{shared: upstream.NewShared(upstream.SharedConfig{Limiter: rate.NewLimiter(10, 20), RateLimit: 10, RateBurst: 20}),
		limit: 10, burst: 20, state: "closed"}
}

// cacheStats is a stand-in cache with these statistics.
type cacheStats cache.Stats

func (c cacheStats) Stats() cache.Stats { return cache.Stats(c) }

// newReporter reads p, a cache of three entries and counters of two tools
// and two error codes.
func newReporter(p *pool) *Reporter {
	st := &Stats{}
	st.Init([]string{"nsip_get_animal", "nsip_rank_animals"}, []string{"not_found", "rate_limited"})
	return &Reporter{
		Cache: cacheStats{Entries: 3, StaleEntries: 1, Bytes: 900, Hits: 5, Misses: 2, Evictions: 1},
		Pool:  p, Stats: st, MaxConcurrent: 4, MaxPause: 90 * time.Second, ReadyMaxAge: time.Minute,
	}
}

// /healthz shows the pool, cache and counters as they are, in its
// published shape.
func TestHealthReportsTheGatewaysState(t *testing.T) {
	p := newPool()
	p.tokens, p.inFlight, p.queued, p.requests, p.abandoned = 7.256, 2, 3, 40, 1
	p.pauses = []upstream.PauseHealth{{Method: "getTraitRangesByBreed", RetryInSeconds: 30, AskedSeconds: 30}}
	p.state, p.failures, p.retryIn = "open", 5, 1500*time.Millisecond
	success := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	p.lastSuccess = success.UnixNano()
	first := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)
	p.drift.Note("getAnimalDetails", "{x:number}", "no data member", first)
	r := newReporter(p)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); r.Stats.Called("nsip_get_animal") }()
	}
	wg.Wait()
	r.Stats.Called("nsip_rank_animals")
	r.Stats.Failed("not_found")
	r.Stats.Summarized(250, 1000) // 0.75
	r.Stats.Summarized(500, 1000) // 0.5
	r.Stats.Summarized(10, 0)     // nothing to reduce: counted, no reduction

	b, err := json.Marshal(r.Health())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cache":{"entries":3,"stale_entries":1,"bytes":900,"hits":5,"misses":2,"hit_rate":0,"evictions":1,"expirations":0,"stale_served":0,"max_entries":0,"max_bytes":0},` +
		`"breaker":{"state":"open","consecutive_failures":5,"retry_in_seconds":2},` +
		`"rate_limit":{"tokens_available":7.26,"limit_per_second":10,"burst":20,"in_flight":2,"max_concurrent":4,"queued":3},` +
		`"upstream_pauses":[{"method":"getTraitRangesByBreed","retry_in_seconds":30,"asked_seconds":30}],"max_pause_seconds":90,` +
		`"last_upstream_success":"2026-03-01T12:00:00Z","upstream_requests":40,"abandoned_fetches":1,` +
		`"calls_by_tool":{"nsip_get_animal":10,"nsip_rank_animals":1},"errors_by_code":{"not_found":1,"rate_limited":0},` +
		`"summarizations":3,"mean_reduction":0.417,` +
		`"format_drift":[{"endpoint":"getAnimalDetails","signature":"{x:number}","reason":"no data member","first_seen":"2026-03-01T11:00:00Z","last_seen":"2026-03-01T11:00:00Z","count":1}]}`
	if string(b) != want {
		t.Errorf("health\n%s\nwant\n%s", b, want)
	}
}

// Before any call or success: no last success, no retry, zero counts for
// every tool and code, no reduction, and lists that are empty, not null.
func TestHealthBeforeAnything(t *testing.T) {
	p := newPool()
	p.tokens = -3 // a limiter in debt has none to give
	h := newReporter(p).Health()
	if h.LastUpstreamSuccess != nil || h.Breaker.RetryInSeconds != 0 || h.MeanReduction != 0 || h.Summarizations != 0 || h.Shared != nil {
		t.Errorf("health %+v", h)
	}
	if fmt.Sprint(h.CallsByTool, h.ErrorsByCode) != "map[nsip_get_animal:0 nsip_rank_animals:0] map[not_found:0 rate_limited:0]" {
		t.Errorf("counts %v %v", h.CallsByTool, h.ErrorsByCode)
	}
	if h.RateLimit.TokensAvailable != 0 {
		t.Errorf("tokens available %v, want 0", h.RateLimit.TokensAvailable)
	}
	b, _ := json.Marshal(h)
	if !strings.Contains(string(b), `"format_drift":[]`) {
		t.Errorf("health %s", b)
	}
}

// A call of a tool or an error code not counted is a mistake in the
// call path, found at once.
func TestStatsRefuseNamesNotInitialized(t *testing.T) {
	var s Stats
	s.Init(nil, nil)
	for name, f := range map[string]func(){"Called": func() { s.Called("x") }, "Failed": func() { s.Failed("x") }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of an unknown name did not panic", name)
				}
			}()
			f()
		}()
	}
}

// Ready: an open breaker is not ready, naming the wait; a recent success
// is enough without asking NSIP; otherwise the probe decides.
func TestReady(t *testing.T) {
	ctx := context.Background()
	p := newPool()
	probes := 0
	var probeErr error
	r := newReporter(p)
	r.Probe = func(context.Context) error { probes++; return probeErr }

	p.state, p.retryIn = "open", 2100*time.Millisecond
	if err := r.Ready(ctx); err == nil || err.Error() != "NSIP unavailable after repeated failures; retrying in 3 s" {
		t.Errorf("open breaker: %v", err)
	}
	p.state = "closed"
	p.lastSuccess = time.Now().Add(-time.Second).UnixNano()
	if err := r.Ready(ctx); err != nil || probes != 0 {
		t.Errorf("recent success: %v after %d probes", err, probes)
	}
	p.lastSuccess = time.Now().Add(-time.Hour).UnixNano()
	if err := r.Ready(ctx); err != nil || probes != 1 {
		t.Errorf("old success, probe fine: %v after %d probes", err, probes)
	}
	p.lastSuccess = 0
	probeErr = errors.New("NSIP is failing (timeout); only stale answers are available")
	if err := r.Ready(ctx); !errors.Is(err, probeErr) || probes != 2 {
		t.Errorf("no success, probe failing: %v after %d probes", err, probes)
	}
}

// A scrape reads the cache's and the pool's counters as they are; without
// Redis it reports none of Redis's.
func TestMetricsStateReadsTheCounters(t *testing.T) {
	p := newPool()
	p.state, p.inFlight, p.queued, p.abandoned = "half-open", 2, 7, 3
	st := newReporter(p).MetricsState()
	want := "{Breaker:half-open CacheEntries:3 CacheStale:1 CacheBytes:900 CacheHits:5 CacheMisses:2 CacheEvictions:1 " +
		"UpstreamFlight:2 UpstreamQueued:7 AbandonedFetches:3 Redis: RedisRoundTrips:0 RedisRefused:map[] RedisRefusedKeys:0 BreedPassBytes:0 BreedPasses:0}"
	if got := fmt.Sprintf("%+v", st); got != want {
		t.Errorf("state\n%s\nwant\n%s", got, want)
	}
}
