//go:build e2e

package upstream

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// replicaSecret is what the replicas in these tests share.
var replicaSecret = []byte("replicas-shared-secret-0123456789abcdef")

// replicas are n pools in front of one stand-in, sharing the Redis at
// url as separate server processes would: each with its own cache,
// limiter, breaker and Redis connection. Redis commands get thirty
// seconds, so that a loaded machine does not make a replica carry on
// alone in a test about sharing.
func replicas(t *testing.T, n int, url string, cfg Config) ([]*rig, *nsiptest.Server) {
	t.Helper()
	up := standIn(t)
	rs := make([]*rig, n)
	for i := range rs {
		rs[i] = replicaOf(t, up, url, n, cfg)
	}
	return rs, up
}

// replicaOf is one replica of n in front of up, sharing the Redis at url.
func replicaOf(t *testing.T, up *nsiptest.Server, url string, n int, cfg Config) *rig {
	t.Helper()
	rd, err := cache.NewRedis(cache.RedisConfig{URL: url, Secret: replicaSecret, RetryEvery: 20 * time.Millisecond,
		OpTimeout: 30 * time.Second, SlowAfter: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rd.Close() })
	cfg.Shared, cfg.Replicas = rd, n
	return newRig(t, up, 1, cfg)
}

// do runs op on rd's connection, failing t on an error.
func do(t *testing.T, rd *cache.Redis, op func(ctx context.Context, c *redis.Client) error) {
	t.Helper()
	if err := rd.Do(context.Background(), op); err != nil {
		t.Fatal(err)
	}
}

// exists reports whether Redis holds key.
func exists(t *testing.T, rd *cache.Redis, key string) bool {
	var n int64
	do(t, rd, func(ctx context.Context, c *redis.Client) error {
		var err error
		n, err = c.Exists(ctx, key).Result()
		return err
	})
	return n == 1
}

// A miss on one replica is a hit from Redis on another, then a local hit
// there: NSIP is asked once.
func TestSharedMissIsAnotherReplicasHit(t *testing.T) {
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{})
	id := up.Data().MostProgeny()
	ctx := context.Background()
	a, src, err := rs[0].obtain(ctx, id)
	if err != nil || src != SourceMiss {
		t.Fatalf("A: %q, %v", src, err)
	}
	b, src, err := rs[1].obtain(ctx, id)
	if err != nil || src != SourceShared || !b.Shared || lpnOf(t, b) != id || string(b.Raw) != string(a.Raw) || b.Res != a.Res {
		t.Fatalf("B: from %q, err %v; want A's answer from Redis", src, err)
	}
	if _, src, _ := rs[1].obtain(ctx, id); src != SourceHit {
		t.Errorf("B again: from %q; want its local tier", src)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 || rs[1].fits.Load() != 0 {
		t.Errorf("NSIP saw %d requests and B fitted %d answers; want 1 and 0", got, rs[1].fits.Load())
	}
	s := rs[1].pool.Shared()
	h := s.Health()
	if h == nil || h.Hits != 1 || h.Replicas != 2 || h.LocalRateLimit || !h.Redis.Up || h.BreakerOpenRemote != 0 {
		t.Errorf("B's shared health %+v; want one hit of two replicas, Redis up, the shared limit", h)
	}
	if s.Redis() == nil || s.Readiness(ctx) != nil {
		t.Errorf("B's readiness with Redis up: %v", s.Readiness(ctx))
	}
	if ps, burst := rs[1].pool.LocalLimit(); ps != 1000 || burst != 1000 {
		t.Errorf("B keeps %g/%d locally; want the configured limit, which Redis enforces", ps, burst)
	}
	if !strings.HasPrefix(s.RecordKey("k"), "budget=0:") {
		t.Errorf("record key %q does not lead with the fit", s.RecordKey("k"))
	}
}

