package upstream

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/nsip-tools/nsip-mcp/cache"
)

// Replicas of the server share four things through Redis when
// Config.Shared is set: the cache (a second tier behind the in-process one),
// the upstream rate limit, the right to fetch a missing answer (so that
// identical misses on several replicas make one request), and the news that
// the breaker opened. Redis is never a new way to fail: whenever it does not
// answer, each replica goes on alone with its local cache and 1/Replicas of
// the rate limit, and rejoins by itself when Redis is back.

// SharedConfig is what the shared tier works with: Redis, and this
// replica's own state that it stands in for or keeps in step.
type SharedConfig struct {
	Redis   *cache.Redis   // nil when not shared: every method then does nothing
	Cache   *cache.Cache   // the local tier, which records read from Redis go to
	Codec   *Codec         // the records' form
	IDs     *atomic.Uint64 // numbers each answer taken in
	Limiter *rate.Limiter  // the local limiter, throttled to rate/Replicas while Redis is away
	Pauses  *Pauses        // the local pauses, which another replica's news of a 429 joins
	// Budget is the token budget of this replica's fits (see NewShared).
	Budget int

	RateLimit       float64 // upstream requests per second, all replicas together
	RateBurst       int
	Replicas        int
	CacheTTL        time.Duration
	StaleTTL        time.Duration
	CallTimeout     time.Duration
	CollapseWait    time.Duration
	BreakerCooldown time.Duration
	// MaxPause is the longest pause this replica keeps to
	// (NSIP_MAX_PAUSE), whoever asked for it; DefaultMaxUpstreamPause
	// when zero.
	MaxPause time.Duration
	Now      func() time.Time // the cache's clock
	Logger   *slog.Logger
}

// Shared is one replica's side of the shared mode.
type Shared struct {
	cfg        SharedConfig
	redis      *cache.Redis // nil when not shared
	switching  sync.Mutex   // orders switches of the local limiter
	localShare atomic.Bool  // the local limiter is throttled to rate/Replicas
	// share is rate/Replicas for the turns Redis fails to answer while it
	// is still judged to keep the shared limit (one late reply is not
	// down, cache.RedisWindow): such a request keeps to a share of its own.
	share     *rate.Limiter
	openUntil atomic.Int64 // unix nanos until which another replica's breaker is open
	fit       string       // what shapes this replica's fits, leading its records' keys

	hits      atomic.Int64 // answers loaded from Redis instead of fetched
	collapsed atomic.Int64 // fetches avoided by waiting for another replica's
}

// NewShared sets the local limiter to its share: the whole rate while
// Redis keeps the shared limit, rate/Replicas otherwise.
func NewShared(cfg SharedConfig) *Shared {
	r := cfg.Redis
	s := &Shared{cfg: cfg, redis: r}
	// A record holds the answer as this replica fitted it, and the token
	// budget is the one setting that shapes a fit (views are fitted per
	// call and never shared): replicas with other budgets keep their own
	// records and fetch locks.
	s.fit = fmt.Sprintf("budget=%d:", cfg.Budget)
	if s.cfg.MaxPause <= 0 {
		s.cfg.MaxPause = DefaultMaxUpstreamPause
	}
	n := float64(max(cfg.Replicas, 1))
	s.share = rate.NewLimiter(rate.Limit(cfg.RateLimit/n), max(1, int(float64(cfg.RateBurst)/n)))
	local := r == nil || !r.Status().SharesLimit
	s.localShare.Store(!local) // so that the first switch applies
	s.useLocalShare(local)
	if r != nil {
		// The current state rather than the one passed: two changes in
		// quick succession may notify out of order. A slow Redis still
		// keeps the shared limit (cache.Redis.Limit).
		r.Watch(func(bool) { s.useLocalShare(!r.Status().SharesLimit) })
	}
	return s
}

// Redis is the Redis the replicas share, nil when not shared.
func (s *Shared) Redis() *cache.Redis { return s.redis }

// useLocalShare switches the local limiter between standing in for the
// shared limit (rate/Replicas) and letting the shared limit decide.
func (s *Shared) useLocalShare(local bool) {
	s.switching.Lock()
	defer s.switching.Unlock()
	if s.localShare.Swap(local) == local {
		return
	}
	if !local {
		s.cfg.Limiter.SetLimit(rate.Inf)
		return
	}
	n := float64(max(s.cfg.Replicas, 1))
	s.cfg.Limiter.SetLimit(rate.Limit(s.cfg.RateLimit / n))
	s.cfg.Limiter.SetBurst(max(1, int(float64(s.cfg.RateBurst)/n)))
}

