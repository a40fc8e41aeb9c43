package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Config tunes a Pool; the gateway fills it from its own, defaults applied.
type Config struct {
	Cache *cache.Cache // the local tier, which the pool reads and fills
	Codec *Codec       // the shared tier's records
	// Shared, when set, is the Redis the replicas share (see Shared).
	Shared *cache.Redis
	Budget int // the token budget of this replica's fits, which keys its shared records

	RateLimit        float64 // upstream requests per second
	RateBurst        int
	Replicas         int
	MaxConcurrent    int    // connections to NSIP, shared turn by turn (Fair)
	BreakerFailures  uint32 // consecutive failures that open the breaker
	BreakerCooldown  time.Duration
	CallTimeout      time.Duration // one fetch's deadline, waiting for capacity included
	CollapseWait     time.Duration
	MaxUpstreamPause time.Duration
	CacheTTL         time.Duration
	StaleTTL         time.Duration
	Now              func() time.Time // the cache's clock
	Logger           *slog.Logger
	Metrics          *metrics.Metrics // nil records nothing
	// Detach is the context a fetch runs in, made from that of the call
	// which started it: without its deadline or cancellation, since the
	// fetch serves every caller of the key, but with what its requests'
	// logs need. nil means context.Background.
	Detach func(context.Context) context.Context
}

// Pool obtains NSIP's answers: from the cache, from a fetch of the same
// key already under way here or on another replica, or from a fetch of
// its own that passes the circuit breaker, NSIP's pauses, the caller's
// turn at the connections and the rate limit. It is safe for concurrent
// use.
type Pool struct {
	cfg     Config
	cache   *cache.Cache
	flight  singleflight.Group
	breaker *gobreaker.TwoStepCircuitBreaker // one admission per HTTP request, retries included (retrygate.go)
	limiter *rate.Limiter
	fair    *fair   // turns at the upstream, one per connection, shared between callers
	waiting waiters // callers per cache key, so a fetch nobody awaits leaves the queue
	pauses  Pauses  // per endpoint, until when NSIP asked us to wait (429)
	drift   Drift   // answers in shapes the client did not recognize
	shared  *Shared
	recent  recentReads // fresh reads' answers, served as fresh for FreshFor

	answerIDs   atomic.Uint64 // numbers each upstream answer
	openedAt    atomic.Int64  // unix nanos when the breaker last opened
	inFlight    atomic.Int64  // upstream requests under way
	tokens      atomic.Int64  // rate-limit tokens taken, one per HTTP request to NSIP
	requests    atomic.Int64  // requests sent to NSIP
	lastSuccess atomic.Int64  // unix nanos of the last successful upstream answer
	abandoned   atomic.Int64  // queued fetches dropped because every caller had gone
}

// NewPool returns a pool configured by cfg, whose Cache, Codec, Logger and Now
// must be set.
func NewPool(cfg Config) *Pool {
	if cfg.Detach == nil {
		cfg.Detach = func(context.Context) context.Context { return context.Background() }
	}
	p := &Pool{
		cfg: cfg, cache: cfg.Cache,
		limiter: rate.NewLimiter(rate.Limit(cfg.RateLimit), cfg.RateBurst),
		fair:    newFair(cfg.MaxConcurrent),
	}
	p.breaker = gobreaker.NewTwoStepCircuitBreaker(gobreaker.Settings{
		Name:    "nsip",
		Timeout: cfg.BreakerCooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.ConsecutiveFailures >= cfg.BreakerFailures
		},
		OnStateChange: func(_ string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				// gobreaker times its cooldown on the wall clock, so this does too.
				p.openedAt.Store(time.Now().UnixNano())
			}
			p.cfg.Logger.Warn("nsip circuit breaker", slog.String("from", from.String()), slog.String("to", to.String()))
			if to == gobreaker.StateOpen || to == gobreaker.StateClosed {
				p.shared.Breaker(to == gobreaker.StateOpen)
			}
		},
	})
	p.shared = NewShared(SharedConfig{
		Redis: cfg.Shared, Cache: cfg.Cache, Codec: cfg.Codec, IDs: &p.answerIDs, Limiter: p.limiter, Pauses: &p.pauses,
		Budget: cfg.Budget, RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst, Replicas: cfg.Replicas,
		CacheTTL: cfg.CacheTTL, StaleTTL: cfg.StaleTTL, CallTimeout: cfg.CallTimeout, CollapseWait: cfg.CollapseWait,
		BreakerCooldown: cfg.BreakerCooldown, MaxPause: cfg.MaxUpstreamPause, Now: cfg.Now, Logger: cfg.Logger,
	})
	return p
}

