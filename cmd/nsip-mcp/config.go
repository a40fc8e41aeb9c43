package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport"
)

// Config is everything the command reads from its environment.
type Config struct {
	Transport      string // stdio, http-sse or websocket
	Host           string
	Port           int
	HealthAddr     string // stdio only; empty means no health listener
	AllowedOrigins []string
	AuthToken      string // bearer token the network transports require; empty means none
	// MaxSessionsPerClient bounds one client address's sessions; 0 means the
	// transport's default (16, or 128 with an AuthToken).
	MaxSessionsPerClient int

	BaseURL         string
	Timeout         time.Duration // one upstream HTTP request
	CallTimeout     time.Duration // one upstream fetch, queueing and retries included
	CacheTTL        time.Duration
	CacheMaxEntries int
	CacheMaxBytes   int64
	TokenBudget     int
	MaxTokenBudget  int
	RateLimit       float64 // upstream requests per second
	RateBurst       int
	MaxConcurrent   int
	BreakerFailures int // consecutive upstream failures that open the breaker
	BreakerCooldown time.Duration
	MaxPause        time.Duration // longest wait a 429's Retry-After may impose

	RedisURL string // shared tier, rate limit and breaker for replicas; empty means none
	Replicas int    // replicas sharing the rate limit

	// RedisSecret keys the MAC on the records replicas share; required
	// with RedisURL, never logged.
	RedisSecret string

	// MemoryLimit is the soft limit handed to the Go runtime, derived from
	// the cache bound; 0 when GOMEMLIMIT is set, which the runtime reads
	// itself.
	MemoryLimit int64

	LogLevel slog.Level
}

// memoryHeadroom is what the process needs beside the cache: sessions,
// answers being fetched and summarized, the tokenizer's tables.
const memoryHeadroom = 128 << 20

// memoryLimit leaves the collector room for one cache's worth of garbage on
// top of a full cache and the headroom. Without a limit the heap may grow to
// twice the live memory however small the cache is set.
func memoryLimit(cacheBytes int64) int64 { return 2*cacheBytes + memoryHeadroom }

// setting describes one environment variable: its default as shown in --help,
// what it accepts (quoted verbatim in error messages) and how it is applied.
type setting struct {
	name    string
	def     string
	accepts string
	help    string
	apply   func(c *Config, v string) bool
	// validate cross-checks once every value is known. It returns the other
	// setting this one clashes with as NAME=value (given reports values as
	// set, defaults included), or "" when they agree.
	validate func(c *Config, given func(name string) string) (with string)
	// secret settings are never quoted, not even in an error.
	secret bool
}

// shown is v as an error about s may quote it.
func (s setting) shown(v string) string {
	if s.secret && v != "" {
		return fmt.Sprintf("(%d characters, not shown)", len(v))
	}
	return v
}

// defaults are the gateway's own, so the two never disagree.
var defaults = gateway.DefaultConfig()

var hostPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// settings is the single source for parsing, defaults and --help.
var settings = []setting{
	{
		name: "MCP_TRANSPORT", def: "stdio",
		accepts: "stdio, http-sse or websocket",
		help:    "how clients connect: stdio for desktop assistants, http-sse (SSE at /sse and streamable HTTP at /mcp) or websocket (/ws)",
		apply: func(c *Config, v string) bool {
			switch v {
			case "stdio", "http-sse", "websocket":
				c.Transport = v
				return true
			}
			return false
		},
	},
	{
		name: "MCP_HOST", def: "127.0.0.1",
		accepts: "an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0",
		help:    "interface the network transports listen on; loopback unless you opt in",
		apply: func(c *Config, v string) bool {
			if net.ParseIP(v) == nil && !hostPattern.MatchString(v) {
				return false
			}
			c.Host = v
			return true
		},
	},
	{
		name: "MCP_PORT", def: "8000",
		accepts: "an integer from 0 to 65535 (0 picks a free port)",
		help:    "TCP port of the network transports",
		apply: func(c *Config, v string) bool {
			n, err := strconv.Atoi(v)
			c.Port = n
			return err == nil && n >= 0 && n <= 65535
		},
	},
	{
		name: "MCP_HEALTH_ADDR", def: "",
		accepts: "host:port, e.g. 127.0.0.1:8081, and only with MCP_TRANSPORT=stdio",
		help:    "stdio only: also serve /healthz and /readyz on this address (unset: no listener)",
		apply: func(c *Config, v string) bool {
			host, port, err := net.SplitHostPort(v)
			if err != nil || host == "" {
				return false
			}
			n, err := strconv.Atoi(port)
			c.HealthAddr = v
			return err == nil && n >= 0 && n <= 65535
		},
		validate: func(c *Config, given func(string) string) string {
			if c.HealthAddr != "" && c.Transport != "stdio" {
				return "MCP_TRANSPORT=" + given("MCP_TRANSPORT")
			}
			return ""
		},
	},
	{
		name: "MCP_ALLOWED_ORIGINS", def: "",
		accepts: "a comma-separated list of origins such as https://app.example.org or http://localhost:5173, or *",
		help:    "browser origins allowed besides same-host (and loopback pages on a loopback bind)",
		apply: func(c *Config, v string) bool {
			origins, ok := parseOrigins(v)
			c.AllowedOrigins = origins
			return ok
		},
	},
	{
		name: "MCP_AUTH_TOKEN", def: "",
		accepts: "at least 16 visible ASCII characters without spaces (e.g. the output of openssl rand -hex 32)",
		help:    "when set, every request to the network transports except /healthz must carry Authorization: Bearer <token>",
		apply: func(c *Config, v string) bool {
			c.AuthToken = v
			if len(v) < 16 {
				return false
			}
			for _, r := range v {
				if r <= ' ' || r > '~' {
					return false
				}
			}
			return true
		},
	},
	{
		name: "MCP_MAX_SESSIONS_PER_CLIENT", def: "",
		accepts: "an integer from 1 to 100000",
		help: fmt.Sprintf("most sessions (SSE streams, streamable HTTP sessions, WebSocket connections) one client address may hold; unset: %d, or %d with MCP_AUTH_TOKEN. Raise it behind a proxy, where every client has the proxy's address",
			transport.DefaultMaxSessionsPerClient, transport.DefaultMaxSessionsPerAuthClient),
		apply: intSetter(func(c *Config) *int { return &c.MaxSessionsPerClient }, 1, 100_000),
	},
	{
		name: "NSIP_BASE_URL", def: nsip.DefaultBaseURL,
		accepts: "an absolute http or https URL without query, e.g. http://127.0.0.1:8080/api",
		help:    "NSIP Search API root; point it at nsip-stub to run offline",
		apply: func(c *Config, v string) bool {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
				return false
			}
			c.BaseURL = strings.TrimRight(v, "/")
			return true
		},
	},
	{
		name: "NSIP_TIMEOUT", def: "15s",
		accepts: "a duration from 100ms to 5m, e.g. 15s",
		help:    "limit for one upstream HTTP request",
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.Timeout }, 100*time.Millisecond, 5*time.Minute),
	},
	{
		name: "NSIP_CALL_TIMEOUT", def: formatDuration(defaults.CallTimeout),
		accepts: "a duration from 100ms to 15m and no shorter than NSIP_TIMEOUT (raise this or lower NSIP_TIMEOUT), e.g. 30s",
		help:    "limit for one tool's upstream fetch as a whole: waiting for rate-limit and connection capacity, every retry and its backoff",
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.CallTimeout }, 100*time.Millisecond, 15*time.Minute),
		// A request limit above the call's would never fire: the call's
		// deadline always ends the request first.
		validate: func(c *Config, given func(string) string) string {
			if c.Timeout > c.CallTimeout {
				return "NSIP_TIMEOUT=" + given("NSIP_TIMEOUT")
			}
			return ""
		},
	},
	{
		name: "NSIP_CACHE_TTL", def: formatDuration(defaults.CacheTTL),
		accepts: "a duration from 1s to 168h, e.g. 1h",
		help:    "how long an upstream answer is reused",
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.CacheTTL }, time.Second, 168*time.Hour),
	},
	{
		name: "NSIP_CACHE_MAX_ENTRIES", def: strconv.Itoa(defaults.CacheMaxEntries),
		accepts: "an integer from 1 to 10000000",
		help:    "most answers kept in the cache",
		apply:   intSetter(func(c *Config) *int { return &c.CacheMaxEntries }, 1, 10_000_000),
	},
	{
		name: "NSIP_CACHE_MAX_BYTES", def: formatBytes(defaults.CacheMaxBytes),
		accepts: "a size from 1KiB to 64GiB: bytes, or a number with KiB, MiB or GiB, e.g. 64MiB",
		help:    "most bytes of answers kept in the cache",
		apply: func(c *Config, v string) bool {
			n, ok := parseBytes(v)
			c.CacheMaxBytes = n
			return ok && n >= 1<<10 && n <= 64<<30
		},
	},
	{
		name: "NSIP_TOKEN_BUDGET", def: strconv.Itoa(defaults.Budget),
		accepts: "an integer from 256 to 100000",
		help:    "answers up to this many cl100k_base tokens pass through unchanged; larger ones are summarized to fit",
		apply:   intSetter(func(c *Config) *int { return &c.TokenBudget }, 256, 100_000),
	},
	{
		name: "NSIP_MAX_TOKEN_BUDGET", def: strconv.Itoa(gateway.DefaultMaxBudget),
		accepts: "an integer from 256 to 25000",
		help:    "the most tokens a call may ask for with max_tokens",
		apply:   intSetter(func(c *Config) *int { return &c.MaxTokenBudget }, 256, gateway.MaxTokenCap),
	},
	{
		name: "NSIP_RATE_LIMIT", def: strconv.FormatFloat(defaults.RateLimit, 'f', -1, 64),
		accepts: "a number of requests per second from 0.1 to 1000",
		help:    "steady upstream request rate",
		apply: func(c *Config, v string) bool {
			f, err := strconv.ParseFloat(v, 64)
			c.RateLimit = f
			return err == nil && f >= 0.1 && f <= 1000
		},
	},
	{
		name: "NSIP_RATE_BURST", def: strconv.Itoa(defaults.RateBurst),
		accepts: "an integer from 1 to 1000",
		help:    "upstream requests allowed at once above the steady rate",
		apply:   intSetter(func(c *Config) *int { return &c.RateBurst }, 1, 1000),
	},
	{
		name: "NSIP_MAX_CONCURRENT", def: strconv.Itoa(defaults.MaxConcurrentUpstream),
		accepts: "an integer from 1 to 1000",
		help:    "upstream requests in flight at once",
		apply:   intSetter(func(c *Config) *int { return &c.MaxConcurrent }, 1, 1000),
	},
	{
		name: "NSIP_BREAKER_FAILURES", def: strconv.FormatUint(uint64(defaults.BreakerFailures), 10),
		accepts: "an integer from 1 to 1000",
		help:    "consecutive upstream failures (5xx, timeouts, connection errors) that open the circuit breaker; while open, calls fail fast without asking NSIP",
		apply:   intSetter(func(c *Config) *int { return &c.BreakerFailures }, 1, 1000),
	},
	{
		name: "NSIP_BREAKER_COOLDOWN", def: formatDuration(defaults.BreakerCooldown),
		accepts: "a duration from 1s to 1h, e.g. 30s",
		help:    "how long the open breaker waits before letting one trial request through",
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.BreakerCooldown }, time.Second, time.Hour),
	},
	{
		name: "NSIP_REDIS_URL", def: "",
		accepts: "a redis:// or rediss:// (TLS) URL with optional password and database, e.g. redis://:secret@redis:6379/0",
		help:    "Redis shared by replicas: a second cache tier, one NSIP rate limit for all, one fetch per missing answer, shared breaker; when Redis fails each replica carries on alone (unset: no sharing)",
		apply: func(c *Config, v string) bool {
			c.RedisURL = v
			return cache.CheckRedisURL(v) == nil
		},
	},
	{
		name: "NSIP_REDIS_SECRET", def: "", secret: true,
		accepts: fmt.Sprintf("at least %d visible ASCII characters without spaces, the same on every replica (make one with openssl rand -hex 32); required with NSIP_REDIS_URL", cache.MinRedisSecret),
		help:    "key of the MAC every record in Redis carries: replicas serve only records written with it, so nothing else that can write to Redis can plant an answer; never logged",
		apply: func(c *Config, v string) bool {
			c.RedisSecret = v
			if len(v) < cache.MinRedisSecret {
				return false
			}
			for _, r := range v {
				if r <= ' ' || r > '~' {
					return false
				}
			}
			return true
		},
		// Without a secret every record would be forgeable by anyone who
		// can reach Redis, so the shared mode does not start without one.
		validate: func(c *Config, _ func(string) string) string {
			if c.RedisURL != "" && c.RedisSecret == "" {
				return "NSIP_REDIS_URL set" // not its value, which may hold a password
			}
			return ""
		},
	},
	{
		name: "NSIP_REPLICAS", def: strconv.Itoa(defaults.Replicas),
		accepts: "an integer from 1 to 1000",
		help:    "replicas running against NSIP together: without Redis (or while it is down) each keeps to NSIP_RATE_LIMIT/NSIP_REPLICAS; above 1, streamable HTTP runs stateless so that any replica can answer any request",
		apply:   intSetter(func(c *Config) *int { return &c.Replicas }, 1, 1000),
	},
	{
		name: "NSIP_MAX_PAUSE", def: formatDuration(defaults.MaxUpstreamPause),
		accepts: "a duration from 1s to 1h, e.g. 5m",
		help:    "longest pause a 429's Retry-After may impose on the endpoint that sent it; a longer request is cut to this",
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.MaxPause }, time.Second, time.Hour),
	},
	{
		name: "LOG_LEVEL", def: "info",
		accepts: "debug, info, warn or error",
		help:    "least severe log level written to stderr",
		apply: func(c *Config, v string) bool {
			levels := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}
			l, ok := levels[strings.ToLower(v)]
			c.LogLevel = l
			return ok
		},
	},
}

