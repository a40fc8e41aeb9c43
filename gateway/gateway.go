package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/argcheck"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/elicit"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/health"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/passes"
	"github.com/nsip-tools/nsip-mcp/gateway/session"
	"github.com/nsip-tools/nsip-mcp/gateway/tasks"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Upstream is the NSIP client as the gateway uses it (lookup.Upstream);
// *nsip.Client satisfies it, and tests substitute stand-ins.
type Upstream = lookup.Upstream

// Config tunes the pipeline. New fills zero fields from DefaultConfig and
// rejects negative ones.
type Config struct {
	Budget                int           // tokens a result may take before it is summarized
	MaxBudget             int           // the most a call may ask for with max_tokens
	CacheTTL              time.Duration // how long an answer is served from the cache
	StaleTTL              time.Duration // how much longer it is kept as a fallback for when NSIP fails
	CacheMaxEntries       int
	CacheMaxBytes         int64
	RateLimit             float64 // upstream requests per second
	RateBurst             int     // requests allowed at once after a quiet spell
	MaxConcurrentUpstream int
	BreakerFailures       uint32        // consecutive failures that open the breaker
	BreakerCooldown       time.Duration // how long it stays open before a trial request
	CallTimeout           time.Duration // budget for one upstream fetch, waiting for capacity included
	// AnalysisTimeout bounds one analysis call, all its lookups together;
	// zero means CallTimeout, so that every call answers within it.
	AnalysisTimeout  time.Duration
	ProgressInterval time.Duration // progress notifications while a call runs; 0 uses the default
	ReadyMaxAge      time.Duration // Ready trusts an upstream success this recent without asking again
	MaxUpstreamPause time.Duration // longest wait a 429's Retry-After may impose on its endpoint
	// EvaluationRecheck is how long NSIP's answer to a fresh read of its
	// evaluation date stands for now (a held breed pass then answers with
	// no request); unlike the rest, 0 is no default but every call reads.
	EvaluationRecheck time.Duration
	// FullMaxBytes bounds the complete data one summarized answer links
	// (gateway/full); all links together hold at most 4 times as much.
	FullMaxBytes int64
	// FullUnreadMaxBytes is how much of a client's earlier answers may lie
	// unread for a full-answer link's read to be served (gateway/full).
	FullUnreadMaxBytes int64
	Logger             *slog.Logger
	Now                func() time.Time // the cache's clock

	// Shared, when set, is the Redis that replicas share a cache tier, the
	// rate limit, miss collapsing and breaker news through (upstream.Shared).
	Shared       *cache.Redis
	Replicas     int           // replicas sharing RateLimit; each takes 1/Replicas when alone
	CollapseWait time.Duration // how long a miss waits for another replica's fetch of it

	// Metrics, when set, records calls, fetches and rate-limit waits, and
	// reads the cache and breaker at each scrape. nil records nothing.
	Metrics *metrics.Metrics
	// Toolsets are the groups of tools listed and callable (toolsets.All);
	// empty means all of them.
	Toolsets []string
	// NoStructured leaves out the structured copy of answers: tools
	// declare no output schema and return no structuredContent, for hosts
	// that show their model both it and the text (NSIP_STRUCTURED=off).
	NoStructured bool

	// The analyses run as MCP tasks on request (gateway/tasks): tasks one
	// client may hold at once, tasks held in all, and how long a task is
	// kept after its creation at most.
	TasksPerClient int
	TasksMax       int
	TaskTTL        time.Duration
}

