//go:build e2e

package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/redis/go-redis/v9"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// replica is one gateway of several sharing a Redis and a stand-in upstream,
// as separate server processes would: each has its own cache, limiter,
// breaker and Redis connection.
type replica struct {
	gw     *Gateway
	client *client.Client
	redis  *cache.Redis
	logs   *logbuf.Buffer
}

func (r *replica) call(t testing.TB, name string, args any) reply {
	t.Helper()
	return callTool(t, r.client, name, args)
}

// redisWarnings counts the warnings a replica logged about Redis going away
// and coming back.
func (r *replica) redisWarnings(t *testing.T) (down, up int) {
	t.Helper()
	for _, l := range r.logs.Records(t) {
		switch msg, _ := l["msg"].(string); {
		case strings.HasPrefix(msg, "redis unavailable"):
			down++
		case strings.HasPrefix(msg, "redis reachable again"):
			up++
		}
	}
	return down, up
}

// sharedSecret is what the replicas in these tests share.
var sharedSecret = []byte("replicas-shared-secret-0123456789abcdef")

// newReplicas starts n gateways against one stand-in and the Redis at url.
func newReplicas(t testing.TB, n int, url string, configure func(*Config)) ([]*replica, *nsiptest.Server) {
	t.Helper()
	// Thirty seconds per command, not the production 250 ms: under -race
	// on a two-core machine running other suites one command took over a
	// second, and the replica then rightly carried on alone and fetched
	// for itself, which is not what the sharing tests look at. For the
	// same reason no round trip short of the limit counts as slow
	// (TestSharedSlowRedisIsDegraded sets its own slow mark). A stopped or
	// refusing Redis answers at once whatever the limit.
	return newReplicasLimited(t, n, url, 30*time.Second, configure)
}

// newReplicasLimited is newReplicas with limit for one Redis command, for
// the tests of a Redis that stalls.
func newReplicasLimited(t testing.TB, n int, url string, limit time.Duration, configure func(*Config)) ([]*replica, *nsiptest.Server) {
	t.Helper()
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	rs := make([]*replica, n)
	for i := range rs {
		logs := &logbuf.Buffer{}
		log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		rd, err := cache.NewRedis(cache.RedisConfig{URL: url, Secret: sharedSecret, Logger: log, RetryEvery: 20 * time.Millisecond,
			OpTimeout: limit, SlowAfter: limit})
		if err != nil {
			t.Fatalf("NewRedis: %v", err)
		}
		t.Cleanup(func() { _ = rd.Close() })
		rs[i] = newReplicaOver(t, up, rd, logs, func(c *Config) {
			c.Replicas = n
			if configure != nil {
				configure(c)
			}
		})
	}
	return rs, up
}

// newReplicaOver is one replica over the stand-in up and the Redis rd,
// logging to logs.
func newReplicaOver(t testing.TB, up *nsiptest.Server, rd *cache.Redis, logs *logbuf.Buffer, configure func(*Config)) *replica {
	t.Helper()
	sum, _ := summarizer(t)
	nc, err := nsip.NewClient(nsip.WithBaseURL(up.URL()),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1, MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatalf("nsip.NewClient: %v", err)
	}
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.RateLimit, cfg.RateBurst = 1000, 1000
	cfg.Shared = rd
	if configure != nil {
		configure(&cfg)
	}
	gw, err := New(nc, sum, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &replica{gw: gw, client: connect(t, gw.NewMCPServer("nsip-mcp-test", "0.0.0")), redis: rd, logs: logs}
}

func cacheSource(t testing.TB, r reply) string {
	t.Helper()
	s, _ := r.meta["cache"].(string)
	return s
}

func TestSharedMissOnOneReplicaIsAHitOnAnother(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := newReplicas(t, 2, rd.URL(), nil)
	a, b := rs[0], rs[1]
	id := up.Data().MostProgeny()

	first := a.call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	second := b.call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 {
		t.Fatalf("upstream detail requests = %d after a call on each replica, want 1", got)
	}
	if cacheSource(t, first) != cacheMiss || cacheSource(t, second) != cacheShared {
		t.Errorf("_meta.cache = %q then %q, want miss on A then shared on B", cacheSource(t, first), cacheSource(t, second))
	}
	if first.text != second.text {
		t.Errorf("B's answer differs from A's:\nA %.300s\nB %.300s", first.text, second.text)
	}
	if !strings.Contains(second.text, id) {
		t.Errorf("B's answer does not name the animal %s: %.300s", id, second.text)
	}
	// The Redis hit filled B's local tier: asking again does not go to Redis.
	if third := b.call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t); cacheSource(t, third) != cacheHit {
		t.Errorf("B's second call: _meta.cache = %q, want hit", cacheSource(t, third))
	}

	// A profile is assembled from decoded models: B builds the same one
	// from the parts A fetched, with no upstream request.
	// NSIP's lean answers make a profile of about 1,400 tokens, so a
	// smaller budget has it summarized.
	profile := map[string]any{"lpn_id": id, "max_tokens": smallBudget}
	pa := a.call(t, "nsip_search_by_lpn", profile).mustOK(t)
	up.ResetCounts()
	pb := b.call(t, "nsip_search_by_lpn", profile).mustOK(t)
	if got := up.TotalRequests(); got != 0 {
		t.Errorf("B's profile made %d upstream requests, want 0: A fetched every part", got)
	}
	if cacheSource(t, pb) != cacheShared {
		t.Errorf("B's profile: _meta.cache %q, want shared (two of its parts came from Redis)", cacheSource(t, pb))
	}
	if pa.text != pb.text || pa.metaInt(t, "tokens") != pb.metaInt(t, "tokens") || pa.meta["summarized"] != pb.meta["summarized"] {
		t.Errorf("profiles differ between replicas (summarized %v / %v):\nA %.300s\nB %.300s", pa.meta["summarized"], pb.meta["summarized"], pa.text, pb.text)
	}
	if pa.meta["summarized"] != true {
		t.Errorf("the most prolific animal's profile was not summarized (%d tokens); the test means to compare a summary fitted from shared models", pa.metaInt(t, "original_tokens"))
	}
	// B had the details itself; lineage and progeny came from Redis.
	if h := b.gw.Health().Shared; h == nil || h.Hits != 3 || !h.Redis.Up {
		t.Errorf("B's shared health = %+v, want Redis up and 3 hits (the animal, its lineage and progeny)", h)
	}
}