// Replicas missing one key together make one request: the one that
// holds the right to fetch asks NSIP, the other waits for its record.
func TestSharedConcurrentMissesMakeOneRequest(t *testing.T) {
	rs, _ := replicas(t, 2, redistest.Start(t).URL(), Config{})
	b := &blocked{release: make(chan struct{})}
	type got struct {
		a   *Answer
		src string
		err error
	}
	ch := make(chan got, 2)
	obtain := func(r *rig) {
		a, src, err := r.pool.Obtain(context.Background(), "k", func() Request { return b.request("k", "c") })
		ch <- got{a, src, err}
	}
	go obtain(rs[0])
	waitFor(t, "A's fetch to hold the right to fetch", func() bool { return b.sent.Load() == 1 })
	go obtain(rs[1])
	waitFor(t, "B to wait for the key", func() bool { return rs[1].pool.Waiting("k") == 1 })
	close(b.release)
	srcs := map[string]int{}
	for range 2 {
		g := <-ch
		if g.err != nil {
			t.Fatal(g.err)
		}
		srcs[g.src]++
	}
	if b.sent.Load() != 1 || srcs[SourceMiss] != 1 || srcs[SourceShared] != 1 {
		t.Errorf("%d requests, sources %v; want one miss and one shared answer", b.sent.Load(), srcs)
	}
}

// The rate limit holds for all replicas together. The third request's
// slot is 100 s off, past its minute's deadline, so it is refused at once;
// the minute is for the two within the burst, which a loaded machine can
// take seconds over.
func TestSharedRateLimitHoldsAcrossReplicas(t *testing.T) {
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{RateLimit: 0.01, RateBurst: 2, CallTimeout: time.Minute})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	for i := range 2 {
		if _, _, err := rs[i].obtain(ctx, ids[i]); err != nil {
			t.Fatalf("replica %d within the burst: %v", i, err)
		}
	}
	var rl *RateLimited
	if _, _, err := rs[0].obtain(ctx, ids[2]); !errors.As(err, &rl) || rl.Reason != "limit of 0.01 requests per second shared by all replicas" {
		t.Fatalf("third request of the shared burst of two: %v; want the shared limit's refusal", err)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 2 {
		t.Errorf("NSIP saw %d requests; want 2", got)
	}
}

// One replica's open breaker keeps the others from NSIP for what is left
// of its cooldown.
func TestSharedBreakerSparesOtherReplicas(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := replicas(t, 2, rd.URL(), Config{BreakerFailures: 1, BreakerCooldown: time.Minute})
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 1})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	if _, _, err := rs[0].obtain(ctx, ids[0]); err == nil {
		t.Fatal("A's read through a 503 succeeded")
	}
	shared := rs[0].pool.Shared().Redis()
	waitFor(t, "A's breaker news in Redis", func() bool { return exists(t, shared, shared.Key("breaker")) })
	if _, _, err := rs[1].obtain(ctx, ids[1]); !errors.Is(err, ErrBreakerOpen) {
		t.Fatalf("B while A's breaker is open: %v; want the open breaker", err)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 {
		t.Errorf("NSIP saw %d requests; want only A's", got)
	}
	if left := rs[1].pool.RetryIn(); left <= 50*time.Second || left > time.Minute {
		t.Errorf("B retries in %v; want what is left of A's minute", left)
	}
	if h := rs[1].pool.Shared().Health(); h.BreakerOpenRemote < 50 || h.BreakerOpenRemote > 60 {
		t.Errorf("B's health: breaker open elsewhere for %d s; want about 60", h.BreakerOpenRemote)
	}
	if st, _ := rs[1].pool.Breaker(); st != "closed" {
		t.Errorf("B's own breaker is %s; want closed", st)
	}
}

