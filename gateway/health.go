package gateway

import (
	"github.com/nsip-tools/nsip-mcp/gateway/health"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
)

// Health is a snapshot of the gateway for monitoring (/healthz).
type Health = health.Health

// reporter reads the gateway's state for monitoring (gateway/health);
// Ready gives it the probe that asks NSIP.
func (g *Gateway) reporter() *health.Reporter {
	return &health.Reporter{
		Cache: g.cache, Pool: g.pool, Stats: &g.stats,
		MaxConcurrent: g.cfg.MaxConcurrentUpstream, MaxPause: g.cfg.MaxUpstreamPause, ReadyMaxAge: g.cfg.ReadyMaxAge,
	}
}

func (g *Gateway) capacity() health.Capacity { return g.reporter().Capacity() }

// Health reports the cache, breaker, rate limit and call counters.
func (g *Gateway) Health() Health { return g.reporter().Health() }

// metricsState is what a scrape reads of the gateway.
func (g *Gateway) metricsState() metrics.State {
	st := g.reporter().MetricsState()
	st.BreedPassBytes, st.BreedPasses = g.passes.Size()
	return st
}
