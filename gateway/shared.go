package gateway

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

// Replicas of the server share four things through Redis when
// Config.Shared is set: the cache (a second tier behind the in-process one),
// the upstream rate limit, the right to fetch a missing answer (so that
// identical misses on several replicas make one request), and the news that
// the breaker opened. Redis is never a new way to fail: whenever it does not
// answer, each replica goes on alone with its local cache and 1/Replicas of
// the rate limit, and rejoins by itself when Redis is back.

// sharedState is the gateway's side of the shared mode.
type sharedState struct {
	redis      *cache.Redis // nil when not shared
	switching  sync.Mutex   // orders switches of the local limiter
	localShare atomic.Bool  // the local limiter is throttled to rate/Replicas
	openUntil  atomic.Int64 // unix nanos until which another replica's breaker is open
	fit        string       // what shapes this replica's fits, leading its records' keys

	hits      atomic.Int64 // answers loaded from Redis instead of fetched
	collapsed atomic.Int64 // fetches avoided by waiting for another replica's
}

// initShared sets the local limiter to its share: the whole rate while
// Redis keeps the shared limit, rate/Replicas otherwise.
func (g *Gateway) initShared() {
	r := g.cfg.Shared
	g.shared.redis = r
	// A record holds the answer as this replica fitted it, and the token
	// budget is the one setting that shapes a fit (views are fitted per
	// call and never shared): replicas with other budgets keep their own
	// records and fetch locks.
	g.shared.fit = fmt.Sprintf("budget=%d:", g.cfg.Budget)
	local := r == nil || !r.Status().Up
	g.shared.localShare.Store(!local) // so that the first switch applies
	g.useLocalShare(local)
	if r != nil {
		// The current state rather than the one passed: two changes in
		// quick succession may notify out of order.
		r.Watch(func(bool) { g.useLocalShare(!r.Status().Up) })
	}
}

// useLocalShare switches the local limiter between standing in for the
// shared limit (rate/Replicas) and letting the shared limit decide.
func (g *Gateway) useLocalShare(local bool) {
	g.shared.switching.Lock()
	defer g.shared.switching.Unlock()
	if g.shared.localShare.Swap(local) == local {
		return
	}
	if !local {
		g.limiter.SetLimit(rate.Inf)
		return
	}
	n := float64(max(g.cfg.Replicas, 1))
	g.limiter.SetLimit(rate.Limit(g.cfg.RateLimit / n))
	g.limiter.SetBurst(max(1, int(float64(g.cfg.RateBurst)/n)))
}

// localLimit is the rate limit this replica keeps to: its share while it
// stands in for the shared limit, else the configured one (which Redis
// enforces for all replicas together, the local limiter being lifted).
func (g *Gateway) localLimit() (perSecond float64, burst int) {
	if l := g.limiter.Limit(); l != rate.Inf {
		return float64(l), g.limiter.Burst()
	}
	return g.cfg.RateLimit, g.cfg.RateBurst
}

// gcra reserves the next upstream request slot in Redis under the generic
// cell rate algorithm: KEYS[1] holds the theoretical arrival time in
// microseconds of Redis's clock, which all replicas share. ARGV: emission
// interval, burst tolerance and the longest acceptable wait, all in
// microseconds. It answers {1, wait} for a slot taken wait microseconds
// from now, or {0, wait} without taking one when the wait is too long, or
// {2, wait, asked} while KEYS[2] says NSIP asked every replica to leave the
// request's endpoint alone, asked being its Retry-After before the cap
// (the key's value, in microseconds).
var gcra = redis.NewScript(`
local pause = redis.call('PTTL', KEYS[2])
if pause > 0 then return {2, pause * 1000, tonumber(redis.call('GET', KEYS[2])) or 0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local maxwait = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait < 0 then wait = 0 end
if wait > maxwait then return {0, wait} end
local newtat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', newtat), 'PX', math.ceil((newtat - now) / 1000) + 1000)
return {1, wait}
`)

