package main

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport"
)

// Config is everything the command reads from its environment. It holds
// the packages' own configuration, so that each default is defined once, by
// the package that uses it: defaultConfig starts from those, and a variable
// that is set overwrites its one field.
type Config struct {
	Transport string            // one of transport.Kinds()
	Serve     transport.Options // listen address, origins, token, per-client bound
	NSIP      NSIPConfig
	Gateway   gateway.Config
	RedisURL  string // shared tier, rate limit and breaker for replicas; empty means none
	// WebApp serves the breeder's page at /app on the network transports.
	WebApp bool

	// RedisSecret keys the MAC on the records replicas share; required
	// with RedisURL, never logged.
	RedisSecret string
	// RedisTimeout bounds one Redis command and a fifth of it is the slow
	// mark, as with the cache's defaults. Past either, a replica carries
	// on alone until Redis recovers.
	RedisTimeout time.Duration

	// MemoryLimit is the soft limit handed to the Go runtime, derived from
	// the cache bound; 0 when GOMEMLIMIT is set, which the runtime reads
	// itself.
	MemoryLimit int64

	LogLevel slog.Level
}

// NSIPConfig is what the NSIP client is built with; nsip.NewClient takes
// these as options and has no configuration struct of its own.
type NSIPConfig struct {
	BaseURL string
	Timeout time.Duration // one upstream HTTP request
}

// defaultPort is the command's own: transport.Options reads a zero port as
// "any free port", which suits tests rather than people.
const defaultPort = 8000

// defaultConfig is what an empty environment gives.
func defaultConfig() Config {
	return Config{
		Transport: transport.KindStdio,
		Serve:     transport.Options{Host: transport.DefaultHost, Port: defaultPort, MaxSessions: transport.DefaultMaxSessions},
		NSIP:      NSIPConfig{BaseURL: nsip.DefaultBaseURL, Timeout: nsip.DefaultTimeout},
		Gateway:   gateway.DefaultConfig(),
		LogLevel:  slog.LevelInfo,
		// The cache's own limit; its slow mark is a fifth of it too.
		RedisTimeout: cache.DefaultRedisOpTimeout,
	}
}

// memoryHeadroom is what the process needs beside the cache: sessions,
// answers being fetched and summarized, the tokenizer's tables.
const memoryHeadroom = 128 << 20

// memoryLimit leaves the collector room for one cache's worth of garbage on
// top of a full cache and the headroom. Without a limit the heap may grow to
// twice the live memory however small the cache is set.
func memoryLimit(cacheBytes int64) int64 { return 2*cacheBytes + memoryHeadroom }

// secrecy says how much of a setting's value may be shown in errors and logs.
type secrecy int

const (
	public    secrecy = iota
	secret            // never shown
	urlSecret         // shown with any user information in the URL hidden
)

// setting describes one environment variable: how its value is shown (the
// default in --help comes from defaultConfig through show), what it
// accepts (quoted verbatim in error messages) and how it is applied.
type setting struct {
	name    string
	accepts string
	help    string
	show    func(c *Config) string
	apply   func(c *Config, v string) bool
	secrecy secrecy
	// suggest, when set, turns a refused value into the accepted one it
	// most likely meant, or "".
	suggest func(v string) string
	// validate cross-checks once every value is known. It returns the other
	// setting this one clashes with as NAME=value (given reports values as
	// set, defaults included), or "" when they agree.
	validate func(c *Config, given func(name string) string) (with string)
}

var hostPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// numericTail matches a name whose last label is all digits: no host name
// looks like that (RFC 1123), so it is a mistyped IPv4 address such as
// 999.1.1.1, which would otherwise be looked up in DNS.
var numericTail = regexp.MustCompile(`(^|\.)[0-9]+$`)

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// settings is the single source for parsing, showing and --help.
var settings = []setting{
	{
		name:    "MCP_TRANSPORT",
		accepts: "stdio, http-sse or websocket",
		help:    "how clients connect: stdio for desktop assistants, http-sse (SSE at /sse and streamable HTTP at /mcp) or websocket (/ws)",
		show:    func(c *Config) string { return c.Transport },
		apply: func(c *Config, v string) bool {
			if !slices.Contains(transport.Kinds(), v) {
				return false
			}
			c.Transport = v
			return true
		},
		suggest: func(v string) string {
			return nearest(v, transport.Kinds(), map[string]string{
				"http": transport.KindHTTPSSE, "https": transport.KindHTTPSSE, "sse": transport.KindHTTPSSE,
				"streamable": transport.KindHTTPSSE, "streamable-http": transport.KindHTTPSSE, "streamablehttp": transport.KindHTTPSSE,
				"ws": transport.KindWebSocket, "wss": transport.KindWebSocket,
			})
		},
	},
	{
		name:    "MCP_HOST",
		accepts: "an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0",
		help:    "interface the network transports listen on; loopback unless you opt in",
		show:    func(c *Config) string { return c.Serve.Host },
		apply: func(c *Config, v string) bool {
			if net.ParseIP(v) == nil && (!hostPattern.MatchString(v) || numericTail.MatchString(v)) {
				return false
			}
			c.Serve.Host = v
			return true
		},
	},
	{
		name:    "MCP_PORT",
		accepts: "an integer from 0 to 65535 (0 picks a free port)",
		help:    "TCP port of the network transports",
		show:    func(c *Config) string { return strconv.Itoa(c.Serve.Port) },
		apply:   intSetter(func(c *Config) *int { return &c.Serve.Port }, 0, 65535),
	},
	{
		name:    "MCP_HEALTH_ADDR",
		accepts: "host:port, e.g. 127.0.0.1:8081, and only with MCP_TRANSPORT=stdio",
		help:    "stdio only: also serve /healthz, /readyz and /metrics on this address (unset: no listener)",
		show:    func(c *Config) string { return c.Serve.HealthAddr },
		apply: func(c *Config, v string) bool {
			host, port, err := net.SplitHostPort(v)
			if err != nil || host == "" {
				return false
			}
			if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
				return false
			}
			c.Serve.HealthAddr = v
			return true
		},
		validate: func(c *Config, given func(string) string) string {
			if c.Serve.HealthAddr != "" && c.Transport != transport.KindStdio {
				return "MCP_TRANSPORT=" + given("MCP_TRANSPORT")
			}
			return ""
		},
	},
	{
		name:    "MCP_ALLOWED_ORIGINS",
		accepts: "a comma-separated list of origins such as https://app.example.org or http://localhost:5173, or *",
		help:    "browser origins allowed besides same-host (and loopback pages on a loopback bind)",
		show:    func(c *Config) string { return strings.Join(c.Serve.AllowedOrigins, ",") },
		secrecy: urlSecret,
		apply: func(c *Config, v string) bool {
			origins, ok := parseOrigins(v)
			c.Serve.AllowedOrigins = origins
			return ok
		},
	},
	{
		name:    "MCP_ALLOWED_HOSTS",
		accepts: "a comma-separated list of host names such as nsip.farm.lan or shepherd-pi.local, without scheme or port (IP addresses and localhost need no listing; * is not accepted: to answer any name, set MCP_AUTH_TOKEN)",
		help:    "without MCP_AUTH_TOKEN, a request from beyond loopback is answered only when its Host is an IP address, localhost or a name listed here, so that no web page can rebind its own name to this server (DNS rebinding); list the names people type to reach it, e.g. the farm computer's name on the network",
		show:    func(c *Config) string { return strings.Join(c.Serve.AllowedHosts, ",") },
		apply: func(c *Config, v string) bool {
			hosts, ok := parseHosts(v)
			c.Serve.AllowedHosts = hosts
			return ok
		},
		suggest: suggestHosts,
	},
	{
		name:    "MCP_AUTH_TOKEN",
		accepts: "at least 16 visible ASCII characters without spaces (e.g. the output of openssl rand -hex 32)",
		help:    "when set, every request to the network transports must carry Authorization: Bearer <token>, except /healthz and /readyz, which without it answer with their status only, and the web page /app (MCP_WEB_APP), which holds no secret",
		show:    func(c *Config) string { return c.Serve.AuthToken },
		secrecy: secret,
		apply: func(c *Config, v string) bool {
			if len(v) < 16 {
				return false
			}
			for _, r := range v {
				if r <= ' ' || r > '~' {
					return false
				}
			}
			c.Serve.AuthToken = v
			return true
		},
	},
	{
		name:    "MCP_MAX_SESSIONS",
		accepts: "an integer from 1 to 100000",
		help:    "most sessions (SSE streams, streamable HTTP sessions, WebSocket connections) open at once; from nine tenths of it, sessions idle for a minute are ended, oldest first, to make room",
		show:    func(c *Config) string { return strconv.Itoa(c.Serve.MaxSessions) },
		apply:   intSetter(func(c *Config) *int { return &c.Serve.MaxSessions }, 1, 100_000),
	},
	{
		name:    "MCP_MAX_SESSIONS_PER_CLIENT",
		accepts: "an integer from 1 to 100000",
		help: fmt.Sprintf("most sessions one client may hold: its address (an IPv4 address or IPv6 /64, the forwarded one behind MCP_TRUSTED_PROXIES), with MCP_AUTH_TOKEN the token at that address; unset: %d, or %d with MCP_AUTH_TOKEN, and MCP_MAX_SESSIONS for a loopback peer (a backend on this host). Set, it holds for loopback too",
			transport.DefaultMaxSessionsPerClient, transport.DefaultMaxSessionsPerAuthClient),
		show: func(c *Config) string {
			if c.Serve.MaxSessionsPerClient == 0 {
				return ""
			}
			return strconv.Itoa(c.Serve.MaxSessionsPerClient)
		},
		apply: intSetter(func(c *Config) *int { return &c.Serve.MaxSessionsPerClient }, 1, 100_000),
	},
	{
		name:    "MCP_TRUSTED_PROXIES",
		accepts: "a comma-separated list of IP addresses and CIDR prefixes of your reverse proxies, e.g. 10.0.0.5 or 172.28.0.0/24,10.0.0.5",
		help:    "reverse proxies whose X-Forwarded-For is believed: a request from one belongs to the rightmost forwarded address that is not a listed proxy; from anyone else the header is ignored (unset: believed from no one, so every client behind a proxy has the proxy's address)",
		show: func(c *Config) string {
			parts := make([]string, len(c.Serve.TrustedProxies))
			for i, p := range c.Serve.TrustedProxies {
				parts[i] = p.String()
				if p.IsSingleIP() {
					parts[i] = p.Addr().String()
				}
			}
			return strings.Join(parts, ",")
		},
		apply: func(c *Config, v string) bool {
			p, err := transport.ParseTrustedProxies(v)
			c.Serve.TrustedProxies = p
			return err == nil && len(p) > 0
		},
	},
	{
		name:    "MCP_WEB_APP",
		accepts: "on or off, and on only with MCP_TRANSPORT=websocket or http-sse",
		help:    "on: also serve a breeder's page at /app that searches animals and shows their profiles, pedigrees, comparisons and mating plans through the server's own endpoint, from the same origin (others only as MCP_ALLOWED_ORIGINS lists them); off: no page",
		show: func(c *Config) string {
			if c.WebApp {
				return "on"
			}
			return "off"
		},
		apply: func(c *Config, v string) bool {
			on, ok := map[string]bool{"on": true, "off": false}[v]
			c.WebApp = on
			return ok
		},
		suggest: func(v string) string {
			return nearest(v, []string{"off", "on"}, map[string]string{
				"true": "on", "yes": "on", "1": "on", "enabled": "on", "enable": "on",
				"false": "off", "no": "off", "0": "off", "disabled": "off", "disable": "off", "none": "off",
			})
		},
		validate: func(c *Config, given func(string) string) string {
			if c.WebApp && c.Transport == transport.KindStdio {
				return "MCP_TRANSPORT=" + given("MCP_TRANSPORT")
			}
			return ""
		},
	},
	{
		name:    "NSIP_BASE_URL",
		accepts: "an absolute http or https URL without query, e.g. http://127.0.0.1:8080/api",
		help:    "NSIP Search API root; point it at nsip-stub to run offline",
		show:    func(c *Config) string { return c.NSIP.BaseURL },
		secrecy: urlSecret,
		apply: func(c *Config, v string) bool {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
				return false
			}
			c.NSIP.BaseURL = strings.TrimRight(v, "/")
			return true
		},
	},
	{
		name:    "NSIP_TIMEOUT",
		accepts: "a duration from 100ms to 5m, e.g. 15s",
		help:    "limit for one upstream HTTP request",
		show:    func(c *Config) string { return param.Duration(c.NSIP.Timeout) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.NSIP.Timeout }, 100*time.Millisecond, 5*time.Minute),
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_CALL_TIMEOUT",
		accepts: "a duration from 100ms to 15m and no shorter than NSIP_TIMEOUT (raise this or lower NSIP_TIMEOUT), e.g. 30s",
		help:    "limit for one tool's upstream fetch as a whole: waiting for rate-limit and connection capacity, every retry and its backoff",
		show:    func(c *Config) string { return param.Duration(c.Gateway.CallTimeout) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.Gateway.CallTimeout }, 100*time.Millisecond, 15*time.Minute),
		suggest: suggestSeconds,
		// A request limit above the call's would never fire: the call's
		// deadline always ends the request first.
		validate: func(c *Config, given func(string) string) string {
			if c.NSIP.Timeout > c.Gateway.CallTimeout {
				return "NSIP_TIMEOUT=" + given("NSIP_TIMEOUT")
			}
			return ""
		},
	},
	{
		name:    "NSIP_CACHE_TTL",
		accepts: "a duration from 1s to 168h, e.g. 1h",
		help:    "how long an upstream answer is reused",
		show:    func(c *Config) string { return param.Duration(c.Gateway.CacheTTL) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.Gateway.CacheTTL }, time.Second, 168*time.Hour),
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_CACHE_MAX_ENTRIES",
		accepts: "an integer from 1 to 10000000",
		help:    "most answers kept in the cache",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.CacheMaxEntries) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.CacheMaxEntries }, 1, 10_000_000),
	},
	{
		name:    "NSIP_CACHE_MAX_BYTES",
		accepts: "a size from 1KiB to 64GiB: bytes, or a number with KiB, MiB or GiB, e.g. 64MiB",
		help:    "most bytes of answers kept in the cache",
		show:    func(c *Config) string { return formatBytes(c.Gateway.CacheMaxBytes) },
		apply: func(c *Config, v string) bool {
			n, ok := parseBytes(v)
			if !ok || n < 1<<10 || n > 64<<30 {
				return false
			}
			c.Gateway.CacheMaxBytes = n
			return true
		},
		suggest: suggestBinaryUnit,
	},
	{
		name:    "NSIP_FULL_MAX_BYTES",
		accepts: "a size from 1KiB to 1GiB: bytes, or a number with KiB, MiB or GiB, e.g. 8MiB",
		help:    "most data one summarized answer links as JSON and CSV (larger data gets no link, and the answer says so); all links together hold at most 4 times this",
		show:    func(c *Config) string { return formatBytes(c.Gateway.FullMaxBytes) },
		apply: func(c *Config, v string) bool {
			n, ok := parseBytes(v)
			if !ok || n < 1<<10 || n > 1<<30 {
				return false
			}
			c.Gateway.FullMaxBytes = n
			return true
		},
		suggest: suggestBinaryUnit,
	},
	{
		name:    "NSIP_FULL_UNREAD_MAX_BYTES",
		accepts: "a size from 64KiB to 1GiB: bytes, or a number with KiB, MiB or GiB, e.g. 4MiB",
		help:    "a full-answer link's read is refused while the client's earlier answers not yet taken by it (responses still being written, replies queued for its connection) come to more than this; a client with none unread is always served",
		show:    func(c *Config) string { return formatBytes(c.Gateway.FullUnreadMaxBytes) },
		apply: func(c *Config, v string) bool {
			n, ok := parseBytes(v)
			if !ok || n < 64<<10 || n > 1<<30 {
				return false
			}
			c.Gateway.FullUnreadMaxBytes = n
			return true
		},
		suggest: suggestBinaryUnit,
	},
	{
		name:    "NSIP_TOKEN_BUDGET",
		accepts: "a whole number from 256 to 100000 (a fraction is dropped)",
		help:    "answers up to this many cl100k_base tokens pass through unchanged; larger ones are summarized to fit",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.Budget) },
		// A fraction is accepted because the desktop bundle offers this
		// setting as a number field (MCPB has no integer type), and a
		// budget of 2000.5 tokens admits exactly what 2000 does.
		apply: func(c *Config, v string) bool {
			n, ok := parseWhole(v)
			if !ok || n < 256 || n > 100_000 {
				return false
			}
			c.Gateway.Budget = n
			return true
		},
	},
	{
		name:    "NSIP_MAX_TOKEN_BUDGET",
		accepts: fmt.Sprintf("an integer from 256 to %d", gateway.MaxTokenCap),
		help:    "the most tokens a call may ask for with max_tokens",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.MaxBudget) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.MaxBudget }, 256, gateway.MaxTokenCap),
	},
	{
		name:    "NSIP_RATE_LIMIT",
		accepts: "a number of requests per second from 0.1 to 1000",
		help:    "steady upstream request rate",
		show:    func(c *Config) string { return strconv.FormatFloat(c.Gateway.RateLimit, 'f', -1, 64) },
		apply: func(c *Config, v string) bool {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0.1 && f <= 1000) {
				return false
			}
			c.Gateway.RateLimit = f
			return true
		},
	},
	{
		name:    "NSIP_RATE_BURST",
		accepts: "an integer from 1 to 1000",
		help:    "upstream requests allowed at once above the steady rate",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.RateBurst) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.RateBurst }, 1, 1000),
	},
	{
		name:    "NSIP_MAX_CONCURRENT",
		accepts: "an integer from 1 to 1000",
		help:    "upstream requests in flight at once",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.MaxConcurrentUpstream) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.MaxConcurrentUpstream }, 1, 1000),
	},
	{
		name:    "NSIP_BREAKER_FAILURES",
		accepts: "an integer from 1 to 1000",
		help:    "consecutive upstream failures (5xx, timeouts, connection errors) that open the circuit breaker; while open, calls fail fast without asking NSIP",
		show:    func(c *Config) string { return strconv.FormatUint(uint64(c.Gateway.BreakerFailures), 10) },
		apply:   intSetter(func(c *Config) *uint32 { return &c.Gateway.BreakerFailures }, 1, 1000),
	},
	{
		name:    "NSIP_BREAKER_COOLDOWN",
		accepts: "a duration from 1s to 1h, e.g. 30s",
		help:    "how long the open breaker waits before letting one trial request through",
		show:    func(c *Config) string { return param.Duration(c.Gateway.BreakerCooldown) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.Gateway.BreakerCooldown }, time.Second, time.Hour),
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_REDIS_URL",
		accepts: "a redis:// or rediss:// (TLS) URL with optional password and database, e.g. redis://:secret@redis:6379/0",
		help:    "Redis shared by replicas: a second cache tier, one NSIP rate limit for all, one fetch per missing answer, shared breaker; when Redis fails each replica carries on alone (unset: no sharing)",
		show:    func(c *Config) string { return c.RedisURL },
		secrecy: urlSecret,
		apply: func(c *Config, v string) bool {
			if cache.CheckRedisURL(v) != nil {
				return false
			}
			c.RedisURL = v
			return true
		},
	},
	{
		name:    "NSIP_REDIS_SECRET",
		show:    func(c *Config) string { return c.RedisSecret },
		secrecy: secret,
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
		name:    "NSIP_REDIS_TIMEOUT",
		accepts: "a duration from 10ms to 1m, e.g. 250ms",
		help:    "limit for one Redis command; a slower Redis counts as down, and one whose round trips take over a fifth of it as slow: either way each replica carries on alone until Redis answers in time again (raise it for a distant or busy Redis)",
		show:    func(c *Config) string { return param.Duration(c.RedisTimeout) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.RedisTimeout }, 10*time.Millisecond, time.Minute),
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_REPLICAS",
		accepts: "an integer from 1 to 1000",
		help:    "replicas running against NSIP together: without Redis (or while it is down) each keeps to NSIP_RATE_LIMIT/NSIP_REPLICAS; above 1, streamable HTTP runs stateless so that any replica can answer any request",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.Replicas) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.Replicas }, 1, 1000),
	},
	{
		name:    "NSIP_MAX_PAUSE",
		accepts: "a duration from 1s to 1h, e.g. 5m",
		help:    "longest pause a 429's Retry-After may impose on the endpoint that sent it; a longer request is cut to this",
		show:    func(c *Config) string { return param.Duration(c.Gateway.MaxUpstreamPause) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.Gateway.MaxUpstreamPause }, time.Second, time.Hour),
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_EVALUATION_RECHECK",
		accepts: "a duration from 0 to 1h, e.g. 1m (0 reads the date on every call)",
		help:    "how long NSIP's evaluation date, once read, stands for NSIP's current one: analyses over a breed pass (percentiles, breed-pedigree COIs, breed diversity) answer within it with no request to NSIP, and see a new evaluation up to this late",
		show:    func(c *Config) string { return param.Duration(c.Gateway.EvaluationRecheck) },
		apply: func(c *Config, v string) bool {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 || d > time.Hour {
				return false
			}
			c.Gateway.EvaluationRecheck = d
			return true
		},
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_TASKS_PER_CLIENT",
		accepts: "an integer from 1 to 10000",
		help:    "analysis tasks one client may hold at once, running or finished within NSIP_TASK_TTL; more are refused naming this setting",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.TasksPerClient) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.TasksPerClient }, 1, 10_000),
	},
	{
		name:    "NSIP_TASKS_MAX",
		accepts: "an integer from 1 to 100000",
		help:    "analysis tasks held at once for all clients together; more are refused naming this setting",
		show:    func(c *Config) string { return strconv.Itoa(c.Gateway.TasksMax) },
		apply:   intSetter(func(c *Config) *int { return &c.Gateway.TasksMax }, 1, 100_000),
	},
	{
		name:    "NSIP_TASK_TTL",
		accepts: "a duration from 1s to 24h, e.g. 10m",
		help:    "longest an analysis task and its result are kept after its creation (a client may ask for less); then it is forgotten, and stopped if still running",
		show:    func(c *Config) string { return param.Duration(c.Gateway.TaskTTL) },
		apply:   durationSetter(func(c *Config) *time.Duration { return &c.Gateway.TaskTTL }, time.Second, 24*time.Hour),
		suggest: suggestSeconds,
	},
	{
		name:    "NSIP_TOOLSETS",
		accepts: "a comma-separated list of " + strings.Join(toolsets.All(), " and ") + ", each at most once, e.g. lookup",
		help:    "which tools are listed and callable: lookup (the nine NSIP lookups), analysis (the five analyses computed from them); resources stay available either way",
		show:    func(c *Config) string { return strings.Join(c.Gateway.Toolsets, ",") },
		apply: func(c *Config, v string) bool {
			var names []string
			for _, part := range strings.Split(v, ",") {
				part = strings.TrimSpace(part)
				if !slices.Contains(toolsets.All(), part) || slices.Contains(names, part) {
					return false
				}
				names = append(names, part)
			}
			c.Gateway.Toolsets = names
			return true
		},
		// Each name is mended on its own, so "lookups,analyses" becomes
		// "lookup,analysis"; a name with no near choice spoils the guess.
		suggest: func(v string) string {
			parts := strings.Split(v, ",")
			for i, part := range parts {
				parts[i] = nearest(strings.TrimSpace(part), toolsets.All(), map[string]string{
					"lookups": toolsets.Lookup, "analyses": toolsets.Analysis, "analytics": toolsets.Analysis,
				})
				if parts[i] == "" {
					return ""
				}
			}
			return strings.Join(parts, ",")
		},
	},
	{
		name:    "NSIP_STRUCTURED",
		accepts: "on or off",
		help:    "on: each tool declares an output schema and returns its answer a second time as structuredContent, for clients that read typed data; off: the text alone, for hosts that show their model both",
		show: func(c *Config) string {
			if c.Gateway.NoStructured {
				return "off"
			}
			return "on"
		},
		apply: func(c *Config, v string) bool {
			off, ok := map[string]bool{"on": false, "off": true}[v]
			if ok {
				c.Gateway.NoStructured = off
			}
			return ok
		},
		suggest: func(v string) string {
			return nearest(v, []string{"off", "on"}, map[string]string{
				"true": "on", "yes": "on", "1": "on", "enabled": "on", "enable": "on",
				"false": "off", "no": "off", "0": "off", "disabled": "off", "disable": "off", "none": "off",
			})
		},
	},
	{
		name:    "LOG_LEVEL",
		accepts: "debug, info, warn or error",
		help:    "least severe log level written to stderr",
		show:    func(c *Config) string { return strings.ToLower(c.LogLevel.String()) },
		apply: func(c *Config, v string) bool {
			l, ok := logLevels[strings.ToLower(v)]
			c.LogLevel = l
			return ok
		},
		suggest: func(v string) string {
			return nearest(v, slices.Sorted(maps.Keys(logLevels)), map[string]string{"trace": "debug", "verbose": "debug", "fatal": "error"})
		},
	},
}

