package gateway

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

// stats are the counters behind Health. The maps are filled once in init
// and only read afterwards, so they need no lock.
type stats struct {
	calls  map[string]*atomic.Int64 // by tool name
	errors map[string]*atomic.Int64 // by error code

	mu             sync.Mutex
	summarizations int64
	reductionSum   float64 // sum of 1 - tokens/original over summarized results
}

func (s *stats) init() {
	s.calls = make(map[string]*atomic.Int64, len(toolDefs))
	for _, d := range toolDefs {
		s.calls[d.name] = new(atomic.Int64)
	}
	for _, a := range analyses {
		s.calls[a.Name] = new(atomic.Int64)
	}
	s.errors = make(map[string]*atomic.Int64, len(errorCodes))
	for _, c := range errorCodes {
		s.errors[c] = new(atomic.Int64)
	}
}

func (s *stats) summarized(tokens, original int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summarizations++
	if original > 0 {
		s.reductionSum += 1 - float64(tokens)/float64(original)
	}
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
	Shared              *SharedHealth          `json:"shared,omitempty"`
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

func (g *Gateway) capacity() Capacity {
	tokens := g.pool.TokensAt(time.Now())
	limit, burst := g.pool.LocalLimit()
	return Capacity{
		TokensAvailable: math.Round(max(tokens, 0)*100) / 100,
		LimitPerSecond:  limit,
		Burst:           burst,
		InFlight:        g.pool.InFlight(),
		MaxConcurrent:   g.cfg.MaxConcurrentUpstream,
		Queued:          g.pool.Queued(),
	}
}

// Health reports the cache, breaker, rate limit and call counters.
func (g *Gateway) Health() Health {
	h := Health{
		Cache:            g.cache.Stats(),
		RateLimit:        g.capacity(),
		UpstreamPauses:   g.pool.Pauses(time.Now()),
		MaxPauseSeconds:  upstream.Seconds(g.cfg.MaxUpstreamPause),
		UpstreamRequests: g.pool.Requests(),
		AbandonedFetches: g.pool.Abandoned(),
		CallsByTool:      make(map[string]int64, len(g.stats.calls)),
		FormatDrift:      g.pool.Drift().Snapshot(),
		ErrorsByCode:     make(map[string]int64, len(g.stats.errors)),
		Shared:           g.pool.Shared().Health(),
	}
	st, failures := g.pool.Breaker()
	h.Breaker = BreakerHealth{State: st, ConsecutiveFailures: failures}
	if g.pool.BreakerOpen() {
		h.Breaker.RetryInSeconds = upstream.Seconds(g.retryIn())
	}
	if ns := g.pool.LastSuccess(); ns != 0 {
		t := time.Unix(0, ns).UTC()
		h.LastUpstreamSuccess = &t
	}
	for name, n := range g.stats.calls {
		h.CallsByTool[name] = n.Load()
	}
	for code, n := range g.stats.errors {
		h.ErrorsByCode[code] = n.Load()
	}
	g.stats.mu.Lock()
	h.Summarizations = g.stats.summarizations
	if h.Summarizations > 0 {
		h.MeanReduction = math.Round(g.stats.reductionSum/float64(h.Summarizations)*1000) / 1000
	}
	g.stats.mu.Unlock()
	return h
}

// Ready reports whether NSIP can be reached. An upstream success within
// ReadyMaxAge is enough; otherwise it asks for the last-update date through
// the pipeline (so a cached answer counts, and the breaker and rate limit
// apply). The error says why the gateway is not ready, or, as a
// *DegradedError, why it serves without the replicas' shared state.
func (g *Gateway) Ready(ctx context.Context) error {
	if g.pool.BreakerOpen() {
		return fmt.Errorf("NSIP unavailable after repeated failures; retrying in %d s", upstream.Seconds(g.retryIn()))
	}
	if ns := g.pool.LastSuccess(); ns != 0 && time.Since(time.Unix(0, ns)) <= g.cfg.ReadyMaxAge {
		return g.pool.Shared().Readiness(ctx)
	}
	o := g.run(ctx, lastUpdateDef, map[string]any{})
	switch {
	case o.err != nil:
		return errors.New(o.err.Problem)
	case o.source == cacheStale:
		return fmt.Errorf("NSIP is failing (%s); only stale answers are available", o.staleReason)
	}
	return g.pool.Shared().Readiness(ctx)
}

// SharedHealth is the shared mode's state in Health (upstream.Shared).
type SharedHealth = upstream.SharedHealth

// DegradedError is what Ready returns when the server answers calls but
// without the replicas' shared state (upstream.DegradedError).
type DegradedError = upstream.DegradedError