// DefaultConfig is polite to NSIP and sized for a 512 MB host.
func DefaultConfig() Config {
	return Config{
		Budget:                summarize.DefaultBudget,
		MaxBudget:             defaultMaxBudget,
		CacheTTL:              cache.DefaultTTL,
		StaleTTL:              cache.DefaultStaleTTL,
		CacheMaxEntries:       cache.DefaultMaxEntries,
		CacheMaxBytes:         cache.DefaultMaxBytes,
		RateLimit:             5,
		RateBurst:             10,
		MaxConcurrentUpstream: 4,
		BreakerFailures:       5,
		BreakerCooldown:       30 * time.Second,
		CallTimeout:           30 * time.Second,
		ProgressInterval:      2 * time.Second,
		ReadyMaxAge:           5 * time.Minute,
		Replicas:              1,
		CollapseWait:          5 * time.Second,
		MaxUpstreamPause:      upstream.DefaultMaxUpstreamPause,
		EvaluationRecheck:     time.Minute,
		FullMaxBytes:          full.DefaultMaxBytes,
		FullUnreadMaxBytes:    full.DefaultUnreadBytes,
		Toolsets:              toolsets.All(),
		TasksPerClient:        tasks.DefaultPerCaller,
		TasksMax:              tasks.DefaultMax,
		TaskTTL:               tasks.DefaultTTL,
	}
}

// Gateway runs tool calls against NSIP. It is safe for concurrent use.
type Gateway struct {
	up     Upstream
	sum    *summarize.Summarizer
	cfg    Config
	log    *slog.Logger
	cache  *cache.Cache
	flight singleflight.Group // profile fits under way, so that callers of one profile share a fit
	// pool obtains NSIP's answers: cache, collapse, breaker, rate limit,
	// turns, the shared tier and the fetch (gateway/upstream).
	pool *upstream.Pool

	fitSlots *semaphore.Weighted                      // fits running at once, at most GOMAXPROCS
	fitFunc  func(summarize.Request) summarize.Result // sum.Fit; tests wrap it to watch fits

	fitWaiters atomic.Int64 // profile calls waiting on a shared fit
	// unix nanos of the last connection failure blamed on NSIP_BASE_URL; while
	// it is later than the last success, an open breaker says so too.
	misconfiguredAt atomic.Int64

	stats    health.Stats
	seen     session.LPNs // LPN IDs each session has met, for completions
	features *features.Features
	intro    string        // the instructions before the evaluation date, for the tools offered
	tasks    *tasks.Store  // the analyses run as MCP tasks, each its creator's
	full     *full.Store   // the complete data behind summarized answers, per caller
	running  session.Calls // the calls running in each session, ended with it
	forms    *elicit.Asker // puts forms to users for the choices only they can make
	// unknown answers calls of tools not offered; built once, since
	// mcp-go runs its middleware on every call.
	unknown *argcheck.UnknownTools
	// sources are each tool's source of reads, by its place in registry:
	// made once, since a source holds only the gateway and the tool, so a
	// call allocates none.
	sources []callSource
	// memos keep each tool's calls read from argument texts sent
	// recently, by its place in registry (Gateway.arguments); a
	// gateway's own, as what is valid depends on its settings.
	memos []*toolcall.Memo

	passes *passes.Store // breed passes kept between calls, and read in the background
	// passFilled, when set, hears of each background pass's end, by key,
	// once the store has recorded how it ended.
	passFilled func(key string)
}

// newPool is the upstream pool over the local tier c.
func (g *Gateway) newPool(c *cache.Cache) *upstream.Pool {
	cfg := g.cfg
	return upstream.NewPool(upstream.Config{
		Cache: c, Codec: sharedCodec, Shared: cfg.Shared, Budget: cfg.Budget,
		RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst, Replicas: cfg.Replicas,
		MaxConcurrent: cfg.MaxConcurrentUpstream, BreakerFailures: cfg.BreakerFailures, BreakerCooldown: cfg.BreakerCooldown,
		CallTimeout: cfg.CallTimeout, CollapseWait: cfg.CollapseWait, MaxUpstreamPause: cfg.MaxUpstreamPause,
		CacheTTL: cfg.CacheTTL, StaleTTL: cfg.StaleTTL, Now: cfg.Now, Logger: cfg.Logger, Metrics: cfg.Metrics,
		Detach: calllog.Detach,
	})
}

