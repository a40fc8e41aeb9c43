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

// claimScript is one round trip of a miss: the record (KEYS[1]) if there
// is one and ARGV[3] is not "skip"; else whether another replica's breaker
// is open (KEYS[3], its milliseconds left); else the collapse lock (KEYS[2])
// taken for ARGV[1] for ARGV[2] milliseconds if it is free. It answers
// {record or false, 1 if KEYS[1] held another type, breaker ms, 1 if the
// lock was taken}.
var claimScript = redis.NewScript(`
local v = false
local wrong = 0
if ARGV[3] ~= 'skip' then
  v = redis.pcall('GET', KEYS[1])
  if type(v) == 'table' and v.err then v = false; wrong = 1 end
  if v then return {v, wrong, 0, 0} end
end
local b = redis.call('PTTL', KEYS[3])
if b > 0 then return {false, wrong, b, 0} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {false, wrong, 0, 1} end
return {false, wrong, 0, 0}
`)

// claimed is what claimScript found.
type claimed struct {
	record      []byte // nil when there was none, or it was skipped
	breakerLeft time.Duration
	locked      bool
}

// claim runs claimScript for key; ok is false when Redis did not answer.
func (g *Gateway) claim(ctx context.Context, key, token string, skipRecord bool) (c claimed, ok bool) {
	r := g.shared.redis
	skip := ""
	if skipRecord {
		skip = "skip"
	}
	rkey := g.recordKey(key)
	var res []any
	err := r.Write(ctx, func(ctx context.Context, rc *redis.Client) error {
		var err error
		res, err = claimScript.Run(ctx, rc, []string{r.RecordKey(rkey), r.Key("lock:" + rkey), r.Key("breaker")},
			token, g.cfg.CallTimeout.Milliseconds(), skip).Slice()
		if err == nil && len(res) != 4 {
			err = fmt.Errorf("claim script answered %v", res)
		}
		return err
	})
	if err != nil {
		return claimed{}, false
	}
	if s, isStr := res[0].(string); isStr {
		c.record = []byte(s)
	}
	if n, _ := res[1].(int64); n == 1 {
		r.Ignored() // something else lives there; the store replaces it
	}
	if n, _ := res[2].(int64); n > 0 {
		c.breakerLeft = time.Duration(n) * time.Millisecond
	}
	n, _ := res[3].(int64)
	c.locked = n == 1
	return c, true
}

// takeIn decodes a record read for key and keeps it in the local tier. It
// returns the answer if the record is fresh; a stale one goes to the local
// tier only if keepStale, where it serves as a fallback should NSIP fail,
// and otherwise is not even decoded. A foreign or damaged one is ignored,
// and the fetch that follows overwrites it.
func (g *Gateway) takeIn(key string, record []byte, keepStale bool) (*answer, bool) {
	r := g.shared.redis
	now := g.cfg.Now()
	b, stored, ok := r.Open(g.recordKey(key), record, now)
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
	a.keepStructured()
	g.cache.SetAt(key, a, a.size(key), a.res.OriginalTokens, stored)
	if !fresh {
		return nil, false
	}
	a.shared = true
	g.shared.hits.Add(1)
	return a, true
}

