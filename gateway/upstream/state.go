package upstream

import (
	"time"

	"github.com/sony/gobreaker"
)

// What the gateway's health, readiness, metrics and errors read of a Pool.

// BreakerOpen reports whether this replica's breaker refuses requests.
func (p *Pool) BreakerOpen() bool { return p.breaker.State() == gobreaker.StateOpen }

// Breaker is the breaker's state (closed, half-open or open) and its
// count of consecutive failures.
func (p *Pool) Breaker() (state string, consecutiveFailures uint32) {
	return p.breaker.State().String(), p.breaker.Counts().ConsecutiveFailures
}

// RetryIn is how long until the open breaker, this replica's or another
// one's, lets a trial request through.
func (p *Pool) RetryIn() time.Duration {
	opened := time.Unix(0, p.openedAt.Load())
	return max(time.Until(opened.Add(p.cfg.BreakerCooldown)), p.shared.RetryIn(), 0)
}

// TokensAt is how many requests the local rate limit would let start at t.
func (p *Pool) TokensAt(t time.Time) float64 { return p.limiter.TokensAt(t) }

// LocalLimit is the rate limit this replica keeps to (Shared.LocalLimit).
func (p *Pool) LocalLimit() (perSecond float64, burst int) { return p.shared.LocalLimit() }

// InFlight is the number of requests to NSIP under way.
func (p *Pool) InFlight() int64 { return p.inFlight.Load() }

// Queued is the number of fetches waiting for their caller's turn.
func (p *Pool) Queued() int { return p.fair.Queued() }

// Waiting is the number of callers awaiting the fetch of key.
func (p *Pool) Waiting(key string) int { return p.waiting.Count(key) }

// Requests is the number of requests sent to NSIP, retries included.
func (p *Pool) Requests() int64 { return p.requests.Load() }

// Tokens is the number of rate-limit tokens taken, one per request.
func (p *Pool) Tokens() int64 { return p.tokens.Load() }

// Abandoned is the number of queued fetches dropped because every caller
// had gone.
func (p *Pool) Abandoned() int64 { return p.abandoned.Load() }

// Answers is the number of answers numbered so far, fetched or taken in
// from the shared tier.
func (p *Pool) Answers() uint64 { return p.answerIDs.Load() }

// LastSuccess is when NSIP last answered, in unix nanoseconds; 0 if never.
func (p *Pool) LastSuccess() int64 { return p.lastSuccess.Load() }

// Pauses are the endpoints NSIP asked us to leave alone, at now.
func (p *Pool) Pauses(now time.Time) []PauseHealth {
	return p.pauses.Health(p.cfg.MaxUpstreamPause, now)
}

// Drift is the record of answers in shapes the client did not recognize.
func (p *Pool) Drift() *Drift { return &p.drift }

// Shared is the replicas' shared tier; its methods do nothing when there is
// no Redis.
func (p *Pool) Shared() *Shared { return p.shared }