func TestSharedIgnoresAndOverwritesForeignValues(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := newReplicas(t, 2, rd.URL(), nil)
	rc := redisClient(t, rd)
	ctx := context.Background()
	ids := up.Data().AnimalIDs()
	plant := map[string]func(key string) error{
		"not ours": func(k string) error { return rc.Set(ctx, k, `{"lpnId":"forged"}`, time.Hour).Err() },
		"damaged": func(k string) error {
			// A real record with its last byte changed: the checksum catches it.
			if err := rs[1].call(t, "nsip_get_animal", map[string]any{"search_string": ids[9]}); err.isError {
				return errors.New(err.text)
			}
			good, err := rc.Get(ctx, cache.DefaultRedisPrefix+"c:"+rs[1].gw.pool.Shared().RecordKey(cache.Key(lookup.Animal.Method, map[string]any{"search_string": ids[9]}))).Bytes()
			if err != nil {
				return err
			}
			good[len(good)-1] ^= 0xff
			return rc.Set(ctx, k, good, time.Hour).Err()
		},
		"wrong type": func(k string) error { return rc.RPush(ctx, k, "x").Err() },
		// Authentic (a replica wrote it, with the secret) but from a build
		// whose models have another shape.
		"other shape": func(k string) error {
			rec := deflate(t, `{"s":1,"t":"AnimalDetails","m":{},"x":"{}","n":1,"o":1}`)
			rs[1].redis.Store(ctx, strings.TrimPrefix(k, cache.DefaultRedisPrefix+"c:"), rec, time.Now(), time.Hour)
			return nil
		},
	}
	i := 0
	for name, f := range plant {
		t.Run(name, func(t *testing.T) {
			id := ids[i]
			i++
			key := cache.DefaultRedisPrefix + "c:" + rs[0].gw.pool.Shared().RecordKey(cache.Key(lookup.Animal.Method, map[string]any{"search_string": id}))
			if err := f(key); err != nil {
				t.Fatal(err)
			}
			up.ResetCounts()
			r := rs[0].call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
			if cacheSource(t, r) != cacheMiss || !strings.Contains(r.text, id) || strings.Contains(r.text, "forged") {
				t.Errorf("A served %q from a planted value: %.200s", cacheSource(t, r), r.text)
			}
			if got := up.Requests(nsiptest.EndpointDetails); got != 1 {
				t.Errorf("upstream requests = %d, want 1 (the planted value ignored)", got)
			}
			// A overwrote it: B now finds A's answer.
			rb := rs[1].call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
			if cacheSource(t, rb) != cacheShared || rb.text != r.text {
				t.Errorf("B after A's fetch: _meta.cache %q, same text %v; want shared and the same", cacheSource(t, rb), rb.text == r.text)
			}
		})
	}
	if st := rs[0].redis.Status(); !st.Up || st.IgnoredValues < 4 {
		t.Errorf("A's Redis status %+v, want up with at least 4 ignored values", st)
	}
}