// Fetch is one request to NSIP, its arguments bound: the decoded model and
// NSIP's JSON as sent.
type Fetch func(ctx context.Context) (value any, raw json.RawMessage, err error)

// Request is what Obtain needs of a lookup.
type Request struct {
	Method string // NSIP's endpoint, which pauses, metrics and logs name
	Key    string // the cache key: the method and its canonical arguments
	Caller string // the client calling, for the fair queue (caller.Client)
	// Bind binds the fetch of Key. It runs only when a fetch is to be made,
	// so that a cache hit pays nothing for decoding the arguments.
	Bind func() (Fetch, error)
	// Prepare checks a fetched answer and fits it (sets Res) before it is
	// cached and shared; an error drops the answer. It runs on the fetch's
	// deadline.
	Prepare func(ctx context.Context, a *Answer) error
	// Sent, when set, is told of each HTTP request this fetch sends to
	// NSIP, retries included, whether or not the caller still waits for
	// it: the caller that started the fetch counts what it cost NSIP.
	Sent func()
}

// Obtain returns the answer for key, and where it came from: the cache
// (SourceHit), another replica (SourceShared) or a fetch, this caller's or
// one under way already (SourceMiss). Only when the cache has no answer
// does it ask lookup for the rest of the request (whose Key is key), so
// that a hit builds nothing. Leaving early lets the fetch go on for the
// others, or, if nobody is left and it is still queued, drops it.
func (p *Pool) Obtain(ctx context.Context, key string, lookup func() Request) (*Answer, string, error) {
	if e, ok := p.cache.Get(key); ok {
		return e.Value.(*Answer), SourceHit, nil
	}
	a, err := p.share(ctx, lookup(), false)
	switch {
	case err != nil:
		return nil, "", err
	case a.Shared:
		return a, SourceShared, nil
	}
	return a, SourceMiss, nil
}

// Holds reports whether the cache's fresh answer under key is a, counted
// as a hit when it is: a result rendered from a alone still stands.
func (p *Pool) Holds(key string, a *Answer) bool {
	e, ok := p.cache.Get(key)
	return ok && e.Value == any(a)
}

// Fresh reads req.Key's answer from NSIP whatever the caches hold: not
// from the local tier, nor from another replica's record, nor from a
// fetch of the key that began before it and may answer from either. It
// otherwise goes the way of a fetch (breaker, pauses, turn, rate-limit
// token, fit), and its answer is cached and shared as a fetch's is, so
// that the next ordinary read of the key has it. Fresh reads of one key
// share a request when it went out after they began: an answer sent for
// earlier is no newer than what they must see.
//
// Within window of a fresh read's request, on Now's clock, the answer it
// got is the answer, with no request (SourceHit); otherwise the source is
// SourceMiss. A window of 0 always asks.
func (p *Pool) Fresh(ctx context.Context, req Request, window time.Duration) (*Answer, string, error) {
	if a := p.recent.get(req.Key, p.cfg.Now(), window); a != nil {
		return a, SourceHit, nil
	}
	a, err := p.share(ctx, req, true)
	if err != nil {
		return nil, "", err
	}
	return a, SourceMiss, nil
}

// freshFlight keys fresh reads in the singleflight group apart from the
// ordinary fetches of the same cache key.
const freshFlight = "\x00fresh\x00"

// freshRead is a fresh read's answer and the number of its request
// (Pool.requests), which tells a caller who joined it whether the
// request went out after it began.
type freshRead struct {
	a    *Answer
	sent int64
}

// share waits for the fetch of req.Key, joining one under way or starting
// it (fresh: a fresh read, see Fresh). A caller that joined a fetch just
// as it was dropped starts another.
func (p *Pool) share(ctx context.Context, req Request, fresh bool) (*Answer, error) {
	flight := req.Key
	var began int64
	if fresh {
		flight = freshFlight + req.Key
		began = p.requests.Load()
	}
	for try := 0; ; try++ {
		queue, leave := p.waiting.Join(flight)
		ch := p.flight.DoChan(flight, func() (any, error) { return p.fetch(ctx, queue, flight, req, fresh) })
		select {
		case r := <-ch:
			leave()
			if r.Err == nil && !fresh {
				return r.Val.(*Answer), nil
			}
			if r.Err == nil {
				fr := r.Val.(freshRead)
				if fr.sent > began || try >= 3 {
					return fr.a, nil
				}
				// Joined a read sent before this one began: read again,
				// which starts after it.
				continue
			}
			if errors.Is(r.Err, errAbandoned) && ctx.Err() == nil && try < 3 {
				continue
			}
			return nil, r.Err
		case <-ctx.Done():
			leave()
			return nil, ctx.Err()
		}
	}
}

