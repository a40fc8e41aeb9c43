package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/health"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
)

// Health is a snapshot of the gateway for monitoring (/healthz).
type Health = health.Health

// reporter reads the gateway's state for monitoring (gateway/health).
func (g *Gateway) reporter() *health.Reporter {
	return &health.Reporter{
		Cache: g.cache, Pool: g.pool, Stats: &g.stats,
		MaxConcurrent: g.cfg.MaxConcurrentUpstream, MaxPause: g.cfg.MaxUpstreamPause, ReadyMaxAge: g.cfg.ReadyMaxAge,
		Probe: g.probe,
	}
}

// probe asks for the last-update date through the pipeline, for Ready.
func (g *Gateway) probe(ctx context.Context) error {
	r, err := lookup.LastUpdate.Keyed(lookup.NoArgs{})
	if err != nil {
		return err
	}
	o := g.pass(ctx, r, toolcall.Call{Args: r.Args})
	switch {
	case o.Err != nil:
		return errors.New(o.Err.Problem)
	case o.Source == cacheStale:
		return fmt.Errorf("NSIP is failing (%s); only stale answers are available", o.StaleReason)
	}
	return nil
}

func (g *Gateway) capacity() health.Capacity { return g.reporter().Capacity() }

// Health reports the cache, breaker, rate limit and call counters.
func (g *Gateway) Health() Health { return g.reporter().Health() }

// Ready reports whether NSIP can be reached. An upstream success within
// ReadyMaxAge is enough; otherwise it asks for the last-update date through
// the pipeline (so a cached answer counts, and the breaker and rate limit
// apply). The error says why the gateway is not ready, or, as a
// *DegradedError, why it serves without the replicas' shared state.
func (g *Gateway) Ready(ctx context.Context) error { return g.reporter().Ready(ctx) }

// metricsState is what a scrape reads of the gateway.
func (g *Gateway) metricsState() metrics.State {
	st := g.reporter().MetricsState()
	st.BreedPassBytes, st.BreedPasses = g.passes.Size()
	return st
}