// storeScript stores a fetched answer (KEYS[1], ARGV[1] for ARGV[2]
// milliseconds) and releases the collapse lock (KEYS[2]) if this fetch,
// ARGV[3], still holds it: the end of a miss in one round trip.
var storeScript = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1
`)

// toShared stores a fetched answer in Redis for the other replicas, for as
// long as the local tier would keep it, stale window included, and
// releases the collapse lock held with token, if any, in the same round
// trip. It reports whether Redis took it; if not, the caller's unlock
// still runs.
func (g *Gateway) toShared(ctx context.Context, key, token string, a *answer) bool {
	r := g.shared.redis
	if r == nil {
		return false
	}
	b, err := encodeAnswer(a)
	if err != nil {
		g.log.Warn("answer not shared: it does not encode", "key", key, "error", err.Error())
		return false
	}
	rkey := g.recordKey(key)
	ttl := g.cfg.CacheTTL + g.cfg.StaleTTL
	record := r.Seal(rkey, b, g.cfg.Now())
	err = r.Write(ctx, func(ctx context.Context, rc *redis.Client) error {
		return storeScript.Run(ctx, rc, []string{r.RecordKey(rkey), r.Key("lock:" + rkey)},
			record, ttl.Milliseconds(), token).Err()
	})
	return err == nil
}

// recordKey is where this replica's fit of the answer cached under key
// lives in Redis.
func (g *Gateway) recordKey(key string) string { return g.shared.fit + key }

// unlockScript deletes the collapse lock only if this fetch still holds it.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// lease is a fetch's hold on the right to fetch its key for every replica.
type lease struct {
	token string // "" when not held (no Redis, or Redis did not answer)
	done  bool   // released, by the store or by unlock
}

// claimFetch is the shared part of a miss, in one round trip while Redis
// answers quickly: another replica's fresh answer for key, if Redis has
// one (got); otherwise the news that another replica's breaker is open
// (errBreakerOpen); otherwise the right to fetch (the lease, which the
// fetcher releases with toShared or unlock). A replica that finds the
// right taken waits for the holder's answer to appear, or for the right
// to come free, at most CollapseWait, and then fetches for itself, as
// does everyone while Redis does not answer. A stale record is taken into
// the local tier on the way, as a fallback should NSIP fail.
func (g *Gateway) claimFetch(ctx context.Context, key string) (l *lease, got *answer, err error) {
	l = &lease{}
	r := g.shared.redis
	if r == nil {
		return l, nil, nil
	}
	token := rand.Text()
	c, ok := g.claim(ctx, key, token, false)
	if !ok {
		return l, nil, nil
	}
	stale := c.record != nil
	if stale {
		if a, fresh := g.takeIn(key, c.record, true); fresh {
			return l, a, nil
		}
		// Not fresh, or not ours: ask again, for the lock this time.
		if c, ok = g.claim(ctx, key, token, true); !ok {
			return l, nil, nil
		}
	}
	if c.breakerLeft > 0 {
		g.shared.openUntil.Store(time.Now().Add(c.breakerLeft).UnixNano())
		return l, nil, errBreakerOpen
	}
	if c.locked {
		l.token = token
		return l, nil, nil
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
			return l, nil, nil
		case <-ctx.Done():
			tick.Stop()
			return l, nil, nil
		}
		// Only one call per replica polls (the others wait on it through
		// singleflight), so polling often costs little and keeps a waiter
		// within a few milliseconds of the fetcher.
		poll = min(poll+poll/4, 25*time.Millisecond)
		c, ok := g.claim(ctx, key, token, false)
		switch {
		case !ok:
			return l, nil, nil
		case c.record != nil:
			// A stale record was taken in before the wait began.
			if a, fresh := g.takeIn(key, c.record, !stale); fresh {
				g.shared.collapsed.Add(1)
				return l, a, nil
			}
			stale = true
			// Still no fresh answer: is anyone still fetching? If not,
			// the fetcher failed or gave up, and this replica tries,
			// holding the lock itself.
			if c, ok = g.claim(ctx, key, token, true); !ok {
				return l, nil, nil
			}
		}
		if c.locked {
			l.token = token
			return l, nil, nil
		}
	}
}

// unlock releases l's hold on its key unless the store did. It runs on its
// own deadline, as the fetch's may be spent.
func (g *Gateway) unlock(key string, l *lease) {
	r := g.shared.redis
	if l == nil || l.token == "" || l.done || r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
	defer cancel()
	lock := r.Key("lock:" + g.recordKey(key))
	_ = r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
		return unlockScript.Run(ctx, c, []string{lock}, l.token).Err()
	})
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
	// A write, not a PING: a Redis that refuses every write still
	// answers PING, and the shared tier is of no use without writes.
	_ = r.Ping(ctx)
	st := r.Status()
	if st.Up {
		return nil
	}
	what := "redis unavailable"
	switch st.State {
	case cache.RedisSlow:
		what = "redis slow"
	case cache.RedisRefusingWrites:
		what = "redis refuses writes"
	}
	return &DegradedError{Reason: fmt.Sprintf("%s (%s): cache, rate limit and breaker are local to this replica", what, st.Reason)}
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