func TestSharedSurvivesRedisGoingAwayAndRejoins(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := newReplicas(t, 2, rd.URL(), nil)
	ids := up.Data().AnimalIDs()

	// Calls run on both replicas without pause through the whole test;
	// each phase waits (bounded) for a number of calls to complete.
	var done, failed atomic.Int64
	var firstFailure atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += 4 {
				select {
				case <-stop:
					return
				default:
				}
				r := rs[w%2].call(t, "nsip_get_animal", map[string]any{"search_string": ids[i%400]})
				if r.isError {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, r.text)
				}
				done.Add(1)
			}
		}()
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	moreCalls := func(what string, n int64) {
		t.Helper()
		target := done.Load() + n
		waitLong(t, what, func() bool { return done.Load() >= target })
	}

	moreCalls("calls with Redis up", 50)
	rd.Stop()
	moreCalls("calls with Redis stopped", 200)
	for i, r := range rs {
		var de *upstream.DegradedError
		if err := r.gw.Ready(context.Background()); !errors.As(err, &de) || !strings.Contains(de.Reason, "redis unavailable") {
			t.Errorf("replica %d Ready with Redis stopped = %v, want an upstream.DegradedError naming Redis", i, err)
		}
		if h := r.gw.Health(); h.Shared.Redis.Up || !h.Shared.LocalRateLimit || h.RateLimit.LimitPerSecond != 500 || h.RateLimit.Burst != 500 {
			t.Errorf("replica %d with Redis stopped: shared %+v, rate limit %+v; want Redis down and the local limit at half of 1000/s, burst 1000", i, h.Shared, h.RateLimit)
		}
	}

	rd.Restart()
	for i, r := range rs {
		waitLong(t, fmt.Sprintf("replica %d to find Redis again", i), func() bool { return r.gw.Ready(context.Background()) == nil })
	}
	moreCalls("calls after Redis returned", 50)
	close(stop)
	wg.Wait()
	stop = make(chan struct{})

	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d calls failed while Redis went away and came back; first: %v", n, done.Load(), firstFailure.Load())
	}
	for i, r := range rs {
		if down, back := r.redisWarnings(t); down != 1 || back != 1 {
			t.Errorf("replica %d logged %d 'unavailable' and %d 'reachable again' warnings, want 1 each", i, down, back)
		}
		if h := r.gw.Health().Shared; !h.Redis.Up || h.LocalRateLimit {
			t.Errorf("replica %d shared health after Redis returned = %+v, want up and the shared rate limit", i, h)
		}
	}
	// Sharing resumed: a fresh miss on A is a hit on B.
	up.ResetCounts()
	id := ids[1000]
	ra := rs[0].call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	rb := rs[1].call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 || cacheSource(t, rb) != cacheShared || ra.text != rb.text {
		t.Errorf("after Redis returned: %d upstream requests, B's _meta.cache %q; want 1 and shared", got, cacheSource(t, rb))
	}
}

func redisClient(t *testing.T, rd *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: rd.Addr(), DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitLong polls cond until it holds, failing the test after a bound
// generous for a loaded machine running -race.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSharedRedisSlowOrRefusingFailsNoCall(t *testing.T) {
	t.Run("refusing", func(t *testing.T) {
		rd := redistest.Start(t)
		// Redis answers every connection with an error: there is no database 99.
		rs, up := newReplicas(t, 1, "redis://"+rd.Addr()+"/99", nil)
		id := up.Data().MostProgeny()
		for range 3 {
			rs[0].call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
		}
		var de *upstream.DegradedError
		if err := rs[0].gw.Ready(context.Background()); !errors.As(err, &de) || !strings.Contains(de.Reason, "DB index is out of range") {
			t.Errorf("Ready with a refusing Redis = %v, want degraded with Redis's own error", err)
		}
		if down, _ := rs[0].redisWarnings(t); down != 1 {
			t.Errorf("logged %d 'redis unavailable' warnings, want 1", down)
		}
	})
	t.Run("slow", func(t *testing.T) {
		rd := redistest.Start(t)
		p := newSlowProxy(t, rd.Addr())
		// A second per command: each stalled command ends there and the
		// replica goes on alone.
		rs, up := newReplicasLimited(t, 2, "redis://"+p.ln.Addr().String()+"/0", time.Second, nil)
		// Every command held until the calls are done, as an overloaded or
		// swapping Redis would stall them; released, not timed, so that a
		// slow machine cannot make the stall end before the calls.
		release := p.stall()
		ids := up.Data().AnimalIDs()
		for i := range 6 {
			rs[i%2].call(t, "nsip_get_animal", map[string]any{"search_string": ids[i]}).mustOK(t)
		}
		release()
		for i, r := range rs {
			if down, _ := r.redisWarnings(t); down != 1 {
				t.Errorf("replica %d logged %d 'redis unavailable' warnings while Redis stalled, want 1", i, down)
			}
			waitLong(t, "the replica to find Redis again", func() bool { return r.gw.Ready(context.Background()) == nil })
		}
	})
}

func TestSharedStaleAnswerServesWhenNSIPFails(t *testing.T) {
	rd := redistest.Start(t)
	clk := cachetest.NewClock()
	rs, up := newReplicas(t, 2, rd.URL(), func(c *Config) { c.Now = clk.Now })
	id := up.Data().MostProgeny()
	fresh := rs[0].call(t, "nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t)
	clk.Advance(2 * time.Hour) // past the one-hour TTL, inside the stale window
	up.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	r := rs[1].call(t, "nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t)
	if cacheSource(t, r) != cacheStale || r.text != fresh.text {
		t.Errorf("B with NSIP failing: _meta.cache %q, same text %v; want A's answer, stale", cacheSource(t, r), r.text == fresh.text)
	}
	if age := r.metaInt(t, "stale_age_seconds"); age != 7200 {
		t.Errorf("stale_age_seconds = %d, want 7200: the age counts from A's fetch", age)
	}
}