// ConfigError names the variable at fault, the value given (or a stand-in
// for a secret one) and what would have been accepted. Its message fits on
// one line.
type ConfigError struct {
	Name, Value, Accepts string
	// With is the other setting the value clashes with, as NAME=value;
	// empty when the value is wrong on its own.
	With string
	// Suggest is the accepted value the given one most likely meant, or "".
	Suggest string
	// Hidden is set when the value is a secret: Value is then empty and
	// the message does not quote it.
	Hidden bool
}

func (e *ConfigError) Error() string {
	value := fmt.Sprintf("=%q", e.Value)
	if e.Hidden {
		value = " (the value is not shown)"
	}
	with := ""
	if e.With != "" {
		with = " together with " + e.With
	}
	msg := fmt.Sprintf("invalid %s%s%s: accepted values: %s", e.Name, value, with, e.Accepts)
	if e.Suggest != "" {
		msg += fmt.Sprintf("; did you mean %s=%s?", e.Name, e.Suggest)
	}
	return msg
}

// shown is v as errors and logs may print it.
func (s setting) shown(v string) string {
	switch s.secrecy {
	case secret:
		return ""
	case urlSecret:
		if s.name == "MCP_ALLOWED_ORIGINS" {
			parts := strings.Split(v, ",")
			for i, p := range parts {
				parts[i] = redactURL(strings.TrimSpace(p))
			}
			return strings.Join(parts, ",")
		}
		return redactURL(v)
	}
	return v
}