// ConfigError names the variable at fault, the value given and what would
// have been accepted. Its message fits on one line.
type ConfigError struct {
	Name, Value, Accepts string
	// With is the other setting the value clashes with, as NAME=value;
	// empty when the value is wrong on its own.
	With string
}

func (e *ConfigError) Error() string {
	with := ""
	if e.With != "" {
		with = " together with " + e.With
	}
	return fmt.Sprintf("invalid %s=%q%s: accepted values: %s", e.Name, e.Value, with, e.Accepts)
}

// Load reads the configuration through getenv, usually os.Getenv. Unset or
// blank variables take their defaults; the first bad value is reported as a
// *ConfigError.
func Load(getenv func(string) string) (Config, error) {
	var c Config
	given := make(map[string]string, len(settings))
	for _, s := range settings {
		v := strings.TrimSpace(getenv(s.name))
		if v == "" {
			v = s.def
		}
		if v == "" {
			continue
		}
		if !s.apply(&c, v) {
			return Config{}, &ConfigError{Name: s.name, Value: s.shown(v), Accepts: s.accepts}
		}
		given[s.name] = v
	}
	for _, s := range settings {
		if s.validate == nil {
			continue
		}
		if with := s.validate(&c, func(name string) string { return given[name] }); with != "" {
			return Config{}, &ConfigError{Name: s.name, Value: s.shown(given[s.name]), Accepts: s.accepts, With: with}
		}
	}
	if strings.TrimSpace(getenv("GOMEMLIMIT")) == "" {
		c.MemoryLimit = memoryLimit(c.CacheMaxBytes)
	}
	return c, nil
}