// LocalLimit is the rate limit this replica keeps to: its share while it
// stands in for the shared limit, else the configured one (which Redis
// enforces for all replicas together, the local limiter being lifted).
func (s *Shared) LocalLimit() (perSecond float64, burst int) {
	if l := s.cfg.Limiter.Limit(); l != rate.Inf {
		return float64(l), s.cfg.Limiter.Burst()
	}
	return s.cfg.RateLimit, s.cfg.RateBurst
}

// gcra reserves the next upstream request slot in Redis under the generic
// cell rate algorithm: KEYS[1] holds the theoretical arrival time in
// microseconds of Redis's clock, which all replicas share. ARGV: emission
// interval, burst tolerance, the longest acceptable wait, and the bound
// (all in microseconds), and "skip" to pass over the pause. It answers
// {1, wait, forged} for a slot taken wait microseconds from now, or
// {0, wait, forged} without taking one when the wait is too long, or
// {2, left, value} while KEYS[2] says NSIP asked every replica to leave
// the request's endpoint alone, value being the pause as sealed
// (Shared.throttle) for the replica to check. A state that is not a
// number, or further ahead than bound (more than any replica under these
// settings can have reserved: the burst, one interval and the longest
// wait), is no replica's: it is replaced as if missing, and forged says
// so.
var gcra = redis.NewScript(`
if ARGV[5] ~= 'skip' then
  local pause = redis.call('PTTL', KEYS[2])
  if pause > 0 then
    local v = redis.pcall('GET', KEYS[2])
    if type(v) == 'table' then v = false end
    return {2, pause * 1000, v}
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local maxwait = tonumber(ARGV[3])
local bound = tonumber(ARGV[4])
local raw = redis.pcall('GET', KEYS[1])
local forged = 0
local tat = now
if type(raw) == 'table' then
  forged = 1
elseif raw then
  tat = tonumber(raw)
  if tat == nil or tat > now + bound then tat = now; forged = 1 end
end
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait < 0 then wait = 0 end
if wait > maxwait then return {0, wait, forged} end
local newtat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', newtat), 'PX', math.ceil((newtat - now) / 1000) + 1000)
return {1, wait, forged}
`)

// turnAnswer is what gcra answered.
type turnAnswer struct {
	code   int64
	wait   time.Duration
	forged bool   // the rate state was no replica's
	pause  []byte // the pause as sealed, when code is 2
}

// turn waits for this request's place under the rate limit all
// replicas share. It returns nil at once when there is no Redis or Redis
// does not answer; the local limiter, then at rate/Replicas, decides.
// What Redis holds is believed only within this replica's settings: a
// pause only with a valid MAC and for at most MaxPause, a rate state only
// within the rate's period (gcra).
func (s *Shared) turn(ctx context.Context, method string) error {
	r := s.redis
	if r == nil {
		return nil
	}
	pkey := r.Key("pause:" + method)
	for skipPause := false; ; skipPause = true {
		res, err := s.rateTurn(ctx, pkey, skipPause)
		if err != nil && r.Status().SharesLimit {
			return s.shareTurn(ctx)
		}
		if err != nil {
			return nil // the local limiter took over when Redis went down
		}
		if res.code == 2 {
			if left, asked, ok := s.openPause(pkey, res.pause, res.wait); ok {
				// Kept locally too, so that this replica's health shows the
				// pause it keeps to and its next calls are refused without
				// asking Redis.
				s.cfg.Pauses.Hold(method, time.Now().Add(left), asked)
				return &RateLimited{RetryAfter: left, Reason: "NSIP asked us to wait"}
			}
			continue // not believed: the turn is asked for again without it
		}
		if !skipPause {
			r.Accept(pkey)
		}
		if res.forged {
			r.Refuse(r.Key("rate"), "a rate-limit state no replica wrote (not a number, or past the rate's period); replaced", true)
		} else {
			r.Accept(r.Key("rate"))
		}
		return s.waitTurn(ctx, res)
	}
}