// A 429's pause, capped, holds back its endpoint on every replica, each
// of which shows it in its health.
func TestSharedRetryAfterPausesEveryReplica(t *testing.T) {
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{})
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 40 * time.Second, Times: 1})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	if _, _, err := rs[0].obtain(ctx, ids[0]); !errors.Is(err, nsip.ErrRateLimited) {
		t.Fatalf("A through a 429: %v", err)
	}
	var rl *RateLimited
	if _, _, err := rs[1].obtain(ctx, ids[1]); !errors.As(err, &rl) || rl.RetryAfter <= 30*time.Second || rl.RetryAfter > 40*time.Second {
		t.Fatalf("B during A's pause: %v; want rate_limited for what is left of 40 s", err)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 {
		t.Errorf("NSIP saw %d requests; want A's one", got)
	}
	for i, r := range rs {
		ps := r.pool.Pauses(time.Now())
		if len(ps) != 1 || ps[0].Method != methodDetails || ps[0].AskedSeconds != 40 || ps[0].RetryInSeconds < 30 {
			t.Errorf("replica %d pauses %+v; want details, asked 40 s", i, ps)
		}
	}
}

// A record past its time is taken into the local tier on a miss, where it
// serves as the stale fallback when NSIP then fails.
func TestSharedStaleRecordIsTheFallback(t *testing.T) {
	clk := cachetest.NewClock()
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{Now: clk.Now})
	id := up.Data().MostProgeny()
	ctx := context.Background()
	a, _, err := rs[0].obtain(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour) // past the hour's TTL, inside the stale window
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	if _, _, err := rs[1].obtain(ctx, id); !errors.Is(err, nsip.ErrUpstream) {
		t.Fatalf("B with NSIP failing: %v; want NSIP's failure", err)
	}
	e, ok := rs[1].pool.cfg.Cache.Stale(methodDetails + ":" + id)
	if !ok || string(e.Value.(*Answer).Raw) != string(a.Raw) || !e.Stored.Equal(clk.Now().Add(-2*time.Hour)) {
		t.Fatalf("B's stale entry: %v; want A's answer stored two hours ago", ok)
	}
	if got := rs[1].pool.Answers(); got != 1 {
		t.Errorf("B took in %d answers; want the stale record once", got)
	}
}

// Values in Redis that no replica wrote (no valid MAC) are not believed:
// a record, a ten-hour pause, breaker news, a rate state far ahead. The
// replica fetches as if they were not there, overwrites the record, and
// says degraded naming what it refused.
func TestSharedForgedValuesAreNotBelieved(t *testing.T) {
	rs, up := replicas(t, 1, redistest.Start(t).URL(), Config{})
	r := rs[0]
	rd := r.pool.Shared().Redis()
	id := up.Data().MostProgeny()
	key := methodDetails + ":" + id
	ctx := context.Background()
	do(t, rd, func(ctx context.Context, c *redis.Client) error {
		if err := c.Set(ctx, rd.RecordKey(r.pool.Shared().RecordKey(key)), `{"lpnId":"forged"}`, time.Hour).Err(); err != nil {
			return err
		}
		if err := c.Set(ctx, rd.Key("pause:"+methodDetails), "36000000000 36000000000", 10*time.Hour).Err(); err != nil {
			return err
		}
		return c.Set(ctx, rd.Key("rate"), "99999999999999999999", time.Hour).Err()
	})
	a, src, err := r.obtain(ctx, id)
	if err != nil || src != SourceMiss || lpnOf(t, a) != id {
		t.Fatalf("read with forged values in Redis: %q, %v; want NSIP's answer", src, err)
	}
	if len(r.pool.Pauses(time.Now())) != 0 {
		t.Errorf("the forged pause was kept: %+v", r.pool.Pauses(time.Now()))
	}
	var de *DegradedError
	err = r.pool.Shared().Readiness(ctx)
	if !errors.As(err, &de) || !de.Degraded() || !strings.Contains(de.Error(), "redis holds values this replica does not believe") ||
		!strings.Contains(de.Error(), "pause:"+methodDetails) || !strings.Contains(de.Error(), "rate") {
		t.Errorf("readiness %v; want degraded naming the pause and the rate state", err)
	}
	if st := rd.Status(); st.UnauthenticatedValues < 2 || st.OutOfBoundValues < 1 {
		t.Errorf("Redis status %+v; want the forged record and pause unauthenticated, the rate state out of bound", st)
	}
	// The record was overwritten with the replica's own.
	if rec, _, ok := rd.Load(ctx, r.pool.Shared().RecordKey(key), time.Now()); !ok || len(rec) == 0 {
		t.Error("the forged record was not replaced")
	}

	// Breaker news without a MAC keeps no replica from NSIP.
	do(t, rd, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, rd.Key("breaker"), "open 36000000000", 10*time.Hour).Err()
	})
	before := up.Requests(nsiptest.EndpointDetails)
	if _, src, err := r.obtain(ctx, up.Data().AnimalIDs()[3]); err != nil || src != SourceMiss {
		t.Fatalf("read with forged breaker news: %q, %v", src, err)
	}
	if up.Requests(nsiptest.EndpointDetails) != before+1 || r.pool.RetryIn() != 0 {
		t.Errorf("forged breaker news held the replica for %v", r.pool.RetryIn())
	}
}

