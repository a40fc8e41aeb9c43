// Package metrics defines every Prometheus metric the server exports, in one
// place, on a registry of the server's own: tests can then start many
// servers in one process and read exact values from each. Names start with
// nsip_mcp_ and carry their unit; labels take bounded values only (tool
// names, error codes, endpoints, status classes, transports, cache
// outcomes), never an LPN ID or a session.
//
// A nil *Metrics is valid and records nothing, so code paths need no checks.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

const namespace = "nsip_mcp"

// Latency buckets, in seconds: a cache hit answers in well under a
// millisecond, an NSIP round trip in tenths of a second to seconds, and a
// call may wait up to its 30 s budget.
var (
	callBuckets     = []float64{0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	upstreamBuckets = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	waitBuckets     = []float64{0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
)

// Metrics holds the server's metrics and the registry they are on.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	toolCalls        *prometheus.CounterVec
	toolDuration     *prometheus.HistogramVec
	upstreamRequests *prometheus.CounterVec
	upstreamDuration *prometheus.HistogramVec
	upstreamRetries  *prometheus.CounterVec
	rateLimitWait    *prometheus.HistogramVec
	tasksRunning     prometheus.Gauge
	tasksStarted     *prometheus.CounterVec

	state    *stateCollector
	sessions *sessionCollector

	// series are the tool-call series already looked up, by tool, outcome
	// and cache: resolving labels (hashing, a locked map) on every call
	// cost a cached call more than a map read.
	seriesMu sync.RWMutex
	series   map[[3]string]callSeries
}

// callSeries are the two series one tool call updates.
type callSeries struct {
	calls    prometheus.Counter
	duration prometheus.Observer
}

// New defines the metrics on reg, with the Go runtime's and the process's
// own collectors, and returns them. reg should be the server's own, not
// prometheus.DefaultRegisterer.
func New(reg *prometheus.Registry) *Metrics {
	m := &Metrics{
		reg: reg,
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "tool_calls_total",
			Help: "Tool calls answered, by tool and outcome: ok or the error code of the error result.",
		}, []string{"tool", "outcome"}),
		toolDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "tool_call_duration_seconds",
			Help:    "Time to answer a tool call, by tool and where the answer came from (hit, miss, stale, shared; none for an error).",
			Buckets: callBuckets,
		}, []string{"tool", "cache"}),
		upstreamRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "upstream_requests_total",
			Help: "HTTP requests sent to NSIP, retries included, by endpoint and status class (2xx, 3xx, 4xx, 429, 5xx, or timeout and network when no response came).",
		}, []string{"endpoint", "status_class"}),
		upstreamDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "upstream_request_duration_seconds",
			Help:    "Time of one HTTP request to NSIP, by endpoint.",
			Buckets: upstreamBuckets,
		}, []string{"endpoint"}),
		upstreamRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "upstream_retries_total",
			Help: "HTTP requests to NSIP that repeated a failed one, by endpoint.",
		}, []string{"endpoint"}),
		rateLimitWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "rate_limit_wait_seconds",
			Help:    "Time a fetch waited for the upstream rate limit before a request, by endpoint; one observation per HTTP request let through, retries included.",
			Buckets: waitBuckets,
		}, []string{"endpoint"}),
		tasksRunning: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "tasks_running",
			Help: "Analysis calls running as MCP tasks.",
		}),
		tasksStarted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "tasks_started_total",
			Help: "Analysis calls run as MCP tasks, by tool.",
		}, []string{"tool"}),
		state:    &stateCollector{},
		sessions: &sessionCollector{open: map[string]func() int64{}},
	}
	reg.MustRegister(
		m.toolCalls, m.toolDuration,
		m.upstreamRequests, m.upstreamDuration, m.upstreamRetries, m.rateLimitWait,
		m.tasksRunning, m.tasksStarted,
		m.state, m.sessions,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	// A scrape gathers every series; a few at once are plenty for any
	// number of scrapers, and more are answered 503 rather than piling up.
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4})
	return m
}

// ServeHTTP answers a scrape in the Prometheus text format (or OpenMetrics,
// when the scraper asks for it).
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.handler.ServeHTTP(w, r)
}