// fetch is the single upstream round trip behind one cache key, and the fit
// of its answer. It runs on its own deadline, so one caller giving up does
// not fail the others; its requests are logged under the call of caller,
// which started it. It waits for req.Caller's turn until queue ends, when
// every caller has given up, and is shared under flight. A fresh fetch
// (Fresh) reads no cache and answers a freshRead.
func (p *Pool) fetch(caller, queue context.Context, flight string, req Request, fresh bool) (any, error) {
	key := req.Key
	if e, ok := p.cache.Peek(key); ok && !fresh { // filled while this call was queueing
		return e.Value.(*Answer), nil
	}
	request, err := req.Bind()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(metrics.WithEndpoint(p.cfg.Detach(caller), req.Method), p.cfg.CallTimeout)
	defer cancel()
	// Another replica's answer, its breaker's news and the right to fetch
	// for all of them, in one round trip to Redis (shared.go).
	var lease *lease
	if fresh {
		lease, err = p.shared.claimFresh(ctx, key)
	} else {
		var got *Answer
		if lease, got, err = p.shared.Claim(ctx, key); got != nil {
			return got, nil
		}
	}
	defer p.shared.Unlock(key, lease)
	if err != nil {
		return nil, err
	}
	if p.breaker.State() == gobreaker.StateOpen {
		return nil, ErrBreakerOpen // fail fast, without spending rate-limit tokens
	}
	if err := p.paused(req.Method); err != nil {
		return nil, err
	}
	turnDone, err := p.turn(ctx, queue, req.Caller, flight)
	if err != nil {
		return nil, err
	}
	release, err := p.acquire(ctx, req.Method)
	if err != nil {
		turnDone()
		return nil, err
	}
	admitted, err := p.breaker.Allow()
	if err != nil {
		release()
		turnDone()
		return nil, ErrBreakerOpen
	}
	// Every retry the client makes takes a token and a breaker admission
	// of its own, as this first request did (retrygate.go).
	attempts := &attemptBounds{p: p, method: req.Method, done: admitted, sent: time.Now(), tell: req.Sent}
	defer func() {
		if attempts.done != nil {
			// Only a panic leaves a request unjudged: a failure, as
			// gobreaker's Execute counted one, so that a half-open breaker
			// is not left waiting for a verdict.
			attempts.done(false)
		}
	}()
	sent := p.requests.Add(1)
	asked := p.cfg.Now() // NSIP's answer is as of no earlier than this
	attempts.told()
	value, raw, err := request(nsip.WithRetryGate(ctx, attempts.retry))
	var a *Answer
	switch ne := Unrecognized(err); {
	case ne != nil:
		// NSIP answered; the client could not read it. Pass it on.
		a, err = &Answer{ID: p.answerIDs.Add(1), Raw: ne.Body, Drift: ne}, nil
	case err != nil && !attempts.retried:
		err = p.blame(ctx, attempts.sent, err)
	default:
		a = &Answer{ID: p.answerIDs.Add(1), Value: value, Raw: raw}
	}
	attempts.settle(err)
	release()
	turnDone()
	if err != nil {
		p.noteThrottle(req.Method, err)
		return nil, err
	}
	p.lastSuccess.Store(time.Now().UnixNano())
	if a.Drift != nil {
		p.noteDrift(a.Drift)
	}
	// Waiting for a fit slot counts against the fetch's deadline like
	// waiting for NSIP does; an answer that cannot be fitted in time is
	// dropped rather than held while the queue drains.
	if err := req.Prepare(ctx, a); err != nil {
		return nil, err
	}
	a.keepStructured()
	p.cache.Set(key, a, a.Size(key), a.Res.OriginalTokens)
	p.shared.Store(ctx, key, lease, a)
	if fresh {
		p.recent.put(key, a, asked)
		return freshRead{a: a, sent: sent}, nil
	}
	return a, nil
}

// acquire waits for a rate-limit token for one upstream request to method
// and counts the request in flight; the caller holds a turn, which is its
// connection (turn). When the wait would outlast ctx's deadline it
// refuses at once with how long to wait instead.
func (p *Pool) acquire(ctx context.Context, method string) (release func(), err error) {
	if err := p.takeToken(ctx, method); err != nil {
		return nil, err
	}
	// The connection itself is the turn the caller holds.
	p.inFlight.Add(1)
	return func() { p.inFlight.Add(-1) }, nil
}