// Genuine control values past this replica's own bounds are held to
// them: a pause sealed for an hour holds for MaxUpstreamPause, breaker
// news of an hour for this replica's cooldown.
func TestSharedControlValuesHeldToLocalBounds(t *testing.T) {
	rs, up := replicas(t, 1, redistest.Start(t).URL(), Config{MaxUpstreamPause: 20 * time.Second, BreakerCooldown: 30 * time.Second})
	r := rs[0]
	rd := r.pool.Shared().Redis()
	ctx := context.Background()
	now := time.Now()
	pkey := rd.Key("pause:" + methodDetails)
	do(t, rd, func(ctx context.Context, c *redis.Client) error {
		v := rd.SealAt(pkey, fmt.Appendf(nil, "%d %d", time.Hour.Microseconds(), time.Hour.Microseconds()), now)
		return c.Set(ctx, pkey, v, time.Hour).Err()
	})
	var rl *RateLimited
	if _, _, err := r.obtain(ctx, up.Data().AnimalIDs()[0]); !errors.As(err, &rl) || rl.RetryAfter > 20*time.Second || rl.RetryAfter < 10*time.Second {
		t.Fatalf("read under an hour's sealed pause: %v; want rate_limited for at most the local 20 s", err)
	}
	if ps := r.pool.Pauses(time.Now()); len(ps) != 1 || ps[0].AskedSeconds != 3600 || ps[0].RetryInSeconds > 20 {
		t.Errorf("pauses %+v; want the hour asked, at most 20 s kept", ps)
	}
	do(t, rd, func(ctx context.Context, c *redis.Client) error { return c.Del(ctx, pkey).Err() })
	r.pool.pauses = Pauses{} // the local copy of the pause, gone with the key

	bkey := rd.Key("breaker")
	do(t, rd, func(ctx context.Context, c *redis.Client) error {
		v := rd.SealAt(bkey, fmt.Appendf(nil, "open %d", time.Hour.Microseconds()), now)
		return c.Set(ctx, bkey, v, time.Hour).Err()
	})
	if _, _, err := r.obtain(ctx, up.Data().AnimalIDs()[1]); !errors.Is(err, ErrBreakerOpen) {
		t.Fatalf("read under an hour's sealed breaker news: %v", err)
	}
	if left := r.pool.RetryIn(); left > 30*time.Second || left < 20*time.Second {
		t.Errorf("held for %v; want at most the local 30 s cooldown", left)
	}
	if got := up.TotalRequests(); got != 0 {
		t.Errorf("NSIP saw %d requests; want none", got)
	}
}