func withDefaults(cfg Config) (Config, error) {
	d := DefaultConfig()
	if cfg.Budget < 0 || cfg.MaxBudget < 0 || cfg.CacheTTL < 0 || cfg.StaleTTL < 0 || cfg.CacheMaxEntries < 0 || cfg.CacheMaxBytes < 0 ||
		cfg.RateLimit < 0 || cfg.RateBurst < 0 || cfg.MaxConcurrentUpstream < 0 || cfg.BreakerCooldown < 0 ||
		cfg.CallTimeout < 0 || cfg.ProgressInterval < 0 || cfg.ReadyMaxAge < 0 || cfg.Replicas < 0 || cfg.CollapseWait < 0 ||
		cfg.MaxUpstreamPause < 0 || cfg.TasksPerClient < 0 || cfg.TasksMax < 0 || cfg.TaskTTL < 0 || cfg.AnalysisTimeout < 0 ||
		cfg.FullMaxBytes < 0 || cfg.FullUnreadMaxBytes < 0 || cfg.EvaluationRecheck < 0 {
		return cfg, errors.New("gateway: configuration values must not be negative")
	}
	setDefault(&cfg.Budget, d.Budget)
	setDefault(&cfg.MaxBudget, d.MaxBudget)
	if cfg.MaxBudget > MaxTokenCap {
		return cfg, fmt.Errorf("gateway: MaxBudget %d is above %d", cfg.MaxBudget, MaxTokenCap)
	}
	setDefault(&cfg.CacheTTL, d.CacheTTL)
	setDefault(&cfg.StaleTTL, d.StaleTTL)
	setDefault(&cfg.CacheMaxEntries, d.CacheMaxEntries)
	setDefault(&cfg.CacheMaxBytes, d.CacheMaxBytes)
	setDefault(&cfg.RateLimit, d.RateLimit)
	setDefault(&cfg.RateBurst, d.RateBurst)
	setDefault(&cfg.MaxConcurrentUpstream, d.MaxConcurrentUpstream)
	setDefault(&cfg.BreakerFailures, d.BreakerFailures)
	setDefault(&cfg.BreakerCooldown, d.BreakerCooldown)
	setDefault(&cfg.CallTimeout, d.CallTimeout)
	setDefault(&cfg.AnalysisTimeout, cfg.CallTimeout)
	setDefault(&cfg.ProgressInterval, d.ProgressInterval)
	setDefault(&cfg.ReadyMaxAge, d.ReadyMaxAge)
	setDefault(&cfg.Replicas, d.Replicas)
	setDefault(&cfg.CollapseWait, d.CollapseWait)
	setDefault(&cfg.MaxUpstreamPause, d.MaxUpstreamPause)
	setDefault(&cfg.TasksPerClient, d.TasksPerClient)
	setDefault(&cfg.TasksMax, d.TasksMax)
	setDefault(&cfg.TaskTTL, d.TaskTTL)
	setDefault(&cfg.FullMaxBytes, d.FullMaxBytes)
	setDefault(&cfg.FullUnreadMaxBytes, d.FullUnreadMaxBytes)
	ts, err := toolsets.Check(cfg.Toolsets)
	if err != nil {
		return cfg, err
	}
	cfg.Toolsets = ts
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg, nil
}

func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

// retryIn is how long until the open breaker lets a trial request through.
func (g *Gateway) retryIn() time.Duration { return g.pool.RetryIn() }

// sharedCodec writes and reads the replicas' shared records of answers: it
// knows each lookup tool's model, as the tool's definition declares it.
var sharedCodec = upstream.NewCodec(lookup.Models()...)

// MaxTokenCap is the most tokens any call may ask for with max_tokens,
// whatever the server's configured cap.
const MaxTokenCap = 25000

// minMaxTokens is the smallest max_tokens: below it a summary cannot hold
// one row of a page.
const minMaxTokens = 256

// defaultMaxBudget is the server's default cap on max_tokens.
const defaultMaxBudget = 8000