// rateTurn runs gcra once and checks its answer against this replica's
// settings: a wait longer than the script could give means the Redis
// answering is not one to share a limit through, and marks it down.
func (s *Shared) rateTurn(ctx context.Context, pkey string, skipPause bool) (turnAnswer, error) {
	r := s.redis
	interval := time.Duration(float64(time.Second) / s.cfg.RateLimit)
	tolerance := interval * time.Duration(s.cfg.RateBurst-1)
	maxWait := s.cfg.CallTimeout
	if deadline, ok := ctx.Deadline(); ok {
		maxWait = time.Until(deadline)
	}
	bound := interval + tolerance + max(s.cfg.CallTimeout, maxWait)
	skip := ""
	if skipPause {
		skip = "skip"
	}
	var a turnAnswer
	err := r.Limit(ctx, func(ctx context.Context, c *redis.Client) error {
		res, err := gcra.Run(ctx, c, []string{r.Key("rate"), pkey},
			interval.Microseconds(), tolerance.Microseconds(), maxWait.Microseconds(), bound.Microseconds(), skip).Slice()
		if err != nil {
			return err
		}
		if a, err = readTurn(res); err != nil {
			return err
		}
		if a.code == 1 && a.wait > maxWait || a.code == 0 && a.wait > bound || a.code == 2 && skipPause {
			return fmt.Errorf("rate script answered an impossible %v", res)
		}
		return nil
	})
	return a, err
}

// readTurn reads gcra's answer.
func readTurn(res []any) (turnAnswer, error) {
	var a turnAnswer
	if len(res) != 3 {
		return a, fmt.Errorf("rate script answered %v", res)
	}
	code, ok1 := res[0].(int64)
	us, ok2 := res[1].(int64)
	if !ok1 || !ok2 || code < 0 || code > 2 || us < 0 {
		return a, fmt.Errorf("rate script answered %v", res)
	}
	a.code, a.wait = code, time.Duration(us)*time.Microsecond
	switch v := res[2].(type) {
	case string:
		a.pause = []byte(v)
	case int64:
		a.forged = v == 1
	}
	return a, nil
}

// openPause checks a pause read from pkey with left of its TTL: it is
// believed only with a valid MAC, for what is left of the wait its
// writer set, and for at most MaxPause whatever the key says, so that
// neither a forged key nor a genuine one replayed or kept past its time
// holds this replica longer than its own settings allow.
func (s *Shared) openPause(pkey string, b []byte, left time.Duration) (wait, asked time.Duration, ok bool) {
	r := s.redis
	now := time.Now()
	v, stored, ok := r.OpenAt(pkey, b, now)
	if !ok {
		r.Refuse(pkey, "a pause without a valid MAC, or stamped ahead", false)
		return 0, 0, false
	}
	var askedUS, waitUS int64
	if _, err := fmt.Sscanf(string(v), "%d %d", &askedUS, &waitUS); err != nil {
		r.Refuse(pkey, "a pause that does not read as one", true)
		return 0, 0, false
	}
	wait = min(left, stored.Add(time.Duration(waitUS)*time.Microsecond).Sub(now), s.cfg.MaxPause)
	if wait <= 0 {
		r.Refuse(pkey, "a pause whose time has passed, kept or written back", true)
		return 0, 0, false
	}
	r.Accept(pkey)
	return wait, time.Duration(askedUS) * time.Microsecond, true
}

// shareTurn waits for a token of this replica's share of the limit, for
// a request whose shared turn Redis did not answer in time.
func (s *Shared) shareTurn(ctx context.Context) error {
	now := time.Now()
	res := s.share.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	if wait <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
		res.CancelAt(now)
		return &RateLimited{RetryAfter: wait, Reason: fmt.Sprintf("this replica's share of the limit of %g requests per second, Redis not answering in time", s.cfg.RateLimit)}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		res.Cancel()
		return ctx.Err()
	}
}

