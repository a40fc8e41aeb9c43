package health

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

// Pool is what the reports read of the upstream pool (*upstream.Pool).
type Pool interface {
	TokensAt(t time.Time) float64
	LocalLimit() (perSecond float64, burst int)
	InFlight() int64
	Queued() int
	Pauses(now time.Time) []upstream.PauseHealth
	Requests() int64
	Abandoned() int64
	Drift() *upstream.Drift
	Shared() *upstream.Shared
	Breaker() (state string, consecutiveFailures uint32)
	BreakerOpen() bool
	RetryIn() time.Duration
	LastSuccess() int64 // unix nanos, 0 before the first success
}

// Cache is what the reports read of the cache (*cache.Cache).
type Cache interface {
	Stats() cache.Stats
}

// Reporter reads the gateway's state for monitoring.
type Reporter struct {
	Cache Cache
	Pool  Pool
	Stats *Stats
	// MaxConcurrent and MaxPause are the settings the rate limit and the
	// pauses are reported against (NSIP_MAX_CONCURRENT, NSIP_MAX_PAUSE).
	MaxConcurrent int
	MaxPause      time.Duration
	// ReadyMaxAge is how recent an upstream success must be for Ready to
	// trust it without asking NSIP.
	ReadyMaxAge time.Duration
	// Probe asks NSIP for its last-update date through the call path (so a
	// cached answer counts, and the breaker and rate limit apply); its
	// error says why that failed, or that only stale answers are left.
	Probe func(ctx context.Context) error
}

// Health is a snapshot of the gateway for monitoring (/healthz).
type Health struct {
	Cache               cache.Stats            `json:"cache"`
	Breaker             BreakerHealth          `json:"breaker"`
	RateLimit           Capacity               `json:"rate_limit"`
	UpstreamPauses      []upstream.PauseHealth `json:"upstream_pauses"`   // endpoints NSIP asked us to leave alone (429)
	MaxPauseSeconds     int                    `json:"max_pause_seconds"` // the cap on such a pause
	LastUpstreamSuccess *time.Time             `json:"last_upstream_success,omitempty"`
	UpstreamRequests    int64                  `json:"upstream_requests"`
	AbandonedFetches    int64                  `json:"abandoned_fetches"` // dropped from the queue: every caller had gone
	CallsByTool         map[string]int64       `json:"calls_by_tool"`
	ErrorsByCode        map[string]int64       `json:"errors_by_code"`
	Summarizations      int64                  `json:"summarizations"`
	MeanReduction       float64                `json:"mean_reduction"` // mean token reduction of summarized results, 0..1
	Shared              *upstream.SharedHealth `json:"shared,omitempty"`
	// FormatDrift lists the answers NSIP sent in shapes the client did not
	// recognize, per endpoint and shape; empty while NSIP answers as known.
	FormatDrift []upstream.DriftEntry `json:"format_drift"`
}

// BreakerHealth is the circuit breaker's state.
type BreakerHealth struct {
	State               string `json:"state"` // closed, half-open or open
	ConsecutiveFailures uint32 `json:"consecutive_failures"`
	RetryInSeconds      int    `json:"retry_in_seconds,omitempty"` // while open
}

// Capacity is the upstream rate limit's state, reported in Health and in
// rate_limited errors.
type Capacity struct {
	TokensAvailable float64 `json:"tokens_available"` // requests that could start now
	LimitPerSecond  float64 `json:"limit_per_second"`
	Burst           int     `json:"burst"`
	InFlight        int64   `json:"in_flight"`
	MaxConcurrent   int     `json:"max_concurrent"`
	Queued          int     `json:"queued"` // fetches waiting for their client's turn
}

// Capacity is the rate limit's state now.
func (r *Reporter) Capacity() Capacity {
	tokens := r.Pool.TokensAt(time.Now())
	limit, burst := r.Pool.LocalLimit()
	return Capacity{
		TokensAvailable: math.Round(max(tokens, 0)*100) / 100,
		LimitPerSecond:  limit,
		Burst:           burst,
		InFlight:        r.Pool.InFlight(),
		MaxConcurrent:   r.MaxConcurrent,
		Queued:          r.Pool.Queued(),
	}
}

// Health reports the cache, breaker, rate limit and call counters.
func (r *Reporter) Health() Health {
	p, st := r.Pool, r.Stats
	h := Health{
		Cache:            r.Cache.Stats(),
		RateLimit:        r.Capacity(),
		UpstreamPauses:   p.Pauses(time.Now()),
		MaxPauseSeconds:  upstream.Seconds(r.MaxPause),
		UpstreamRequests: p.Requests(),
		AbandonedFetches: p.Abandoned(),
		CallsByTool:      make(map[string]int64, len(st.calls)),
		FormatDrift:      p.Drift().Snapshot(),
		ErrorsByCode:     make(map[string]int64, len(st.errors)),
		Shared:           p.Shared().Health(),
	}
	state, failures := p.Breaker()
	h.Breaker = BreakerHealth{State: state, ConsecutiveFailures: failures}
	if p.BreakerOpen() {
		h.Breaker.RetryInSeconds = upstream.Seconds(p.RetryIn())
	}
	if ns := p.LastSuccess(); ns != 0 {
		t := time.Unix(0, ns).UTC()
		h.LastUpstreamSuccess = &t
	}
	for name, n := range st.calls {
		h.CallsByTool[name] = n.Load()
	}
	for code, n := range st.errors {
		h.ErrorsByCode[code] = n.Load()
	}
	st.mu.Lock()
	h.Summarizations = st.summarizations
	if h.Summarizations > 0 {
		h.MeanReduction = math.Round(st.reductionSum/float64(h.Summarizations)*1000) / 1000
	}
	st.mu.Unlock()
	return h
}

// Ready reports whether NSIP can be reached. An upstream success within
// ReadyMaxAge is enough; otherwise it asks Probe. The error says why the
// gateway is not ready, or, as an *upstream.DegradedError, why it serves
// without the replicas' shared state.
func (r *Reporter) Ready(ctx context.Context) error {
	if r.Pool.BreakerOpen() {
		return fmt.Errorf("NSIP unavailable after repeated failures; retrying in %d s", upstream.Seconds(r.Pool.RetryIn()))
	}
	if ns := r.Pool.LastSuccess(); ns != 0 && time.Since(time.Unix(0, ns)) <= r.ReadyMaxAge {
		return r.Pool.Shared().Readiness(ctx)
	}
	if err := r.Probe(ctx); err != nil {
		return err
	}
	return r.Pool.Shared().Readiness(ctx)
}