func (s setting) refuse(v, with string, c Config) *ConfigError {
	e := &ConfigError{Name: s.name, Value: s.shown(v), Accepts: s.accepts, With: with, Hidden: s.secrecy == secret}
	if s.suggest != nil && with == "" {
		// Only a value that would really be accepted is offered.
		if sug := s.suggest(v); sug != "" && sug != v && s.apply(&c, sug) {
			e.Suggest = sug
		}
	}
	return e
}

// Load reads the configuration through getenv, usually os.Getenv. Unset or
// blank variables keep the packages' defaults; the first bad value is
// reported as a *ConfigError.
func Load(getenv func(string) string) (Config, error) {
	c := defaultConfig()
	// given holds every value as set, or as the default shows it, for
	// naming the other side of a clash.
	given := make(map[string]string, len(settings))
	byName := make(map[string]setting, len(settings))
	for _, s := range settings {
		byName[s.name] = s
		v := strings.TrimSpace(getenv(s.name))
		if v == "" {
			given[s.name] = s.show(&c) // each setting has its own field: still the default
			continue
		}
		if !s.apply(&c, v) {
			return Config{}, s.refuse(v, "", c)
		}
		given[s.name] = v
	}
	shownGiven := func(name string) string { return byName[name].shown(given[name]) }
	for _, s := range settings {
		if s.validate == nil {
			continue
		}
		if with := s.validate(&c, shownGiven); with != "" {
			return Config{}, s.refuse(given[s.name], with, c)
		}
	}
	if strings.TrimSpace(getenv("GOMEMLIMIT")) == "" {
		c.MemoryLimit = memoryLimit(c.Gateway.CacheMaxBytes)
	}
	return c, nil
}