// waitTurn refuses or waits for the slot gcra answered.
func (s *Shared) waitTurn(ctx context.Context, res turnAnswer) error {
	if res.code == 0 {
		return &RateLimited{RetryAfter: res.wait, Reason: fmt.Sprintf("limit of %g requests per second shared by all replicas", s.cfg.RateLimit)}
	}
	if res.wait <= 0 {
		return nil
	}
	t := time.NewTimer(res.wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// claimScript is one round trip of a miss: the record (KEYS[1]) if there
// is one and ARGV[3] is not "skip"; else, unless ARGV[4] is "skip",
// whether another replica's breaker is open (KEYS[3], its milliseconds
// left and its value as sealed); else the collapse lock (KEYS[2]) taken
// for ARGV[1] for ARGV[2] milliseconds if it is free. It answers
// {record or false, 1 if KEYS[1] held another type, breaker ms, 1 if the
// lock was taken, breaker value or false}.
var claimScript = redis.NewScript(`
local v = false
local wrong = 0
if ARGV[3] ~= 'skip' then
  v = redis.pcall('GET', KEYS[1])
  if type(v) == 'table' and v.err then v = false; wrong = 1 end
  if v then return {v, wrong, 0, 0, false} end
end
if ARGV[4] ~= 'skip' then
  local b = redis.call('PTTL', KEYS[3])
  if b > 0 then
    local bv = redis.pcall('GET', KEYS[3])
    if type(bv) == 'table' then bv = false end
    return {false, wrong, b, 0, bv}
  end
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {false, wrong, 0, 1, false} end
return {false, wrong, 0, 0, false}
`)

// claimed is what claimScript found.
type claimed struct {
	record      []byte // nil when there was none, or it was skipped
	breakerLeft time.Duration
	locked      bool
}

// claim runs claimScript for key; ok is false when Redis did not answer.
// Another replica's breaker news is believed only with a valid MAC and
// for at most this replica's cooldown; news not believed is reported
// (Refuse) and the claim asked for again without it.
func (s *Shared) claim(ctx context.Context, key, token string, skipRecord bool) (c claimed, ok bool) {
	r := s.redis
	bkey := r.Key("breaker")
	c, news, ok := s.claimOnce(ctx, key, token, skipRecord, false)
	switch {
	case !ok || c.record != nil:
	case c.breakerLeft == 0:
		r.Accept(bkey)
	default:
		if c.breakerLeft = s.openBreaker(bkey, news, c.breakerLeft); c.breakerLeft == 0 {
			c, _, ok = s.claimOnce(ctx, key, token, skipRecord, true)
		}
	}
	return c, ok
}

// openBreaker checks the breaker news read from bkey with left of its
// TTL, and answers how long it holds here: at most what is left of the
// cooldown its writer set and of this replica's own, 0 when not believed.
func (s *Shared) openBreaker(bkey string, news []byte, left time.Duration) time.Duration {
	r := s.redis
	now := time.Now()
	v, stored, ok := r.OpenAt(bkey, news, now)
	if !ok {
		r.Refuse(bkey, "breaker news without a valid MAC, or stamped ahead", false)
		return 0
	}
	var cooldownUS int64
	if _, err := fmt.Sscanf(string(v), "open %d", &cooldownUS); err != nil {
		r.Refuse(bkey, "breaker news that does not read as such", true)
		return 0
	}
	left = min(left, stored.Add(time.Duration(cooldownUS)*time.Microsecond).Sub(now), s.cfg.BreakerCooldown)
	if left <= 0 {
		r.Refuse(bkey, "breaker news whose cooldown has passed, kept or written back", true)
		return 0
	}
	r.Accept(bkey)
	return left
}

// claimOnce runs claimScript once; news is the breaker's value as read.
func (s *Shared) claimOnce(ctx context.Context, key, token string, skipRecord, skipBreaker bool) (c claimed, news []byte, ok bool) {
	r := s.redis
	skip := func(b bool) string {
		if b {
			return "skip"
		}
		return ""
	}
	rkey := s.RecordKey(key)
	var res []any
	err := r.Write(ctx, func(ctx context.Context, rc *redis.Client) error {
		var err error
		res, err = claimScript.Run(ctx, rc, []string{r.RecordKey(rkey), r.Key("lock:" + rkey), r.Key("breaker")},
			token, s.cfg.CallTimeout.Milliseconds(), skip(skipRecord), skip(skipBreaker)).Slice()
		if err == nil && len(res) != 5 {
			err = fmt.Errorf("claim script answered %v", res)
		}
		return err
	})
	if err != nil {
		return claimed{}, nil, false
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
	if v, isStr := res[4].(string); isStr {
		news = []byte(v)
	}
	return c, news, true
}

// takeIn decodes a record read for key and keeps it in the local tier. It
// returns the answer if the record is fresh; a stale one goes to the local
// tier only if keepStale, where it serves as a fallback should NSIP fail,
// and otherwise is not even decoded. A foreign or damaged one is ignored,
// and the fetch that follows overwrites it.
func (s *Shared) takeIn(key string, record []byte, keepStale bool) (*Answer, bool) {
	r := s.redis
	now := s.cfg.Now()
	b, stored, ok := r.Open(s.RecordKey(key), record, now)
	if !ok {
		return nil, false
	}
	fresh := now.Sub(stored) <= s.cfg.CacheTTL
	if !fresh && !keepStale {
		return nil, false
	}
	a, err := s.cfg.Codec.Decode(b)
	if err != nil {
		r.Ignored()
		s.cfg.Logger.Debug("ignored a shared cache value", "key", key, "error", err.Error())
		return nil, false
	}
	a.ID = s.cfg.IDs.Add(1)
	a.keepStructured()
	s.cfg.Cache.SetAt(key, a, a.Size(key), a.Res.OriginalTokens, stored)
	if !fresh {
		return nil, false
	}
	a.Shared = true
	s.hits.Add(1)
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

// Store stores a fetched answer in Redis for the other replicas, for as
// long as the local tier would keep it, stale window included, and
// releases the collapse lock held with token, if any, in the same round
// trip. If Redis took it, the lease is released; if not, Unlock still
// releases it. A nil lease holds no lock.
func (s *Shared) Store(ctx context.Context, key string, l *lease, a *Answer) {
	r := s.redis
	if r == nil {
		return
	}
	token := ""
	if l != nil {
		token = l.token
	}
	b, err := s.cfg.Codec.Encode(a)
	if err != nil {
		s.cfg.Logger.Warn("answer not shared: it does not encode", "key", key, "error", err.Error())
		return
	}
	rkey := s.RecordKey(key)
	ttl := s.cfg.CacheTTL + s.cfg.StaleTTL
	record := r.Seal(rkey, b, s.cfg.Now())
	err = r.Write(ctx, func(ctx context.Context, rc *redis.Client) error {
		return storeScript.Run(ctx, rc, []string{r.RecordKey(rkey), r.Key("lock:" + rkey)},
			record, ttl.Milliseconds(), token).Err()
	})
	if err == nil && l != nil {
		l.done = true
	}
}

// RecordKey is where this replica's fit of the answer cached under key
// lives in Redis.
func (s *Shared) RecordKey(key string) string { return s.fit + key }

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

// Claim is the shared part of a miss, in one round trip while Redis
// answers quickly: another replica's fresh answer for key, if Redis has
// one (got); otherwise the news that another replica's breaker is open
// (ErrBreakerOpen); otherwise the right to fetch (the lease, which the
// fetcher releases with Store or Unlock). A replica that finds the
// right taken waits for the holder's answer to appear, or for the right
// to come free, at most CollapseWait, and then fetches for itself, as
// does everyone while Redis does not answer. A stale record is taken into
// the local tier on the way, as a fallback should NSIP fail.
func (s *Shared) Claim(ctx context.Context, key string) (l *lease, got *Answer, err error) {
	l = &lease{}
	r := s.redis
	if r == nil {
		return l, nil, nil
	}
	token := rand.Text()
	c, ok := s.claim(ctx, key, token, false)
	if !ok {
		return l, nil, nil
	}
	stale := c.record != nil
	if stale {
		if a, fresh := s.takeIn(key, c.record, true); fresh {
			return l, a, nil
		}
		// Not fresh, or not ours: ask again, for the lock this time.
		if c, ok = s.claim(ctx, key, token, true); !ok {
			return l, nil, nil
		}
	}
	if c.breakerLeft > 0 {
		s.openUntil.Store(time.Now().Add(c.breakerLeft).UnixNano())
		return l, nil, ErrBreakerOpen
	}
	if c.locked {
		l.token = token
		return l, nil, nil
	}
	wait := time.NewTimer(s.cfg.CollapseWait)
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
		c, ok := s.claim(ctx, key, token, false)
		switch {
		case !ok:
			return l, nil, nil
		case c.record != nil:
			// A stale record was taken in before the wait began.
			if a, fresh := s.takeIn(key, c.record, !stale); fresh {
				s.collapsed.Add(1)
				return l, a, nil
			}
			stale = true
			// Still no fresh answer: is anyone still fetching? If not,
			// the fetcher failed or gave up, and this replica tries,
			// holding the lock itself.
			if c, ok = s.claim(ctx, key, token, true); !ok {
				return l, nil, nil
			}
		}
		if c.locked {
			l.token = token
			return l, nil, nil
		}
	}
}

// claimFresh is Claim for a fresh read (Pool.Fresh), which must not be
// answered by a record, nor by another replica's fetch that may have been
// sent before it began: it reads no record and waits for no one. It
// honours another replica's open breaker, and takes the right to fetch
// when it is free, so that the other replicas' misses of key wait for
// this answer rather than make requests of their own.
func (s *Shared) claimFresh(ctx context.Context, key string) (*lease, error) {
	l := &lease{}
	if s.redis == nil {
		return l, nil
	}
	token := rand.Text()
	c, ok := s.claim(ctx, key, token, true)
	switch {
	case !ok:
	case c.breakerLeft > 0:
		s.openUntil.Store(time.Now().Add(c.breakerLeft).UnixNano())
		return l, ErrBreakerOpen
	case c.locked:
		l.token = token
	}
	return l, nil
}

// Unlock releases l's hold on its key unless the store did. It runs on its
// own deadline, as the fetch's may be spent.
func (s *Shared) Unlock(key string, l *lease) {
	r := s.redis
	if l == nil || l.token == "" || l.done || r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CallTimeout)
	defer cancel()
	lock := r.Key("lock:" + s.RecordKey(key))
	_ = r.Do(ctx, func(ctx context.Context, c *redis.Client) error {
		return unlockScript.Run(ctx, c, []string{lock}, l.token).Err()
	})
}

// throttle asks every replica to leave method alone for wait, as NSIP
// asked this one to (a 429's Retry-After asked, capped to wait): each one's
// Turn for that endpoint refuses until then.
func (s *Shared) throttle(method string, wait, asked time.Duration) {
	r := s.redis
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CallTimeout)
	defer cancel()
	key := r.Key("pause:" + method)
	// Sealed with the wait and when it began, so that the others believe
	// it only from a replica, and only for its time.
	v := r.SealAt(key, fmt.Appendf(nil, "%d %d", asked.Microseconds(), wait.Microseconds()), time.Now())
	_ = r.Limit(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, key, v, wait).Err()
	})
}