// sharedTurn waits for this request's place under the rate limit all
// replicas share. It returns nil at once when there is no Redis or Redis
// does not answer; the local limiter, then at rate/Replicas, decides.
func (g *Gateway) sharedTurn(ctx context.Context, method string) error {
	r := g.shared.redis
	if r == nil {
		return nil
	}
	interval := time.Duration(float64(time.Second) / g.cfg.RateLimit)
	tolerance := interval * time.Duration(g.cfg.RateBurst-1)
	maxWait := g.cfg.CallTimeout
	if deadline, ok := ctx.Deadline(); ok {
		maxWait = time.Until(deadline)
	}
	var res []int64
	err := r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
		var err error
		res, err = gcra.Run(ctx, c, []string{r.Key("rate"), r.Key("pause:" + method)},
			interval.Microseconds(), tolerance.Microseconds(), maxWait.Microseconds()).Int64Slice()
		if err == nil && (len(res) < 2 || res[0] == 2 && len(res) != 3) {
			err = fmt.Errorf("rate script answered %v", res)
		}
		return err
	})
	if err != nil {
		return nil // the local limiter took over when Redis went down
	}
	wait := time.Duration(res[1]) * time.Microsecond
	switch res[0] {
	case 0:
		return &rateLimitError{retryAfter: wait, reason: fmt.Sprintf("limit of %g requests per second shared by all replicas", g.cfg.RateLimit)}
	case 2:
		// Kept locally too, so that this replica's health shows the pause
		// it keeps to and its next calls are refused without asking Redis.
		g.pauses.Hold(method, time.Now().Add(wait), time.Duration(res[2])*time.Microsecond)
		return &rateLimitError{retryAfter: wait, reason: "NSIP asked us to wait"}
	}
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fromShared returns the answer Redis holds for key, fresh, and keeps it in
// the local tier too. A stale one goes to the local tier only if keepStale,
// where it serves as a fallback should NSIP fail; otherwise it is not even
// decoded. A foreign or damaged one is ignored, and the fetch that follows
// overwrites it.
func (g *Gateway) fromShared(ctx context.Context, key string, keepStale bool) (*answer, bool) {
	r := g.shared.redis
	if r == nil {
		return nil, false
	}
	now := g.cfg.Now()
	b, stored, ok := r.Load(ctx, g.recordKey(key), now)
	if !ok {
		return nil, false
	}
	fresh := now.Sub(stored) <= g.cfg.CacheTTL
	if !fresh && !keepStale {
		return nil, false
	}
	a, err := decodeAnswer(b)
	if err != nil {
		r.Ignored()
		g.log.Debug("ignored a shared cache value", "key", key, "error", err.Error())
		return nil, false
	}
	a.id = g.answerIDs.Add(1)
	g.cache.SetAt(key, a, a.size(key), a.res.OriginalTokens, stored)
	if !fresh {
		return nil, false
	}
	a.shared = true
	g.shared.hits.Add(1)
	return a, true
}

// toShared stores a fetched answer in Redis for the other replicas, for as
// long as the local tier would keep it, stale window included.
func (g *Gateway) toShared(ctx context.Context, key string, a *answer) {
	r := g.shared.redis
	if r == nil {
		return
	}
	b, err := encodeAnswer(a)
	if err != nil {
		g.log.Warn("answer not shared: it does not encode", "key", key, "error", err.Error())
		return
	}
	r.Store(ctx, g.recordKey(key), b, g.cfg.Now(), g.cfg.CacheTTL+g.cfg.StaleTTL)
}

// recordKey is where this replica's fit of the answer cached under key
// lives in Redis.
func (g *Gateway) recordKey(key string) string { return g.shared.fit + key }

// unlockScript deletes the collapse lock only if this fetch still holds it.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// collapse makes one replica fetch key while the others wait for its
// answer to appear in Redis. It returns (release, nil) to the fetcher, who
// must call release once the answer is stored or the fetch has failed; or
// (nil, answer) to a waiter whose answer arrived. A waiter whose fetcher
// failed, or that waited CollapseWait, fetches for itself, as does
// everyone while Redis does not answer.
func (g *Gateway) collapse(ctx context.Context, key string) (release func(), a *answer) {
	r := g.shared.redis
	noop := func() {}
	if r == nil {
		return noop, nil
	}
	lock := r.Key("lock:" + g.recordKey(key))
	token := rand.Text()
	take := func() (bool, error) {
		var got bool
		err := r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
			var err error
			got, err = c.SetNX(ctx, lock, token, g.cfg.CallTimeout).Result()
			return err
		})
		return got, err
	}
	unlock := func() {
		// On its own deadline: the fetch's may be spent.
		ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
		defer cancel()
		_ = r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
			return unlockScript.Run(ctx, c, []string{lock}, token).Err()
		})
	}
	got, err := take()
	if err != nil {
		return noop, nil
	}
	if got {
		return unlock, nil
	}
	wait := time.NewTimer(g.cfg.CollapseWait)
	defer wait.Stop()
	poll := 5 * time.Millisecond
	for {
		tick := time.NewTimer(poll)
		select {
		case <-tick.C:
		case <-wait.C:
			tick.Stop()
			return noop, nil
		case <-ctx.Done():
			tick.Stop()
			return noop, nil
		}
		// Only one call per replica polls (the others wait on it through
		// singleflight), so polling often costs little and keeps a waiter
		// within a few milliseconds of the fetcher.
		poll = min(poll+poll/4, 25*time.Millisecond)
		// A stale record was taken in before the wait began.
		if a, ok := g.fromShared(ctx, key, false); ok {
			g.shared.collapsed.Add(1)
			return nil, a
		}
		// No answer yet: is anyone still fetching? If not, the fetcher
		// failed or gave up, and this replica tries, holding the lock itself.
		got, err := take()
		switch {
		case err != nil:
			return noop, nil
		case got:
			return unlock, nil
		}
	}
}