// Without Redis every replica goes on alone: it fetches for itself, keeps
// its share of the rate limit, and says degraded; back, it shares again.
func TestSharedRedisAwayIsLocalAndDegraded(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := replicas(t, 2, rd.URL(), Config{RateLimit: 10, RateBurst: 4})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	rd.Stop()
	for i := range 2 {
		if _, src, err := rs[0].obtain(ctx, ids[i]); err != nil || src != SourceMiss {
			t.Fatalf("read %d with Redis stopped: %q, %v; want NSIP's answer", i, src, err)
		}
	}
	s := rs[0].pool.Shared()
	var de *DegradedError
	if err := s.Readiness(ctx); !errors.As(err, &de) || !strings.HasPrefix(de.Reason, "redis unavailable") ||
		!strings.Contains(de.Reason, "cache, rate limit and breaker are local to this replica") {
		t.Errorf("readiness with Redis stopped: %v; want degraded, unavailable, local", err)
	}
	if ps, burst := rs[0].pool.LocalLimit(); ps != 5 || burst != 2 {
		t.Errorf("local limit %g/%d with Redis away; want this replica's share 5/2", ps, burst)
	}
	if h := s.Health(); h.Redis.Up || !h.LocalRateLimit {
		t.Errorf("health %+v; want Redis down and the local share", h)
	}
	rd.Restart()
	waitFor(t, "Redis to be back", func() bool { return s.Readiness(ctx) == nil })
	if ps, _ := rs[0].pool.LocalLimit(); ps != 10 {
		t.Errorf("local limit %g with Redis back; want the configured 10", ps)
	}
}

// A replica waiting for another's fetch while Redis holds only a stale
// answer takes that answer into its local tier once, not on every poll,
// and fetches for itself when the wait ends without a fresh record.
func TestSharedWaiterLoadsAStaleRecordOnce(t *testing.T) {
	clk := cachetest.NewClock()
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{Now: clk.Now, CollapseWait: 300 * time.Millisecond})
	id := up.Data().MostProgeny()
	ctx := context.Background()
	if _, _, err := rs[0].obtain(ctx, id); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Hour) // past the hour's TTL, inside the stale window
	// A fetch of the same key under way elsewhere, which never stores.
	rd := rs[1].pool.Shared().Redis()
	do(t, rd, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, rd.Key("lock:"+rs[1].pool.Shared().RecordKey(methodDetails+":"+id)), "elsewhere", time.Minute).Err()
	})
	_, src, err := rs[1].obtain(ctx, id)
	if err != nil || src != SourceMiss {
		t.Fatalf("B: %q, %v; want its own fetch after the wait", src, err)
	}
	if got := rs[1].pool.Answers(); got != 2 {
		t.Errorf("B took in %d answers; want 2: the stale record once and its own fetch", got)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 2 {
		t.Errorf("NSIP saw %d requests; want A's and B's", got)
	}
}

// Under the shared limit a request within the burst goes at once and the
// next waits for its slot, within its deadline, rather than being
// refused.
func TestSharedLimitWaitsForASlot(t *testing.T) {
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{RateLimit: 20, RateBurst: 1, CallTimeout: 10 * time.Second})
	ids := up.Data().AnimalIDs()
	for i := range 4 {
		if _, _, err := rs[i%2].obtain(context.Background(), ids[i]); err != nil {
			t.Fatalf("request %d at 20 a second: %v", i, err)
		}
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 4 || rs[0].pool.Tokens()+rs[1].pool.Tokens() != 4 {
		t.Errorf("NSIP saw %d requests for %d tokens; want 4 and 4", got, rs[0].pool.Tokens()+rs[1].pool.Tokens())
	}
}