// ToolCall records one answered tool call. outcome is "ok" or the error
// code; cache is where the answer came from, ignored for an error.
func (m *Metrics) ToolCall(tool, outcome, cache string, took time.Duration) {
	if m == nil {
		return
	}
	if outcome != "ok" || cache == "" {
		cache = "none" // no answer was served
	}
	s := m.callSeries(tool, outcome, cache)
	s.calls.Inc()
	s.duration.Observe(took.Seconds())
}

// callSeries returns the series of a call, looking their labels up once.
// Their number is bounded by the tools, outcomes and sources, which the
// registry holds anyway.
func (m *Metrics) callSeries(tool, outcome, cache string) callSeries {
	k := [3]string{tool, outcome, cache}
	m.seriesMu.RLock()
	s, ok := m.series[k]
	m.seriesMu.RUnlock()
	if ok {
		return s
	}
	s = callSeries{m.toolCalls.WithLabelValues(tool, outcome), m.toolDuration.WithLabelValues(tool, cache)}
	m.seriesMu.Lock()
	if m.series == nil {
		m.series = map[[3]string]callSeries{}
	}
	m.series[k] = s
	m.seriesMu.Unlock()
	return s
}

// RateLimitWait records how long a request to endpoint, a retry included,
// waited for the rate limit before it was let through.
func (m *Metrics) RateLimitWait(endpoint string, waited time.Duration) {
	if m == nil {
		return
	}
	m.rateLimitWait.WithLabelValues(endpoint).Observe(waited.Seconds())
}

// TaskStarted records an analysis started as an MCP task; the function it
// returns records its end.
func (m *Metrics) TaskStarted(tool string) (done func()) {
	if m == nil {
		return func() {}
	}
	m.tasksStarted.WithLabelValues(tool).Inc()
	m.tasksRunning.Inc()
	return m.tasksRunning.Dec
}

type endpointKey struct{}

// WithEndpoint tags ctx with the endpoint, the tool's method name, that its
// upstream requests are counted under.
func WithEndpoint(ctx context.Context, endpoint string) context.Context {
	return context.WithValue(ctx, endpointKey{}, endpoint)
}

// UpstreamAttempt records one HTTP request to NSIP; it is the client's
// request hook (nsip.WithRequestHook). The endpoint is the one ctx was
// tagged with, else the API path's name (nsip.EndpointName), the same.
func (m *Metrics) UpstreamAttempt(ctx context.Context, a nsip.RequestInfo) {
	if m == nil || a.Probe { // a check of the base URL, not a caller's request
		return
	}
	endpoint, ok := ctx.Value(endpointKey{}).(string)
	if !ok {
		endpoint = nsip.EndpointName(a.Endpoint)
	}
	var kind nsip.Kind
	if e, ok := a.Err.(*nsip.Error); ok {
		kind = e.Kind
	}
	m.upstreamRequests.WithLabelValues(endpoint, StatusClass(a.Status, kind)).Inc()
	m.upstreamDuration.WithLabelValues(endpoint).Observe(a.Latency.Seconds())
	if a.Attempt > 1 {
		m.upstreamRetries.WithLabelValues(endpoint).Inc()
	}
}

// StatusClass is the status_class label of a request that got status, or
// failed with kind when no response came. 429 has a class of its own: it is
// NSIP asking us to slow down, which the other 4xx are not.
func StatusClass(status int, kind nsip.Kind) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "429"
	case status >= 100 && status < 600:
		return strconv.Itoa(status/100) + "xx"
	case kind == nsip.KindTimeout:
		return "timeout"
	}
	return "network"
}