// redactURL hides what in a URL may be a secret: the user information
// (where a password goes) and query values (some clients take a password
// there). A value refused for being malformed is exactly where a secret may
// sit outside the place url.Parse expects, so it is cut harder: everything
// before its last @, and everything from a ? or a space on.
func redactURL(v string) string {
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		switch {
		case u.User == nil:
		case hasPassword(u.User):
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		default:
			// A lone name may be the secret itself (redis://secret@host).
			u.User = url.User("xxxxx")
		}
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"xxxxx"}
			}
			u.RawQuery = q.Encode()
		}
		if u.User == nil && u.RawQuery == "" {
			return v
		}
		return u.String()
	}
	start := 0
	if i := strings.Index(v, "://"); i >= 0 {
		start = i + 3
	}
	if at := strings.LastIndex(v, "@"); at >= start {
		v = v[:start] + "xxxxx" + v[at:]
	}
	if i := strings.IndexFunc(v, func(r rune) bool { return r == '?' || unicode.IsSpace(r) }); i >= 0 {
		v = v[:i+1] + "xxxxx"
	}
	return v
}

func hasPassword(u *url.Userinfo) bool {
	_, ok := u.Password()
	return ok
}

// writeUsage prints --help: every variable with its default.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, `nsip-mcp serves the NSIP Search API to MCP clients with answers kept
inside a token budget.