// takeToken waits for one rate-limit token, the shared one and the local
// one, for a request to method; a wait that would outlast ctx's deadline
// is refused at once with how long to wait instead.
func (p *Pool) takeToken(ctx context.Context, method string) error {
	start := time.Now()
	if err := p.shared.turn(ctx, method); err != nil {
		return err
	}
	now := time.Now()
	r := p.limiter.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
			r.CancelAt(now)
			return &RateLimited{RetryAfter: wait, Reason: fmt.Sprintf("limit of %g requests per second", p.cfg.RateLimit)}
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			r.Cancel()
			return ctx.Err()
		}
	}
	p.tokens.Add(1)
	p.cfg.Metrics.RateLimitWait(method, time.Since(start))
	return nil
}

// turn waits for the turn of who at the upstream, within the fetch's
// deadline (ctx) and while anyone awaits the fetch (queue), shared under
// flight.
func (p *Pool) turn(ctx, queue context.Context, who, flight string) (done func(), err error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(queue, cancel)
	defer stop()
	done, err = p.fair.Wait(wctx, who)
	switch {
	case err == nil:
		return done, nil
	case queue.Err() != nil && ctx.Err() == nil:
		p.abandoned.Add(1)
		p.flight.Forget(flight) // a caller arriving now starts a fetch of its own
		return nil, errAbandoned
	}
	return nil, &RateLimited{RetryAfter: time.Second, Reason: fmt.Sprintf(
		"all %d NSIP connections busy; clients are served in turn", p.cfg.MaxConcurrent)}
}

// blame wraps err as queuedTooLong when the fetch's deadline, not NSIP,
// ended a request sent at sent.
func (p *Pool) blame(ctx context.Context, sent time.Time, err error) error {
	deadline, ok := ctx.Deadline()
	if ok && ctx.Err() != nil && deadline.Sub(sent) < p.cfg.CallTimeout/2 {
		return &queuedTooLong{Err: err}
	}
	return err
}

// breakerCounts decides whether the breaker counts err as a failure of
// NSIP, and logs each one it counts, so that an open breaker can always be
// traced to the failures that opened it.
func (p *Pool) breakerCounts(err error) bool {
	var own *queuedTooLong
	if errors.As(err, &own) || !countsAsFailure(err) {
		return false
	}
	p.cfg.Logger.Warn("nsip failure counted by the circuit breaker",
		slog.String("error", err.Error()),
		slog.Int("consecutive_failures", int(p.breaker.Counts().ConsecutiveFailures)+1),
		slog.Int("opens_at", int(p.cfg.BreakerFailures)))
	return true
}

// noteThrottle makes requests to method wait out a 429's Retry-After, up
// to MaxUpstreamPause, so that NSIP sees no further requests there until
// then, on every replica. The error the caller gets is rewritten to the
// capped wait.
func (p *Pool) noteThrottle(method string, err error) {
	var ne *nsip.Error
	if !errors.As(err, &ne) || ne.Kind != nsip.KindRateLimited {
		return
	}
	asked := ne.RetryAfter
	ne.RetryAfter = p.pauses.Set(method, asked, p.cfg.MaxUpstreamPause, time.Now())
	p.shared.throttle(method, ne.RetryAfter, asked)
	if asked > p.cfg.MaxUpstreamPause {
		p.cfg.Logger.Warn("nsip asked for a pause longer than the limit; pausing for the limit",
			slog.String("method", method), slog.Duration("asked", asked), slog.Duration("limit", p.cfg.MaxUpstreamPause))
	}
}

// paused refuses a fetch for method while NSIP's pause on it lasts.
func (p *Pool) paused(method string) error {
	if left := p.pauses.Left(method, time.Now()); left > 0 {
		return &RateLimited{RetryAfter: left, Reason: "NSIP asked us to wait"}
	}
	return nil
}

// noteDrift records an unrecognized answer, warning once per endpoint and
// shape. NSIP has no published schema and has changed its answers before
// (see specs/upstream.md): operators learn of a change from one warning
// and from /healthz, not from users.
func (p *Pool) noteDrift(ne *nsip.Error) {
	sig := Signature(ne.Body)
	endpoint := nsip.EndpointName(ne.Endpoint)
	if p.drift.Note(endpoint, sig, ne.Reason, p.cfg.Now().UTC()) {
		p.cfg.Logger.Warn("NSIP answered in a shape this server does not recognize; passing it on as sent",
			slog.String("endpoint", endpoint),
			slog.String("signature", sig),
			slog.String("missing", ne.Reason))
	}
}
