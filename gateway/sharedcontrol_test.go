//go:build e2e

package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The keys the replicas keep beside records: the rate limit's state, an
// endpoint's pause after a 429, the breaker's news.
const (
	rateKey   = cache.DefaultRedisPrefix + "rate"
	pauseKey  = cache.DefaultRedisPrefix + "pause:get_animal_details"
	breakKey  = cache.DefaultRedisPrefix + "breaker"
	tenHours  = 35999 * time.Second
	forgedFar = "99999999999999999999" // microseconds: three million years ahead
)

// mustScrape checks that a scrape of m holds each of want.
func mustScrape(t *testing.T, m *metrics.Metrics, want ...string) {
	t.Helper()
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, w := range want {
		if !strings.Contains(rec.Body.String(), w) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
}

// mustDegradedNaming checks that rp's /readyz says degraded and names key.
func mustDegradedNaming(t *testing.T, rp *replica, key string) {
	t.Helper()
	var de *upstream.DegradedError
	if err := rp.gw.Ready(context.Background()); !errors.As(err, &de) || !strings.Contains(de.Reason, key) {
		t.Errorf("/readyz with a forged %s in Redis = %v, want degraded naming it", key, err)
	}
}

// Someone who can write to Redis but holds no secret writes one key each:
// a ten-hour pause of the details endpoint, ten hours of breaker news, and
// a rate-limit state three million years ahead. Each replica answers its
// calls from NSIP as if the key were not there, keeps no pause, says
// degraded on /readyz naming the key while it is there, and ready once it
// is gone. Before, no uncached call was answered on either replica
// ("retry in 35999 s"), the forged pause was copied into each replica's
// own and outlived the key, and /readyz said ready.
func TestSharedForgedControlKeysAreNotBelieved(t *testing.T) {
	rd := redistest.Start(t)
	rc := redisClient(t, rd)
	ctx := context.Background()
	forge := map[string]func() error{
		pauseKey: func() error {
			return rc.Set(ctx, pauseKey, strconv.FormatInt(tenHours.Microseconds(), 10), tenHours).Err()
		},
		breakKey: func() error { return rc.Set(ctx, breakKey, "open", tenHours).Err() },
		rateKey:  func() error { return rc.Set(ctx, rateKey, forgedFar, 0).Err() },
	}
	for _, key := range []string{pauseKey, breakKey, rateKey} {
		t.Run(strings.TrimPrefix(key, cache.DefaultRedisPrefix), func(t *testing.T) {
			var ms []*metrics.Metrics
			rs, up := newReplicas(t, 2, rd.URL(), func(c *Config) {
				c.Metrics = metrics.New(prometheus.NewRegistry())
				ms = append(ms, c.Metrics)
			})
			if err := rc.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if err := forge[key](); err != nil {
				t.Fatal(err)
			}
			ids := up.Data().AnimalIDs()
			for i := range 6 {
				r := rs[i%2].call(t, "nsip_get_animal", map[string]any{"search_string": ids[i]})
				if r.isError {
					t.Fatalf("call %d on replica %d with a forged %s: %.300s, want an answer", i, i%2, key, r.text)
				}
				if i == 0 {
					// The first replica to read the key says so; a forged
					// rate state is replaced by that read, and reported
					// no longer.
					mustDegradedNaming(t, rs[0], strings.TrimPrefix(key, cache.DefaultRedisPrefix))
					reason := "unauthenticated"
					if key == rateKey {
						reason = "out_of_bound"
					}
					mustScrape(t, ms[0], `nsip_mcp_redis_refused_keys 1`, `nsip_mcp_redis_refused_values_total{reason="`+reason+`"} 1`)
				}
			}
			if got := up.Requests(nsiptest.EndpointDetails); got != 6 {
				t.Errorf("NSIP saw %d detail requests for 6 uncached calls, want 6", got)
			}
			for i, rp := range rs {
				if ps := rp.gw.Health().UpstreamPauses; len(ps) != 0 {
					t.Errorf("replica %d keeps pauses %+v taken from a forged key", i, ps)
				}
				if key != rateKey {
					mustDegradedNaming(t, rp, strings.TrimPrefix(key, cache.DefaultRedisPrefix))
				}
			}
			if key == rateKey {
				// The forged state was replaced by one a replica could hold.
				v, err := rc.Get(ctx, rateKey).Result()
				if err != nil || v == forgedFar {
					t.Errorf("the rate key holds %q (%v) after 6 calls, want the forged state replaced", v, err)
				}
				h0, h1 := rs[0].gw.Health().Shared, rs[1].gw.Health().Shared
				if h0.Redis.OutOfBoundValues+h1.Redis.OutOfBoundValues != 1 {
					t.Errorf("out_of_bound_values %d and %d, want 1 between them", h0.Redis.OutOfBoundValues, h1.Redis.OutOfBoundValues)
				}
			}
			if err := rc.Del(ctx, key).Err(); err != nil {
				t.Fatal(err)
			}
			for i, rp := range rs {
				rp.call(t, "nsip_get_animal", map[string]any{"search_string": ids[6+i]}).mustOK(t)
				if err := rp.gw.Ready(ctx); err != nil {
					t.Errorf("replica %d: /readyz once the key is gone = %v, want ready", i, err)
				}
				mustScrape(t, ms[i], `nsip_mcp_redis_refused_keys 0`)
			}
		})
	}
}

// A genuine pause or breaker news, written by a replica and so carrying
// the MAC, is held by another replica for no longer than its own
// NSIP_MAX_PAUSE or cooldown allows, however long the writer's are, and a
// genuine value written back by someone else with a ten-hour TTL after its
// time is not believed at all. Before, B held A's 120 s pause and A's
// 60 s breaker news, and a pause written back held it for ten hours.
func TestSharedControlValuesHeldToLocalBounds(t *testing.T) {
	rd := redistest.Start(t)
	rc := redisClient(t, rd)
	ctx := context.Background()
	i := 0
	rs, up := newReplicas(t, 2, rd.URL(), func(c *Config) {
		c.BreakerFailures = 1
		if i == 0 {
			c.MaxUpstreamPause, c.BreakerCooldown = 5*time.Minute, time.Minute
		} else {
			c.MaxUpstreamPause, c.BreakerCooldown = 10*time.Second, 5*time.Second
		}
		i++
	})
	a, b := rs[0], rs[1]
	ids := up.Data().AnimalIDs()

	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 120 * time.Second, Times: 1})
	if r := a.call(t, "nsip_get_animal", map[string]any{"search_string": ids[0]}); !r.isError || r.errorBody(t).Code != toolerr.CodeRateLimited {
		t.Fatalf("A's call through a 429: %.300s, want rate_limited", r.text)
	}
	if n, err := rc.Exists(ctx, pauseKey).Result(); err != nil || n != 1 {
		t.Fatalf("A wrote no pause: %v", err)
	}
	r := b.call(t, "nsip_get_animal", map[string]any{"search_string": ids[1]})
	if !r.isError || r.errorBody(t).Code != toolerr.CodeRateLimited || r.errorBody(t).RetryAfterSeconds > 10 {
		t.Errorf("B's call during A's 120 s pause: %.300s, want rate_limited within B's own 10 s", r.text)
	}
	if ps := b.gw.Health().UpstreamPauses; len(ps) != 1 || ps[0].RetryInSeconds > 10 {
		t.Errorf("B keeps pauses %+v, want one of at most its own 10 s", ps)
	}

	// A's pause, replayed: stamped as written two minutes before, given
	// ten hours. A third replica, which never saw it, does not believe it.
	c, _ := newReplicas(t, 1, rd.URL(), nil)
	stale := a.redis.SealAt(pauseKey, []byte("120000000 120000000"), time.Now().Add(-121*time.Second))
	if err := rc.Set(ctx, pauseKey, stale, tenHours).Err(); err != nil {
		t.Fatal(err)
	}
	c[0].call(t, "nsip_get_animal", map[string]any{"search_string": ids[2]}).mustOK(t)
	if ps := c[0].gw.Health().UpstreamPauses; len(ps) != 0 {
		t.Errorf("C keeps pauses %+v from a pause whose time had passed", ps)
	}
	mustDegradedNaming(t, c[0], "pause:get_animal_details")
	if h := c[0].gw.Health().Shared; h == nil || h.Redis.OutOfBoundValues != 1 {
		t.Errorf("C's shared health %+v, want out_of_bound_values 1", h)
	}
	if err := rc.Del(ctx, pauseKey).Err(); err != nil {
		t.Fatal(err)
	}

	// A's breaker opens for its minute; B believes at most its 5 s.
	up.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 1})
	if r := a.call(t, "nsip_get_lineage", map[string]any{"lpn_id": ids[3]}); !r.isError {
		t.Fatalf("A's call through a 503: %.200s", r.text)
	}
	waitLong(t, "A's open breaker to reach Redis", func() bool {
		n, err := rc.Exists(ctx, breakKey).Result()
		return err == nil && n == 1
	})
	r = c[0].call(t, "nsip_get_lineage", map[string]any{"lpn_id": ids[4]})
	if !r.isError || r.errorBody(t).Code != toolerr.CodeUpstreamUnavailable {
		t.Fatalf("C's call while A's breaker is open: %.300s, want upstream_unavailable", r.text)
	}
	r = b.call(t, "nsip_get_lineage", map[string]any{"lpn_id": ids[4]})
	if !r.isError || r.errorBody(t).Code != toolerr.CodeUpstreamUnavailable || r.errorBody(t).RetryInSeconds > 5 {
		t.Errorf("B's call while A's 60 s breaker is open: %.300s, want upstream_unavailable within B's own 5 s cooldown", r.text)
	}
}
