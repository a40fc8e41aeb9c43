package gateway

import "github.com/nsip-tools/nsip-mcp/gateway/metrics"

// metricsState is what a scrape reads of the gateway: counters the cache
// and breaker keep anyway, read when asked rather than copied on each change.
func (g *Gateway) metricsState() metrics.State {
	c := g.cache.Stats()
	breaker, _ := g.pool.Breaker()
	st := metrics.State{
		Breaker:          breaker,
		CacheEntries:     c.Entries,
		CacheStale:       c.StaleEntries,
		CacheBytes:       c.Bytes,
		CacheHits:        c.Hits,
		CacheMisses:      c.Misses,
		CacheEvictions:   c.Evictions,
		UpstreamFlight:   g.pool.InFlight(),
		UpstreamQueued:   g.pool.Queued(),
		AbandonedFetches: g.pool.Abandoned(),
	}
	st.BreedPassBytes, st.BreedPasses = g.passes.size()
	if r := g.pool.Shared().Redis(); r != nil {
		rs := r.Status()
		st.Redis, st.RedisRoundTrips = rs.State, rs.RoundTrips
		st.RedisRefused = map[string]uint64{
			"unauthenticated": rs.UnauthenticatedValues, "future": rs.FutureValues, "out_of_bound": rs.OutOfBoundValues,
		}
		st.RedisRefusedKeys = len(rs.Refused)
	}
	return st
}
