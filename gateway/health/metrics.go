package health

import "github.com/nsip-tools/nsip-mcp/gateway/metrics"

// MetricsState is what a scrape reads of the gateway: counters the cache
// and breaker keep anyway, read when asked rather than copied on each change.
func (r *Reporter) MetricsState() metrics.State {
	c := r.Cache.Stats()
	breaker, _ := r.Pool.Breaker()
	st := metrics.State{
		Breaker:          breaker,
		CacheEntries:     c.Entries,
		CacheStale:       c.StaleEntries,
		CacheBytes:       c.Bytes,
		CacheHits:        c.Hits,
		CacheMisses:      c.Misses,
		CacheEvictions:   c.Evictions,
		UpstreamFlight:   r.Pool.InFlight(),
		UpstreamQueued:   r.Pool.Queued(),
		AbandonedFetches: r.Pool.Abandoned(),
	}
	if rd := r.Pool.Shared().Redis(); rd != nil {
		rs := rd.Status()
		st.Redis, st.RedisRoundTrips = rs.State, rs.RoundTrips
		st.RedisRefused = map[string]uint64{
			"unauthenticated": rs.UnauthenticatedValues, "future": rs.FutureValues, "out_of_bound": rs.OutOfBoundValues,
		}
		st.RedisRefusedKeys = len(rs.Refused)
	}
	return st
}