// Breaker tells the other replicas that this one's breaker opened (for
// the cooldown) or closed again. It runs from the breaker's state change
// callback, so it does not wait for Redis.
func (s *Shared) Breaker(open bool) {
	r := s.redis
	if r == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CallTimeout)
		defer cancel()
		key := r.Key("breaker")
		_ = r.Limit(ctx, func(ctx context.Context, c *redis.Client) error {
			if open {
				v := r.SealAt(key, fmt.Appendf(nil, "open %d", s.cfg.BreakerCooldown.Microseconds()), time.Now())
				return c.Set(ctx, key, v, s.cfg.BreakerCooldown).Err()
			}
			return c.Del(ctx, key).Err()
		})
	}()
}

// RetryIn is how long another replica's open breaker still holds.
func (s *Shared) RetryIn() time.Duration {
	return max(time.Until(time.Unix(0, s.openUntil.Load())), 0)
}

// DegradedError is what Ready returns when the server answers calls but
// without the replicas' shared state. Degraded reports true, which tells
// the transport to answer /readyz with 200 and status "degraded": the
// replica is still worth sending traffic to.
type DegradedError struct{ Reason string }

func (e *DegradedError) Error() string { return e.Reason }

// Degraded reports that the server still serves.
func (e *DegradedError) Degraded() bool { return true }