// Control values sealed by a replica but unreadable, or kept past the
// time their writer gave them, hold no one: the replica asks NSIP and
// reports each value it refused.
func TestSharedStaleOrUnreadableControlValuesAreRefused(t *testing.T) {
	rs, up := replicas(t, 1, redistest.Start(t).URL(), Config{})
	r := rs[0]
	rd := r.pool.Shared().Redis()
	ctx := context.Background()
	pkey, bkey := rd.Key("pause:"+methodDetails), rd.Key("breaker")
	longAgo := time.Now().Add(-2 * time.Hour)
	for i, c := range []struct {
		key   string
		value []byte
		at    time.Time
		why   string
	}{
		{pkey, []byte("soon"), time.Now(), "a pause that does not read as one"},
		{pkey, fmt.Appendf(nil, "%d %d", time.Hour.Microseconds(), time.Hour.Microseconds()), longAgo, "a pause whose time has passed"},
		{bkey, []byte("closed"), time.Now(), "breaker news that does not read as such"},
		{bkey, fmt.Appendf(nil, "open %d", time.Hour.Microseconds()), longAgo, "breaker news whose cooldown has passed"},
	} {
		do(t, rd, func(ctx context.Context, rc *redis.Client) error {
			if err := rc.Del(ctx, pkey, bkey).Err(); err != nil {
				return err
			}
			return rc.Set(ctx, c.key, rd.SealAt(c.key, c.value, c.at), time.Hour).Err()
		})
		if _, src, err := r.obtain(ctx, up.Data().AnimalIDs()[i]); err != nil || src != SourceMiss {
			t.Fatalf("%s: read %q, %v; want NSIP asked", c.why, src, err)
		}
		if refused := strings.Join(rd.Status().Refused, "; "); !strings.Contains(refused, c.why) {
			t.Errorf("refused %q; want it to say %q", refused, c.why)
		}
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 4 || len(r.pool.Pauses(time.Now())) != 0 || r.pool.RetryIn() != 0 {
		t.Errorf("NSIP saw %d requests, pauses %v, retry in %v; want 4 and nothing held", got, r.pool.Pauses(time.Now()), r.pool.RetryIn())
	}
}

// A replica whose clock runs a year ahead stamps its records a year in the
// future. Served as they are, such a record would look fresh to every
// replica until Redis dropped it, past any TTL. It is refused instead,
// and counted, and the other replica fetches for itself.
func TestSharedFutureStoreTimeDoesNotPin(t *testing.T) {
	rd := redistest.Start(t)
	up := standIn(t)
	ahead := func() time.Time { return time.Now().Add(365 * 24 * time.Hour) }
	a := replicaOf(t, up, rd.URL(), 2, Config{Now: ahead})
	b := replicaOf(t, up, rd.URL(), 2, Config{})
	id := up.Data().MostProgeny()
	ctx := context.Background()
	if _, _, err := a.obtain(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, src, err := b.obtain(ctx, id); err != nil || src != SourceMiss {
		t.Fatalf("B with A's record a year ahead: %q, %v; want its own fetch", src, err)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 2 {
		t.Errorf("NSIP saw %d requests; want 2", got)
	}
	if st := b.pool.Shared().Redis().Status(); st.FutureValues != 1 || st.IgnoredValues != 1 {
		t.Errorf("B's Redis status %+v; want one future value, ignored", st)
	}
}

// A replica with another token budget does not serve this one's fit: it
// fetches and fits for itself, and a third replica with its budget shares
// its record.
func TestSharedReplicasWithOtherBudgetsFitForThemselves(t *testing.T) {
	rd := redistest.Start(t)
	up := standIn(t)
	var rs []*rig
	for _, budget := range []int{8000, 1000, 1000} {
		rs = append(rs, replicaOf(t, up, rd.URL(), 3, Config{Budget: budget}))
	}
	id := up.Data().MostProgeny()
	ctx := context.Background()
	want := []string{SourceMiss, SourceMiss, SourceShared}
	for i, r := range rs {
		if _, src, err := r.obtain(ctx, id); err != nil || src != want[i] {
			t.Errorf("replica %d (budget %d): %q, %v; want %s", i, r.pool.cfg.Budget, src, err, want[i])
		}
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 2 {
		t.Errorf("NSIP saw %d requests; want one per budget", got)
	}
	if a, b := rs[0].pool.Shared().RecordKey("k"), rs[1].pool.Shared().RecordKey("k"); a == b {
		t.Errorf("replicas of budgets 8000 and 1000 share the record key %q", a)
	}
}

// Someone who can write to Redis but does not hold the replicas' secret
// replaces a genuine record's sire and writes it back, well formed but
// sealed with a secret of their own. The replica that reads it fetches
// the animal instead and counts the value it refused.
func TestSharedForgedRecordIsNotServed(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := replicas(t, 2, rd.URL(), Config{})
	attacker, err := cache.NewRedis(cache.RedisConfig{URL: rd.URL(), Secret: []byte("not-the-replicas-secret-0123456789"),
		OpTimeout: 30 * time.Second, SlowAfter: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	ctx := context.Background()
	var id, sire string
	for _, x := range up.Data().AnimalIDs() {
		if an, _ := up.Data().Animal(x); an.Sire != "" {
			id, sire = an.LPNID, an.Sire
			break
		}
	}
	a, _, err := rs[0].obtain(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	const forgedSire = "6400462099FRG001"
	forged := Answer{ID: a.ID, Raw: a.Raw, Res: a.Res, Structured: a.Structured, Shared: a.Shared, Drift: a.Drift}
	d := *a.Value.(*nsip.AnimalDetails)
	d.Sire = forgedSire
	forged.Value = &d
	record, err := rigCodec.Encode(&forged)
	if err != nil {
		t.Fatal(err)
	}
	attacker.Store(ctx, rs[1].pool.Shared().RecordKey(methodDetails+":"+id), record, time.Now(), time.Hour)

	b, src, err := rs[1].obtain(ctx, id)
	if err != nil || src != SourceMiss || b.Value.(*nsip.AnimalDetails).Sire != sire {
		t.Fatalf("B: %q, %v; want its own fetch naming the sire %s", src, err, sire)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 2 {
		t.Errorf("NSIP saw %d requests; want 2, the forged record ignored", got)
	}
	if st := rs[1].pool.Shared().Redis().Status(); st.UnauthenticatedValues != 1 {
		t.Errorf("B's Redis status %+v; want one unauthenticated value", st)
	}

	// The frame records had before they carried a MAC, checksummed and
	// stamped now, is no record either.
	var h [12]byte
	binary.BigEndian.PutUint64(h[:8], uint64(time.Now().UnixNano()))
	binary.BigEndian.PutUint32(h[8:], crc32.ChecksumIEEE(record))
	rd3 := rs[0].pool.Shared().Redis()
	other := up.Data().AnimalIDs()[0]
	if other == id {
		other = up.Data().AnimalIDs()[1]
	}
	do(t, rd3, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, rd3.RecordKey(rs[0].pool.Shared().RecordKey(methodDetails+":"+other)), append([]byte("nsc1"+string(h[:])), record...), time.Hour).Err()
	})
	if _, src, err := rs[0].obtain(ctx, other); err != nil || src != SourceMiss {
		t.Errorf("A with an unsealed frame in Redis: %q, %v; want its own fetch", src, err)
	}
	if st := rd3.Status(); st.UnauthenticatedValues != 1 {
		t.Errorf("A's Redis status %+v; want one unauthenticated value", st)
	}
}

// roundTrips counts the commands and pipelines a go-redis client sends,
// each one round trip to Redis.
type roundTrips struct{ n atomic.Int64 }

func (c *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// A miss makes three round trips to Redis: one for the record, the
// breaker news and the collapse lock together, one for the rate-limit
// token, one to store the answer and release the lock. An answer another
// replica stored takes one.
func TestSharedMissRoundTrips(t *testing.T) {
	rs, up := replicas(t, 2, redistest.Start(t).URL(), Config{})
	var ca, cb roundTrips
	rs[0].pool.Shared().Redis().AddHook(&ca)
	rs[1].pool.Shared().Redis().AddHook(&cb)
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	// Redis learns the scripts on their first use (one more round trip).
	for i := range 2 {
		if _, _, err := rs[i].obtain(ctx, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	before := ca.n.Load()
	if _, _, err := rs[0].obtain(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	if got := ca.n.Load() - before; got != 3 {
		t.Errorf("a miss made %d round trips to Redis; want 3", got)
	}
	before = cb.n.Load()
	if _, src, err := rs[1].obtain(ctx, ids[2]); err != nil || src != SourceShared {
		t.Fatalf("B: %q, %v; want A's answer from Redis", src, err)
	}
	if got := cb.n.Load() - before; got != 1 {
		t.Errorf("an answer found in Redis took %d round trips; want 1", got)
	}
}
