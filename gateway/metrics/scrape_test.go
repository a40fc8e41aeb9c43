package metrics

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// scrape is what a Prometheus scrape of m reads.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape answered %d", rec.Code)
	}
	return rec.Body.String()
}

// A scrape reports the state read at that moment, the Redis series only
// when Redis is shared, the open sessions per transport, the tasks and
// the rate-limit waits, each under the name and labels operators query.
func TestScrapeReportsEverySeries(t *testing.T) {
	m := New(prometheus.NewRegistry())
	state := State{Breaker: "half-open", CacheEntries: 3, CacheStale: 1, CacheBytes: 2048, CacheHits: 7, CacheMisses: 2,
		CacheEvictions: 1, UpstreamFlight: 2, UpstreamQueued: 4, AbandonedFetches: 5}
	m.WatchState(func() State { return state })
	m.WatchSessions("stdio", func() int64 { return 1 })
	m.WatchSessions("websocket", func() int64 { return 3 })
	m.WatchSessions("websocket", func() int64 { return 4 }) // replaces the first
	done := m.TaskStarted("nsip_rank_animals")
	m.TaskStarted("nsip_rank_animals")
	done()
	m.RateLimitWait("get_animal_details", 30*time.Millisecond)

	body := scrape(t, m)
	for _, want := range []string{
		`nsip_mcp_breaker_state{state="half-open"} 1`,
		`nsip_mcp_breaker_state{state="open"} 0`,
		`nsip_mcp_cache_entries{tier="fresh"} 3`,
		`nsip_mcp_cache_entries{tier="stale"} 1`,
		`nsip_mcp_cache_bytes 2048`,
		`nsip_mcp_cache_hits_total 7`,
		`nsip_mcp_cache_misses_total 2`,
		`nsip_mcp_cache_evictions_total 1`,
		`nsip_mcp_upstream_in_flight 2`,
		`nsip_mcp_upstream_queued 4`,
		`nsip_mcp_upstream_abandoned_total 5`,
		`nsip_mcp_sessions{transport="stdio"} 1`,
		`nsip_mcp_sessions{transport="websocket"} 4`,
		`nsip_mcp_tasks_started_total{tool="nsip_rank_animals"} 2`,
		`nsip_mcp_tasks_running 1`,
		`nsip_mcp_rate_limit_wait_seconds_count{endpoint="get_animal_details"} 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	if strings.Contains(body, "nsip_mcp_redis_") {
		t.Error("a replica sharing nothing reports Redis series")
	}

	state.Redis, state.RedisRoundTrips = "slow", 12
	state.RedisRefused, state.RedisRefusedKeys = map[string]uint64{"unauthenticated": 2}, 1
	body = scrape(t, m)
	for _, want := range []string{
		`nsip_mcp_redis_state{state="slow"} 1`,
		`nsip_mcp_redis_state{state="up"} 0`,
		`nsip_mcp_redis_round_trips_total 12`,
		`nsip_mcp_redis_refused_values_total{reason="unauthenticated"} 2`,
		`nsip_mcp_redis_refused_values_total{reason="future"} 0`,
		`nsip_mcp_redis_refused_keys 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape with Redis lacks %s", want)
		}
	}
}

// Before the gateway says what to read, a scrape reports none of its
// state rather than zeros that look like a reading.
func TestScrapeBeforeWatching(t *testing.T) {
	body := scrape(t, New(prometheus.NewRegistry()))
	if strings.Contains(body, "nsip_mcp_breaker_state") || strings.Contains(body, "nsip_mcp_sessions{") {
		t.Errorf("an unwatched scrape reports state: %.300s", body)
	}
}
