//go:build e2e

package gateway

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// slowProxy forwards TCP to Redis, holding each chunk the client sends for
// delay while delay is set: a Redis far away or overloaded, but answering.
type slowProxy struct {
	ln    net.Listener
	delay atomic.Int64
	// held, when set, holds every command until the channel is closed: a
	// Redis stalled for exactly as long as a test needs, however slowly
	// the test runs.
	held atomic.Pointer[chan struct{}]
	wg   sync.WaitGroup
}

// stall holds every command from now until the returned release is
// called.
func (p *slowProxy) stall() (release func()) {
	ch := make(chan struct{})
	p.held.Store(&ch)
	return func() { p.held.Store(nil); close(ch) }
}

func newSlowProxy(t *testing.T, target string) *slowProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &slowProxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.wg.Add(2)
			go func() { defer p.wg.Done(); p.pipe(s, c, true); _ = s.Close() }()
			go func() { defer p.wg.Done(); p.pipe(c, s, false); _ = c.Close() }()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return p
}

func (p *slowProxy) pipe(dst, src net.Conn, slow bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if d := time.Duration(p.delay.Load()); slow && d > 0 {
				time.Sleep(d)
			}
			if ch := p.held.Load(); slow && ch != nil {
				<-*ch
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// A Redis that answers, but slower than the slow mark, is no longer waited
// on for the cache: misses go on with the local tier, /readyz says
// degraded naming the slowness, /healthz shows the state while the rate
// limit stays shared, and once Redis is quick again the replica rejoins.
// The proxy holds each command 1.5 s against a slow mark of 1 s; before,
// such a Redis was "up" and every miss waited on six round trips of it.
// The hold alone puts every round trip over the mark. The mark is high so
// that a loaded machine's round trips, before the hold and after it, stay
// well under it: five of eight over it would mark Redis slow there too.
// Commands get thirty seconds, so that none of the held ones counts as
// unanswered.
func TestSharedSlowRedisIsDegraded(t *testing.T) {
	rd := redistest.Start(t)
	p := newSlowProxy(t, rd.Addr())
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 200})
	r, err := cache.NewRedis(cache.RedisConfig{URL: "redis://" + p.ln.Addr().String() + "/0", Secret: sharedSecret,
		OpTimeout: 30 * time.Second, SlowAfter: time.Second, RetryEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	m := metrics.New(prometheus.NewRegistry())
	rp := newReplicaOver(t, up, r, &logbuf.Buffer{}, func(c *Config) { c.Metrics = m })
	ids := up.Data().AnimalIDs()
	rp.call(t, "nsip_get_animal", map[string]any{"search_string": ids[0]}).mustOK(t)
	if err := rp.gw.Ready(context.Background()); err != nil {
		t.Fatalf("Ready with a quick Redis = %v, want ready", err)
	}

	p.delay.Store(int64(1500 * time.Millisecond))
	for i := 1; i < 4 && r.Status().Up; i++ {
		rp.call(t, "nsip_get_animal", map[string]any{"search_string": ids[i]}).mustOK(t)
	}
	st := r.Status()
	if st.Up || st.State != cache.RedisSlow {
		t.Fatalf("Redis status after slow round trips = %+v, want slow and not up", st)
	}
	var de *upstream.DegradedError
	if err := rp.gw.Ready(context.Background()); !errors.As(err, &de) {
		t.Errorf("Ready with a slow Redis = %v, want degraded", err)
	} else if want := "redis slow"; !strings.Contains(de.Reason, want) {
		t.Errorf("degraded reason %q does not say %q", de.Reason, want)
	}
	if h := rp.gw.Health(); h.Shared == nil || h.Shared.Redis.State != cache.RedisSlow || h.Shared.LocalRateLimit || !h.Shared.Redis.SharesLimit {
		t.Errorf("/healthz shared = %+v, want redis state slow and the shared rate limit kept", h.Shared)
	}
	var scrape strings.Builder
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	scrape.WriteString(rec.Body.String())
	for _, want := range []string{`nsip_mcp_redis_state{state="slow"} 1`, `nsip_mcp_redis_state{state="up"} 0`} {
		if !strings.Contains(scrape.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Misses no longer wait on Redis: no round trip while it is slow and
	// not due for a try.
	p.delay.Store(0)
	waitLong(t, "the replica to find Redis quick again", func() bool { return rp.gw.Ready(context.Background()) == nil })
	if st := r.Status(); !st.Up || st.State != cache.RedisUp {
		t.Errorf("Redis status once quick = %+v, want up", st)
	}
}

// A Redis that still answers reads and PING but refuses every write (out
// of memory under noeviction here; a read-only replica or a failing disk
// look the same) is of no use to share through: /readyz says degraded and
// why, the replica goes on alone without a failed call and without
// flapping between up and down on each read, and it rejoins once writes
// are taken again. Before, the next successful read or PING marked Redis
// up and /readyz said ready.
func TestSharedRefusingWritesIsDegraded(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := newReplicas(t, 1, rd.URL(), nil)
	rp := rs[0]
	rc := redisClient(t, rd)
	ctx := context.Background()
	ids := up.Data().AnimalIDs()
	rp.call(t, "nsip_get_animal", map[string]any{"search_string": ids[0]}).mustOK(t)
	if err := rc.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Set(ctx, "probe-by-test", "x", time.Minute).Err(); err == nil || !strings.HasPrefix(err.Error(), "OOM") {
		t.Fatalf("a write with maxmemory 1 answered %v, want OOM", err)
	}
	for i := 1; i < 6; i++ {
		rp.call(t, "nsip_get_animal", map[string]any{"search_string": ids[i]}).mustOK(t)
		rp.call(t, "nsip_get_animal", map[string]any{"search_string": ids[0]}).mustOK(t)
	}
	var de *upstream.DegradedError
	if err := rp.gw.Ready(ctx); !errors.As(err, &de) || !strings.Contains(de.Reason, "redis refuses writes (OOM") {
		t.Fatalf("Ready while Redis refuses writes = %v, want degraded: redis refuses writes (OOM …)", err)
	}
	if h := rp.gw.Health().Shared; h.Redis.Up || h.Redis.State != cache.RedisRefusingWrites || !h.LocalRateLimit {
		t.Errorf("/healthz shared = %+v, want redis refusing_writes, not up, and the local rate limit", h)
	}
	if down, back := rp.redisWarnings(t); down != 1 || back != 0 {
		t.Errorf("logged %d 'redis unavailable' and %d 'reachable again' warnings while writes were refused, want 1 and 0", down, back)
	}
	if err := rc.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rp.gw.Ready(ctx); err != nil {
		t.Errorf("Ready once Redis takes writes again = %v, want ready", err)
	}
}

// NSIP failing each request twice, two replicas sharing a burst of 6 that
// does not refill through Redis: every retry takes a shared token, so NSIP
// sees at most 6 requests, and two calls (three requests each) are
// answered. Before, retries bypassed the shared limit as well.
func TestSharedLimitCountsRetries(t *testing.T) {
	rd := redistest.Start(t)
	f := newFlakyUpstream(t, 2)
	var gws []*env
	for range 2 {
		r, err := cache.NewRedis(cache.RedisConfig{URL: rd.URL(), Secret: sharedSecret, OpTimeout: 30 * time.Second, SlowAfter: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		gws = append(gws, newRetryingGateway(t, f, func(c *Config) {
			c.RateLimit, c.RateBurst = 0.001, 6
			c.Shared, c.Replicas = r, 2
		}))
	}
	ids := f.Data().AnimalIDs()
	var answered, limited int
	for i, id := range ids[:8] {
		r := gws[i%2].call("nsip_get_animal", map[string]any{"search_string": id})
		switch {
		case !r.isError:
			answered++
		case r.errorBody(t).Code == toolerr.CodeRateLimited:
			limited++
		default:
			t.Errorf("call for %s: %s, want an answer or rate_limited", id, r.text)
		}
	}
	if got := f.requests(); got != 6 {
		t.Errorf("NSIP received %d requests under a shared burst of 6 that does not refill, want 6", got)
	}
	if answered != 2 || limited != 6 {
		t.Errorf("%d answered and %d rate_limited, want 2 and 6", answered, limited)
	}
	for i, e := range gws {
		if h := e.gw.Health().Shared; h == nil || !h.Redis.Up {
			t.Errorf("replica %d: Redis not up (%+v); the shared limit was not what held", i, h)
		}
	}
}

// A Redis that is slow but answering keeps the limit the replicas share:
// one replica of two, a shared burst of 4 that does not refill, every
// Redis command held 300 ms against a slow mark of 100 ms. Redis is
// marked slow, and NSIP still sees the shared burst, 4 of 8 calls, not
// the local share of 2. Before, the first call's three slow round trips
// marked Redis slow and the replica fell back to its local share: 2
// answered.
func TestSharedSlowRedisKeepsTheSharedLimit(t *testing.T) {
	rd := redistest.Start(t)
	p := newSlowProxy(t, rd.Addr())
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 200})
	r, err := cache.NewRedis(cache.RedisConfig{URL: "redis://" + p.ln.Addr().String() + "/0", Secret: sharedSecret,
		OpTimeout: 10 * time.Second, SlowAfter: 100 * time.Millisecond, RetryEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	rp := newReplicaOver(t, up, r, &logbuf.Buffer{}, func(c *Config) {
		c.Replicas, c.RateLimit, c.RateBurst, c.CallTimeout = 2, 0.001, 4, 30*time.Second
	})
	p.delay.Store(int64(300 * time.Millisecond))
	var answered, limited int
	for _, id := range up.Data().AnimalIDs()[:8] {
		switch r := rp.call(t, "nsip_get_animal", map[string]any{"search_string": id}); {
		case !r.isError:
			answered++
		case r.errorBody(t).Code == toolerr.CodeRateLimited:
			limited++
		default:
			t.Errorf("call for %s: %.300s, want an answer or rate_limited", id, r.text)
		}
	}
	if st := r.Status(); st.State != cache.RedisSlow || !st.SharesLimit {
		t.Errorf("Redis status %+v, want slow, still sharing the limit", st)
	}
	if got := up.Requests(nsiptest.EndpointDetails); answered != 4 || limited != 4 || got != 4 {
		t.Errorf("%d answered, %d rate_limited, %d requests to NSIP; want the shared burst: 4, 4, 4", answered, limited, got)
	}
	if h := rp.gw.Health().Shared; h.LocalRateLimit {
		t.Errorf("/healthz shared %+v, want the shared limit, not the local share", h)
	}
}
