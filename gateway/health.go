package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/health"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/source"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
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
	var stale string
	reads := source.Reads{Obtain: func(ctx context.Context, r lookup.Read) (toolcall.Obtained, error) {
		ob, err := g.obtain(ctx, r)
		if err == nil && ob.Source == cacheStale {
			stale = ob.StaleReason
		}
		return ob, err
	}}
	switch _, err := reads.LastUpdate(ctx, false); {
	case err != nil:
		return errors.New(g.mapAbout(toolerr.About{}, param.Sent{}, err).Problem)
	case stale != "":
		return fmt.Errorf("NSIP is failing (%s); only stale answers are available", stale)
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