// writeUsage prints --help: every variable with its default.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, `nsip-mcp serves the NSIP Search API to MCP clients with answers kept
inside a token budget.

Usage:
  nsip-mcp             start the server (configured by the environment)
  nsip-mcp --help      show this text
  nsip-mcp --version   print the version

Environment:
`)
	for _, s := range settings {
		def := s.def
		if def == "" {
			def = "(unset)"
		}
		fmt.Fprintf(w, "  %-24s default %s\n      %s\n      accepts %s\n", s.name, def, s.help, s.accepts)
	}
	fmt.Fprintf(w, `
Endpoints (http-sse): /sse + /message (legacy SSE), /mcp (streamable HTTP),
/healthz, /readyz. Endpoints (websocket): /ws, /healthz, /readyz.
Logs are JSON lines on stderr; in stdio mode stdout carries only JSON-RPC.
Memory: unless GOMEMLIMIT is set, the Go runtime gets a soft limit of
2 x NSIP_CACHE_MAX_BYTES + 128MiB (256MiB with the defaults).
`)
}

func intSetter(field func(*Config) *int, lo, hi int) func(*Config, string) bool {
	return func(c *Config, v string) bool {
		n, err := strconv.Atoi(v)
		*field(c) = n
		return err == nil && n >= lo && n <= hi
	}
}

func durationSetter(field func(*Config) *time.Duration, lo, hi time.Duration) func(*Config, string) bool {
	return func(c *Config, v string) bool {
		d, err := time.ParseDuration(v)
		*field(c) = d
		return err == nil && d >= lo && d <= hi
	}
}

// parseOrigins accepts "*" or scheme://host[:port] entries; a trailing slash
// is forgiven because browsers never send one and people often type one.
func parseOrigins(v string) ([]string, bool) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		o := strings.TrimSuffix(strings.TrimSpace(part), "/")
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
				u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
				return nil, false
			}
			o = strings.ToLower(u.Scheme + "://" + u.Host)
		}
		out = append(out, o)
	}
	return out, len(out) > 0
}

var byteUnits = []struct {
	suffix string
	size   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}, {"", 1}}

func parseBytes(v string) (int64, bool) {
	for _, u := range byteUnits {
		num, ok := strings.CutSuffix(v, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n < 0 || n > (1<<62)/u.size {
			return 0, false
		}
		return n * u.size, true
	}
	return 0, false
}

func formatBytes(n int64) string {
	for _, u := range byteUnits[:3] {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// formatDuration drops the zero tails time.Duration.String adds ("1h0m0s").
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