// Readiness asks Redis, if the gateway uses one, whether it is there,
// and says why the replica is degraded if not.
func (s *Shared) Readiness(ctx context.Context) error {
	r := s.redis
	if r == nil {
		return nil
	}
	// A write, not a PING: a Redis that refuses every write still
	// answers PING, and the shared tier is of no use without writes.
	_ = r.Ping(ctx)
	st := r.Status()
	if st.Up && len(st.Refused) > 0 {
		return &DegradedError{Reason: fmt.Sprintf("redis holds values this replica does not believe (%s): ignored, and counted under shared.redis in /healthz",
			strings.Join(st.Refused, "; "))}
	}
	if st.Up {
		return nil
	}
	what, local := "redis unavailable", "cache, rate limit and breaker are local to this replica"
	switch st.State {
	case cache.RedisSlow:
		what, local = "redis slow", "the cache and other replicas' breaker news are local to this replica; the rate limit and NSIP's pauses are still shared"
	case cache.RedisRefusingWrites:
		what = "redis refuses writes"
	}
	return &DegradedError{Reason: fmt.Sprintf("%s (%s): %s", what, st.Reason, local)}
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

// Health is the shared mode's state, nil when not shared.
func (s *Shared) Health() *SharedHealth {
	r := s.redis
	if r == nil {
		return nil
	}
	h := &SharedHealth{
		Redis: r.Status(), Replicas: max(s.cfg.Replicas, 1), LocalRateLimit: s.localShare.Load(),
		Hits: s.hits.Load(), CollapsedFetches: s.collapsed.Load(),
	}
	if d := s.RetryIn(); d > 0 {
		h.BreakerOpenRemote = Seconds(d)
	}
	return h
}