// shareThrottle asks every replica to leave method alone for wait, as NSIP
// asked this one to (a 429's Retry-After asked, capped to wait): each one's
// sharedTurn for that endpoint refuses until then.
func (g *Gateway) shareThrottle(method string, wait, asked time.Duration) {
	r := g.shared.redis
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
	defer cancel()
	_ = r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, r.Key("pause:"+method), asked.Microseconds(), wait).Err()
	})
}

// sharedBreakerOpen reports whether another replica found NSIP down and
// opened its breaker recently enough that this one should not ask either.
func (g *Gateway) sharedBreakerOpen(ctx context.Context) bool {
	r := g.shared.redis
	if r == nil {
		return false
	}
	var ttl time.Duration
	err := r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
		var err error
		ttl, err = c.PTTL(ctx, r.Key("breaker")).Result()
		return err
	})
	if err != nil || ttl <= 0 {
		return false
	}
	g.shared.openUntil.Store(time.Now().Add(ttl).UnixNano())
	return true
}

// shareBreaker tells the other replicas that this one's breaker opened (for
// the cooldown) or closed again. It runs from the breaker's state change
// callback, so it does not wait for Redis.
func (g *Gateway) shareBreaker(open bool) {
	r := g.shared.redis
	if r == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
		defer cancel()
		_ = r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
			if open {
				return c.Set(ctx, r.Key("breaker"), "open", g.cfg.BreakerCooldown).Err()
			}
			return c.Del(ctx, r.Key("breaker")).Err()
		})
	}()
}

// sharedRetryIn is how long another replica's open breaker still holds.
func (g *Gateway) sharedRetryIn() time.Duration {
	return max(time.Until(time.Unix(0, g.shared.openUntil.Load())), 0)
}

// DegradedError is what Ready returns when the server answers calls but
// without the replicas' shared state. Degraded reports true, which tells
// the transport to answer /readyz with 200 and status "degraded": the
// replica is still worth sending traffic to.
type DegradedError struct{ Reason string }

func (e *DegradedError) Error() string { return e.Reason }

// Degraded reports that the server still serves.
func (e *DegradedError) Degraded() bool { return true }

// sharedReadiness asks Redis, if the gateway uses one, whether it is there,
// and says why the replica is degraded if not.
func (g *Gateway) sharedReadiness(ctx context.Context) error {
	r := g.shared.redis
	if r == nil {
		return nil
	}
	if !r.Status().Up {
		_ = r.Ping(ctx)
	}
	if st := r.Status(); !st.Up {
		return &DegradedError{Reason: fmt.Sprintf("redis unavailable (%s): cache, rate limit and breaker are local to this replica", st.Reason)}
	}
	return nil
}

// SharedHealth is the shared mode's state in Health.
type SharedHealth struct {
	Redis             cache.RedisStatus `json:"redis"`
	Replicas          int               `json:"replicas"`
	LocalRateLimit    bool              `json:"local_rate_limit"` // the local limiter stands in at rate/replicas
	Hits              int64             `json:"hits"`             // answers loaded from Redis
	CollapsedFetches  int64             `json:"collapsed_fetches"`
	BreakerOpenRemote int               `json:"breaker_open_elsewhere_seconds,omitempty"`
}

func (g *Gateway) sharedHealth() *SharedHealth {
	r := g.shared.redis
	if r == nil {
		return nil
	}
	h := &SharedHealth{
		Redis: r.Status(), Replicas: max(g.cfg.Replicas, 1), LocalRateLimit: g.shared.localShare.Load(),
		Hits: g.shared.hits.Load(), CollapsedFetches: g.shared.collapsed.Load(),
	}
	if d := g.sharedRetryIn(); d > 0 {
		h.BreakerOpenRemote = upstream.Seconds(d)
	}
	return h
}