// State is what the gateway reports at scrape time.
type State struct {
	Breaker          string // closed, half-open or open
	CacheEntries     int    // fresh entries
	CacheStale       int    // expired entries kept as fallbacks
	CacheBytes       int64
	CacheHits        uint64
	CacheMisses      uint64
	CacheEvictions   uint64
	UpstreamFlight   int64 // requests to NSIP under way
	UpstreamQueued   int   // fetches waiting for their turn
	AbandonedFetches int64 // fetches dropped because every caller had gone
	// Redis is the shared tier's state (up, slow, refusing_writes, down);
	// "" when the server shares nothing, and then no series is reported.
	Redis           string
	RedisRoundTrips uint64 // commands and pipelines sent to Redis
	// RedisRefused counts the values read from Redis and not believed, by
	// reason (unauthenticated, future, out_of_bound); RedisRefusedKeys is
	// how many keys held such a value at their latest read.
	RedisRefused     map[string]uint64
	RedisRefusedKeys int
	// BreedPassBytes and BreedPasses are what the kept breed passes take
	// and how many there are.
	BreedPassBytes int64
	BreedPasses    int
}

// WatchState has each scrape read the gateway's state from read, so that
// gauges and counters kept elsewhere (the cache's, the breaker's) are
// current without being copied on every change.
func (m *Metrics) WatchState(read func() State) {
	if m == nil {
		return
	}
	m.state.mu.Lock()
	m.state.read = read
	m.state.mu.Unlock()
}

// WatchSessions has each scrape report open() as the open sessions of
// transport. A later call for the same transport replaces the earlier.
func (m *Metrics) WatchSessions(transport string, open func() int64) {
	if m == nil {
		return
	}
	m.sessions.mu.Lock()
	m.sessions.open[transport] = open
	m.sessions.mu.Unlock()
}

var (
	breakerDesc = prometheus.NewDesc(namespace+"_breaker_state",
		"The circuit breaker in front of NSIP: 1 for the state it is in, 0 for the others.", []string{"state"}, nil)
	cacheEntriesDesc = prometheus.NewDesc(namespace+"_cache_entries",
		"Answers in the cache, by tier: fresh, or stale (expired, kept as a fallback for when NSIP fails).", []string{"tier"}, nil)
	cacheBytesDesc = prometheus.NewDesc(namespace+"_cache_bytes",
		"Estimated bytes the cache holds, both tiers.", nil, nil)
	cacheHitsDesc = prometheus.NewDesc(namespace+"_cache_hits_total",
		"Cache lookups that found a fresh answer.", nil, nil)
	cacheMissesDesc = prometheus.NewDesc(namespace+"_cache_misses_total",
		"Cache lookups that found none.", nil, nil)
	cacheEvictionsDesc = prometheus.NewDesc(namespace+"_cache_evictions_total",
		"Cache entries dropped to stay within the entry and byte bounds.", nil, nil)
	inFlightDesc = prometheus.NewDesc(namespace+"_upstream_in_flight",
		"Requests to NSIP under way.", nil, nil)
	queuedDesc = prometheus.NewDesc(namespace+"_upstream_queued",
		"Fetches waiting for their connection's turn at NSIP.", nil, nil)
	abandonedDesc = prometheus.NewDesc(namespace+"_upstream_abandoned_total",
		"Queued fetches dropped because every caller waiting for them had gone.", nil, nil)
	redisStateDesc = prometheus.NewDesc(namespace+"_redis_state",
		"The shared Redis as this replica sees it: 1 for the state it is in (up, slow, refusing_writes, down), 0 for the others. Any but up means the replica goes on alone.", []string{"state"}, nil)
	redisRoundTripsDesc = prometheus.NewDesc(namespace+"_redis_round_trips_total",
		"Commands and pipelines sent to the shared Redis, each one round trip.", nil, nil)
	redisRefusedDesc = prometheus.NewDesc(namespace+"_redis_refused_values_total",
		"Values read from the shared Redis and not believed: unauthenticated (no valid MAC), future (stamped ahead), out_of_bound (past a local bound: NSIP_MAX_PAUSE, the breaker's cooldown, the rate's period).", []string{"reason"}, nil)
	redisRefusedKeysDesc = prometheus.NewDesc(namespace+"_redis_refused_keys",
		"Redis control keys (pauses, breaker news, the rate state) whose latest read was not believed; above 0, /readyz says degraded.", nil, nil)
	breedPassBytesDesc = prometheus.NewDesc(namespace+"_breed_pass_bytes",
		"Estimated bytes the kept breed passes hold (every animal of a breed under one evaluation, for percentiles), within a quarter of NSIP_CACHE_MAX_BYTES.", nil, nil)
	breedPassesDesc = prometheus.NewDesc(namespace+"_breed_passes",
		"Breed passes kept, one per breed and evaluation.", nil, nil)
	sessionsDesc = prometheus.NewDesc(namespace+"_sessions",
		"Open MCP sessions (stdio, SSE streams, streamable HTTP sessions, WebSocket connections), by transport.", []string{"transport"}, nil)
)