Usage:
  nsip-mcp             start the server (configured by the environment)
  nsip-mcp --help      show this text
  nsip-mcp --version   print the version
  nsip-mcp check-nsip  compare NSIP's answers with the contracts, once
                       (exit 0 no drift, 1 drift, 2 unreachable; -h for more)

Environment:
`)
	defaults := defaultConfig()
	for _, s := range settings {
		def := s.shown(s.show(&defaults))
		if def == "" {
			def = "(unset)"
		}
		fmt.Fprintf(w, "  %-24s default %s\n      %s\n      accepts %s\n", s.name, def, s.help, s.accepts)
	}
	fmt.Fprintf(w, `
Endpoints (http-sse): /sse + /message (legacy SSE), /mcp (streamable HTTP),
/healthz, /readyz, /metrics. Endpoints (websocket): /ws, /healthz, /readyz,
/metrics. /metrics is in the Prometheus text format and, like /mcp, needs
the bearer token when MCP_AUTH_TOKEN is set.
Logs are JSON lines on stderr; in stdio mode stdout carries only JSON-RPC.
Memory: unless GOMEMLIMIT is set, the Go runtime gets a soft limit of
2 x NSIP_CACHE_MAX_BYTES + 128MiB (256MiB with the defaults).
`)
}

func intSetter[T int | uint32](field func(*Config) *T, lo, hi T) func(*Config, string) bool {
	return func(c *Config, v string) bool {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < int64(lo) || n > int64(hi) {
			return false
		}
		*field(c) = T(n)
		return true
	}
}

func durationSetter(field func(*Config) *time.Duration, lo, hi time.Duration) func(*Config, string) bool {
	return func(c *Config, v string) bool {
		d, err := time.ParseDuration(v)
		if err != nil || d < lo || d > hi {
			return false
		}
		*field(c) = d
		return true
	}
}

var decimal = regexp.MustCompile(`^[0-9]+(\.[0-9]*)?$`)

// parseWhole reads a plain decimal number and drops its fraction.
func parseWhole(v string) (int, bool) {
	if !decimal.MatchString(v) {
		return 0, false
	}
	whole, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(whole)
	return n, err == nil
}

// nearest finds the choice v most likely stands for: the same word in
// another case, a known alias, a choice v begins or is part of (http for
// http-sse, warning for warn), or one within two typing slips.
func nearest(v string, choices []string, aliases map[string]string) string {
	l := strings.ToLower(v)
	if a, ok := aliases[l]; ok {
		return a
	}
	best, bestDist := "", 3
	for _, ch := range choices {
		switch {
		case l == ch:
			return ch
		case len(l) >= 3 && (strings.Contains(ch, l) || strings.HasPrefix(l, ch)):
			return ch
		}
		if d := param.Levenshtein(l, ch); d < bestDist {
			best, bestDist = ch, d
		}
	}
	return best
}

// suggestSeconds reads a bare number as seconds: "15" for 15s.
func suggestSeconds(v string) string {
	if decimal.MatchString(v) {
		return v + "s"
	}
	return ""
}

// suggestBinaryUnit turns a decimal or lower-case unit into the binary one
// the setting takes: 64MB or 64mb for 64MiB.
func suggestBinaryUnit(v string) string {
	for _, u := range []string{"K", "M", "G"} {
		for _, typed := range []string{u + "B", u, u + "iB"} {
			if num, ok := cutSuffixFold(v, typed); ok && num != "" {
				return strings.TrimSpace(num) + u + "iB"
			}
		}
	}
	return ""
}

func cutSuffixFold(v, suffix string) (string, bool) {
	if len(v) < len(suffix) || !strings.EqualFold(v[len(v)-len(suffix):], suffix) {
		return "", false
	}
	return v[:len(v)-len(suffix)], true
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

// parseHosts accepts host names (a final dot, as in nsip.farm.lan., is
// dropped) and IP addresses, which are answered anyway; no wildcard, which
// would let in exactly the rebound names the list keeps out.
func parseHosts(v string) ([]string, bool) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(part)), ".")
		if h == "" {
			continue
		}
		if net.ParseIP(h) == nil && (!hostPattern.MatchString(h) || numericTail.MatchString(h)) {
			return nil, false
		}
		out = append(out, h)
	}
	return out, len(out) > 0
}

// suggestHosts mends the usual slip of giving addresses rather than names:
// http://nsip.farm.lan:8000/app becomes nsip.farm.lan.
func suggestHosts(v string) string {
	parts := strings.Split(v, ",")
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if u, err := url.Parse(part); err == nil && u.Host != "" {
			part = u.Host
		}
		if h, _, err := net.SplitHostPort(part); err == nil {
			part = h
		}
		parts[i] = part
	}
	return strings.Join(parts, ",")
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