// breakerStates are the values of breaker_state's label, all always
// reported so that a query for one is never empty.
var breakerStates = []string{"closed", "half-open", "open"}

// redisStates are the values of redis_state's label (cache.RedisUp…).
var redisStates = []string{"up", "slow", "refusing_writes", "down"}

// redisRefusals are the values of redis_refused_values_total's label.
var redisRefusals = []string{"unauthenticated", "future", "out_of_bound"}

type stateCollector struct {
	mu   sync.Mutex
	read func() State
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{breakerDesc, cacheEntriesDesc, cacheBytesDesc, cacheHitsDesc, cacheMissesDesc,
		cacheEvictionsDesc, inFlightDesc, queuedDesc, abandonedDesc, redisStateDesc, redisRoundTripsDesc,
		redisRefusedDesc, redisRefusedKeysDesc, breedPassBytesDesc, breedPassesDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	read := c.read
	c.mu.Unlock()
	if read == nil {
		return
	}
	s := read()
	for _, st := range breakerStates {
		v := 0.0
		if st == s.Breaker {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(breakerDesc, prometheus.GaugeValue, v, st)
	}
	ch <- prometheus.MustNewConstMetric(cacheEntriesDesc, prometheus.GaugeValue, float64(s.CacheEntries), "fresh")
	ch <- prometheus.MustNewConstMetric(cacheEntriesDesc, prometheus.GaugeValue, float64(s.CacheStale), "stale")
	ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(s.CacheBytes))
	ch <- prometheus.MustNewConstMetric(cacheHitsDesc, prometheus.CounterValue, float64(s.CacheHits))
	ch <- prometheus.MustNewConstMetric(cacheMissesDesc, prometheus.CounterValue, float64(s.CacheMisses))
	ch <- prometheus.MustNewConstMetric(cacheEvictionsDesc, prometheus.CounterValue, float64(s.CacheEvictions))
	ch <- prometheus.MustNewConstMetric(inFlightDesc, prometheus.GaugeValue, float64(s.UpstreamFlight))
	ch <- prometheus.MustNewConstMetric(queuedDesc, prometheus.GaugeValue, float64(s.UpstreamQueued))
	ch <- prometheus.MustNewConstMetric(abandonedDesc, prometheus.CounterValue, float64(s.AbandonedFetches))
	ch <- prometheus.MustNewConstMetric(breedPassBytesDesc, prometheus.GaugeValue, float64(s.BreedPassBytes))
	ch <- prometheus.MustNewConstMetric(breedPassesDesc, prometheus.GaugeValue, float64(s.BreedPasses))
	if s.Redis == "" {
		return
	}
	for _, st := range redisStates {
		v := 0.0
		if st == s.Redis {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(redisStateDesc, prometheus.GaugeValue, v, st)
	}
	ch <- prometheus.MustNewConstMetric(redisRoundTripsDesc, prometheus.CounterValue, float64(s.RedisRoundTrips))
	for _, reason := range redisRefusals {
		ch <- prometheus.MustNewConstMetric(redisRefusedDesc, prometheus.CounterValue, float64(s.RedisRefused[reason]), reason)
	}
	ch <- prometheus.MustNewConstMetric(redisRefusedKeysDesc, prometheus.GaugeValue, float64(s.RedisRefusedKeys))
}

type sessionCollector struct {
	mu   sync.Mutex
	open map[string]func() int64
}

func (c *sessionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sessionsDesc }

func (c *sessionCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for transport, open := range c.open {
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(open()), transport)
	}
}
