package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/transport"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// TestLoadDefaults: an empty environment gives each package's own
// defaults, field for field, so the command and the libraries cannot
// disagree (NSIP_TIMEOUT once said 15s while nsip.DefaultTimeout said 30s).
func TestLoadDefaults(t *testing.T) {
	got, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Transport:   transport.KindStdio,
		Serve:       transport.Options{Host: transport.DefaultHost, Port: 8000, MaxSessions: transport.DefaultMaxSessions},
		NSIP:        NSIPConfig{BaseURL: nsip.DefaultBaseURL, Timeout: nsip.DefaultTimeout},
		Gateway:     gateway.DefaultConfig(),
		MemoryLimit: 2*cache.DefaultMaxBytes + 128<<20,
		LogLevel:    slog.LevelInfo,
		// The slow mark follows as a fifth: 50 ms, the cache's own.
		RedisTimeout: cache.DefaultRedisOpTimeout,
	}
	if cache.DefaultRedisOpTimeout/5 != cache.DefaultRedisSlowAfter {
		t.Errorf("a fifth of the default Redis limit is %v, the cache's slow mark %v: NSIP_REDIS_TIMEOUT's default would move it", cache.DefaultRedisOpTimeout/5, cache.DefaultRedisSlowAfter)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", got, want)
	}
	// What the library does with a zero field is what the command does
	// with an unset variable.
	if got.NSIP.Timeout > got.Gateway.CallTimeout {
		t.Errorf("the default request limit %v exceeds the default call deadline %v", got.NSIP.Timeout, got.Gateway.CallTimeout)
	}
}

// TestHelpDefaultsAreTheDefaults: the default --help prints for each
// variable, set explicitly, changes nothing.
func TestHelpDefaultsAreTheDefaults(t *testing.T) {
	base, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	d := defaultConfig()
	for _, s := range settings {
		shown := s.show(&d)
		if shown == "" || s.secrecy == secret {
			continue // unset by default
		}
		got, err := Load(env(map[string]string{s.name: shown}))
		if err != nil {
			t.Errorf("%s=%s, its own default, is refused: %v", s.name, shown, err)
			continue
		}
		if !reflect.DeepEqual(got, base) {
			t.Errorf("%s=%s, its default as --help shows it, changes the configuration:\n got %+v\nwant %+v", s.name, shown, got, base)
		}
	}
}

func TestLoadReadsEveryVariable(t *testing.T) {
	got, err := Load(env(map[string]string{
		"MCP_TRANSPORT":               "websocket",
		"MCP_HOST":                    "0.0.0.0",
		"MCP_PORT":                    "9100",
		"MCP_ALLOWED_ORIGINS":         " https://Flock.Example.org/ , http://localhost:5173",
		"NSIP_BASE_URL":               "http://127.0.0.1:8080/api/",
		"NSIP_TIMEOUT":                "2s",
		"NSIP_CACHE_TTL":              "30m",
		"NSIP_CACHE_MAX_ENTRIES":      "500",
		"NSIP_CACHE_MAX_BYTES":        "8MiB",
		"NSIP_FULL_MAX_BYTES":         "2MiB",
		"NSIP_FULL_UNREAD_MAX_BYTES":  "6MiB",
		"NSIP_TOKEN_BUDGET":           "1500",
		"NSIP_MAX_TOKEN_BUDGET":       "12000",
		"NSIP_RATE_LIMIT":             "2.5",
		"NSIP_RATE_BURST":             "3",
		"NSIP_MAX_CONCURRENT":         "8",
		"NSIP_CALL_TIMEOUT":           "45s",
		"NSIP_BREAKER_FAILURES":       "3",
		"NSIP_BREAKER_COOLDOWN":       "2m",
		"NSIP_MAX_PAUSE":              "90s",
		"NSIP_EVALUATION_RECHECK":     "5m",
		"LOG_LEVEL":                   "DEBUG",
		"MCP_AUTH_TOKEN":              "5f1c0a9e7b2d4c68a1e3",
		"NSIP_REDIS_URL":              "rediss://:s3cret@redis.internal:6380/2",
		"NSIP_REDIS_SECRET":           "9b1f0c4e7a2d8c61b3e5f7a9c0d2e4f6",
		"NSIP_REDIS_TIMEOUT":          "2s",
		"NSIP_REPLICAS":               "3",
		"MCP_MAX_SESSIONS_PER_CLIENT": "300",
		"MCP_MAX_SESSIONS":            "2000",
		"MCP_TRUSTED_PROXIES":         " 10.0.0.5 , 172.28.0.0/24,::ffff:192.0.2.1",
		"MCP_WEB_APP":                 "on",
		"MCP_ALLOWED_HOSTS":           " NSIP.Farm.lan , shepherd-pi.local., 192.168.1.20",
	}))
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.DefaultConfig()
	gw.CacheTTL, gw.CacheMaxEntries, gw.CacheMaxBytes = 30*time.Minute, 500, 8<<20
	gw.Budget, gw.MaxBudget = 1500, 12000
	gw.RateLimit, gw.RateBurst, gw.MaxConcurrentUpstream = 2.5, 3, 8
	gw.CallTimeout, gw.BreakerFailures, gw.BreakerCooldown = 45*time.Second, 3, 2*time.Minute
	gw.MaxUpstreamPause, gw.Replicas = 90*time.Second, 3
	gw.EvaluationRecheck = 5 * time.Minute
	gw.FullMaxBytes = 2 << 20
	gw.FullUnreadMaxBytes = 6 << 20
	want := Config{
		Transport: "websocket",
		Serve: transport.Options{
			Host: "0.0.0.0", Port: 9100,
			AllowedOrigins:       []string{"https://flock.example.org", "http://localhost:5173"},
			AllowedHosts:         []string{"nsip.farm.lan", "shepherd-pi.local", "192.168.1.20"},
			AuthToken:            "5f1c0a9e7b2d4c68a1e3",
			MaxSessionsPerClient: 300,
			MaxSessions:          2000,
			TrustedProxies: []netip.Prefix{
				netip.MustParsePrefix("10.0.0.5/32"), netip.MustParsePrefix("172.28.0.0/24"), netip.MustParsePrefix("192.0.2.1/32"),
			},
		},
		NSIP:         NSIPConfig{BaseURL: "http://127.0.0.1:8080/api", Timeout: 2 * time.Second},
		Gateway:      gw,
		RedisURL:     "rediss://:s3cret@redis.internal:6380/2",
		WebApp:       true,
		RedisSecret:  "9b1f0c4e7a2d8c61b3e5f7a9c0d2e4f6",
		RedisTimeout: 2 * time.Second,
		MemoryLimit:  16<<20 + 128<<20, // twice the cache, plus headroom
		LogLevel:     slog.LevelDebug,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %+v\nwant %+v", got, want)
	}
}

func TestLoadLeavesGOMEMLIMITToTheRuntime(t *testing.T) {
	got, err := Load(env(map[string]string{"GOMEMLIMIT": "1GiB", "NSIP_CACHE_MAX_BYTES": "8MiB"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.MemoryLimit != 0 {
		t.Errorf("with GOMEMLIMIT set, MemoryLimit = %d, want 0 (the runtime reads GOMEMLIMIT itself)", got.MemoryLimit)
	}
}

func TestLoadStdioHealthAddr(t *testing.T) {
	got, err := Load(env(map[string]string{"MCP_HEALTH_ADDR": "127.0.0.1:8081"}))
	if err != nil || got.Serve.HealthAddr != "127.0.0.1:8081" {
		t.Fatalf("MCP_HEALTH_ADDR in stdio mode: %q, %v", got.Serve.HealthAddr, err)
	}
}

func TestLoadRejectsBadValues(t *testing.T) {
	cases := []struct {
		env     map[string]string
		name    string
		value   string
		accepts string
	}{
		{map[string]string{"MCP_TRANSPORT": "grpc"}, "MCP_TRANSPORT", "grpc", "stdio, http-sse or websocket"},
		{map[string]string{"NSIP_REDIS_URL": "redis.internal:6379"}, "NSIP_REDIS_URL", "redis.internal:6379", "redis:// or rediss://"},
		{map[string]string{"NSIP_REDIS_URL": "redis://redis.internal:6379/db"}, "NSIP_REDIS_URL", "redis://redis.internal:6379/db", "redis:// or rediss://"},
		{map[string]string{"NSIP_REPLICAS": "0"}, "NSIP_REPLICAS", "0", "1 to 1000"},
		{map[string]string{"MCP_TRANSPORT": "HTTP-SSE"}, "MCP_TRANSPORT", "HTTP-SSE", "stdio, http-sse or websocket"},
		{map[string]string{"MCP_HOST": "my host"}, "MCP_HOST", "my host", "IP address or host name"},
		{map[string]string{"MCP_PORT": "http"}, "MCP_PORT", "http", "0 to 65535"},
		{map[string]string{"MCP_PORT": "70000"}, "MCP_PORT", "70000", "0 to 65535"},
		{map[string]string{"MCP_HEALTH_ADDR": "8081"}, "MCP_HEALTH_ADDR", "8081", "host:port"},
		{map[string]string{"MCP_MAX_SESSIONS_PER_CLIENT": "0"}, "MCP_MAX_SESSIONS_PER_CLIENT", "0", "1 to 100000"},
		{map[string]string{"MCP_MAX_SESSIONS_PER_CLIENT": "many"}, "MCP_MAX_SESSIONS_PER_CLIENT", "many", "1 to 100000"},
		{map[string]string{"MCP_MAX_SESSIONS": "0"}, "MCP_MAX_SESSIONS", "0", "1 to 100000"},
		{map[string]string{"MCP_TRUSTED_PROXIES": "nginx"}, "MCP_TRUSTED_PROXIES", "nginx", "e.g. 10.0.0.5 or 172.28.0.0/24"},
		{map[string]string{"MCP_TRUSTED_PROXIES": "10.0.0.0/8,10.0.0.300"}, "MCP_TRUSTED_PROXIES", "10.0.0.0/8,10.0.0.300", "IP addresses and CIDR prefixes"},
		{map[string]string{"MCP_TRUSTED_PROXIES": ","}, "MCP_TRUSTED_PROXIES", ",", "IP addresses and CIDR prefixes"},
		{map[string]string{"MCP_TRANSPORT": "websocket", "MCP_HEALTH_ADDR": "127.0.0.1:8081"}, "MCP_HEALTH_ADDR", "127.0.0.1:8081", "only with MCP_TRANSPORT=stdio"},
		{map[string]string{"MCP_ALLOWED_ORIGINS": "flock.example.org"}, "MCP_ALLOWED_ORIGINS", "flock.example.org", "comma-separated list of origins"},
		{map[string]string{"MCP_ALLOWED_ORIGINS": "https://a.example/app"}, "MCP_ALLOWED_ORIGINS", "https://a.example/app", "comma-separated list of origins"},
		{map[string]string{"MCP_ALLOWED_HOSTS": "http://nsip.farm.lan:8000"}, "MCP_ALLOWED_HOSTS", "http://nsip.farm.lan:8000", "host names such as nsip.farm.lan"},
		{map[string]string{"MCP_ALLOWED_HOSTS": "*"}, "MCP_ALLOWED_HOSTS", "*", "to answer any name, set MCP_AUTH_TOKEN"},
		{map[string]string{"MCP_ALLOWED_HOSTS": "*.farm.lan"}, "MCP_ALLOWED_HOSTS", "*.farm.lan", "host names"},
		{map[string]string{"MCP_ALLOWED_HOSTS": "farm lan"}, "MCP_ALLOWED_HOSTS", "farm lan", "host names"},
		{map[string]string{"MCP_ALLOWED_HOSTS": "192.168.1.300"}, "MCP_ALLOWED_HOSTS", "192.168.1.300", "host names"},
		{map[string]string{"MCP_ALLOWED_HOSTS": ","}, "MCP_ALLOWED_HOSTS", ",", "host names"},
		{map[string]string{"MCP_HOST": "999.1.1.1"}, "MCP_HOST", "999.1.1.1", "IP address or host name"},
		{map[string]string{"MCP_HOST": "10.0.0.256"}, "MCP_HOST", "10.0.0.256", "IP address or host name"},
		{map[string]string{"NSIP_BASE_URL": "nsipsearch.nsip.org/api"}, "NSIP_BASE_URL", "nsipsearch.nsip.org/api", "absolute http or https URL"},
		{map[string]string{"NSIP_BASE_URL": "ftp://example.org/api"}, "NSIP_BASE_URL", "ftp://example.org/api", "absolute http or https URL"},
		{map[string]string{"NSIP_TIMEOUT": "15"}, "NSIP_TIMEOUT", "15", "duration from 100ms to 5m"},
		{map[string]string{"NSIP_TIMEOUT": "1h"}, "NSIP_TIMEOUT", "1h", "duration from 100ms to 5m"},
		{map[string]string{"NSIP_CACHE_TTL": "-1h"}, "NSIP_CACHE_TTL", "-1h", "duration from 1s to 168h"},
		{map[string]string{"NSIP_EVALUATION_RECHECK": "-1m"}, "NSIP_EVALUATION_RECHECK", "-1m", "duration from 0 to 1h, e.g. 1m (0 reads the date on every call)"},
		{map[string]string{"NSIP_EVALUATION_RECHECK": "2h"}, "NSIP_EVALUATION_RECHECK", "2h", "duration from 0 to 1h"},
		{map[string]string{"NSIP_EVALUATION_RECHECK": "soon"}, "NSIP_EVALUATION_RECHECK", "soon", "duration from 0 to 1h"},
		{map[string]string{"NSIP_CACHE_MAX_ENTRIES": "0"}, "NSIP_CACHE_MAX_ENTRIES", "0", "integer from 1 to 10000000"},
		{map[string]string{"NSIP_CACHE_MAX_BYTES": "64mb"}, "NSIP_CACHE_MAX_BYTES", "64mb", "KiB, MiB or GiB"},
		{map[string]string{"NSIP_CACHE_MAX_BYTES": "512"}, "NSIP_CACHE_MAX_BYTES", "512", "from 1KiB to 64GiB"},
		{map[string]string{"NSIP_FULL_MAX_BYTES": "2GiB"}, "NSIP_FULL_MAX_BYTES", "2GiB", "from 1KiB to 1GiB"},
		{map[string]string{"NSIP_FULL_UNREAD_MAX_BYTES": "1KiB"}, "NSIP_FULL_UNREAD_MAX_BYTES", "1KiB", "from 64KiB to 1GiB"},
		{map[string]string{"NSIP_TOKEN_BUDGET": "100"}, "NSIP_TOKEN_BUDGET", "100", "whole number from 256 to 100000"},
		{map[string]string{"NSIP_MAX_TOKEN_BUDGET": "30000"}, "NSIP_MAX_TOKEN_BUDGET", "30000", "integer from 256 to 25000"},
		{map[string]string{"NSIP_RATE_LIMIT": "fast"}, "NSIP_RATE_LIMIT", "fast", "requests per second from 0.1 to 1000"},
		{map[string]string{"NSIP_RATE_BURST": "0"}, "NSIP_RATE_BURST", "0", "integer from 1 to 1000"},
		{map[string]string{"NSIP_MAX_CONCURRENT": "1e3"}, "NSIP_MAX_CONCURRENT", "1e3", "integer from 1 to 1000"},
		{map[string]string{"LOG_LEVEL": "verbose"}, "LOG_LEVEL", "verbose", "debug, info, warn or error"},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, err := Load(env(tc.env))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Load: %v, want a *ConfigError", err)
			}
			if ce.Name != tc.name || ce.Value != tc.value || !strings.Contains(ce.Accepts, tc.accepts) {
				t.Fatalf("error names %s=%q accepting %q; want %s=%q accepting %q", ce.Name, ce.Value, ce.Accepts, tc.name, tc.value, tc.accepts)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") || !strings.Contains(msg, tc.name) || !strings.Contains(msg, `"`+tc.value+`"`) {
				t.Fatalf("message %q must be one line naming %s and %q", msg, tc.name, tc.value)
			}
		})
	}
}

// TestLoadDeadlinesAndBreaker covers the call deadline and the breaker
// settings, with the whole message a bad value gets.
func TestLoadDeadlinesAndBreaker(t *testing.T) {
	const (
		callAccepts = "a duration from 100ms to 15m and no shorter than NSIP_TIMEOUT (raise this or lower NSIP_TIMEOUT), e.g. 30s"
		failAccepts = "an integer from 1 to 1000"
		coolAccepts = "a duration from 1s to 1h, e.g. 30s"
	)
	cases := []struct {
		name    string
		env     map[string]string
		want    [3]any // CallTimeout, BreakerFailures, BreakerCooldown
		wantErr string
	}{
		{name: "smallest", env: map[string]string{"NSIP_TIMEOUT": "100ms", "NSIP_CALL_TIMEOUT": "100ms", "NSIP_BREAKER_FAILURES": "1", "NSIP_BREAKER_COOLDOWN": "1s"},
			want: [3]any{100 * time.Millisecond, 1, time.Second}},
		{name: "largest", env: map[string]string{"NSIP_CALL_TIMEOUT": "15m", "NSIP_BREAKER_FAILURES": "1000", "NSIP_BREAKER_COOLDOWN": "1h"},
			want: [3]any{15 * time.Minute, 1000, time.Hour}},
		{name: "request limit equal to the call's", env: map[string]string{"NSIP_TIMEOUT": "45s", "NSIP_CALL_TIMEOUT": "45000ms"},
			want: [3]any{45 * time.Second, 5, 30 * time.Second}},
		{name: "no unit", env: map[string]string{"NSIP_CALL_TIMEOUT": "30"},
			wantErr: `invalid NSIP_CALL_TIMEOUT="30": accepted values: ` + callAccepts + `; did you mean NSIP_CALL_TIMEOUT=30s?`},
		{name: "zero call timeout", env: map[string]string{"NSIP_CALL_TIMEOUT": "0s"},
			wantErr: `invalid NSIP_CALL_TIMEOUT="0s": accepted values: ` + callAccepts},
		{name: "call timeout over the bound", env: map[string]string{"NSIP_CALL_TIMEOUT": "16m"},
			wantErr: `invalid NSIP_CALL_TIMEOUT="16m": accepted values: ` + callAccepts},
		{name: "call shorter than the default request limit", env: map[string]string{"NSIP_CALL_TIMEOUT": "10s"},
			wantErr: `invalid NSIP_CALL_TIMEOUT="10s" together with NSIP_TIMEOUT=15s: accepted values: ` + callAccepts},
		{name: "request limit above the default call deadline", env: map[string]string{"NSIP_TIMEOUT": "1m"},
			wantErr: `invalid NSIP_CALL_TIMEOUT="30s" together with NSIP_TIMEOUT=1m: accepted values: ` + callAccepts},
		{name: "no unit, and no unit would help", env: map[string]string{"NSIP_CALL_TIMEOUT": "3000"},
			wantErr: `invalid NSIP_CALL_TIMEOUT="3000": accepted values: ` + callAccepts},
		{name: "zero failures", env: map[string]string{"NSIP_BREAKER_FAILURES": "0"},
			wantErr: `invalid NSIP_BREAKER_FAILURES="0": accepted values: ` + failAccepts},
		{name: "negative failures", env: map[string]string{"NSIP_BREAKER_FAILURES": "-3"},
			wantErr: `invalid NSIP_BREAKER_FAILURES="-3": accepted values: ` + failAccepts},
		{name: "fractional failures", env: map[string]string{"NSIP_BREAKER_FAILURES": "2.5"},
			wantErr: `invalid NSIP_BREAKER_FAILURES="2.5": accepted values: ` + failAccepts},
		{name: "too many failures", env: map[string]string{"NSIP_BREAKER_FAILURES": "4294967297"},
			wantErr: `invalid NSIP_BREAKER_FAILURES="4294967297": accepted values: ` + failAccepts},
		{name: "sub-second cooldown", env: map[string]string{"NSIP_BREAKER_COOLDOWN": "500ms"},
			wantErr: `invalid NSIP_BREAKER_COOLDOWN="500ms": accepted values: ` + coolAccepts},
		{name: "cooldown over the bound", env: map[string]string{"NSIP_BREAKER_COOLDOWN": "2h"},
			wantErr: `invalid NSIP_BREAKER_COOLDOWN="2h": accepted values: ` + coolAccepts},
		{name: "negative cooldown", env: map[string]string{"NSIP_BREAKER_COOLDOWN": "-30s"},
			wantErr: `invalid NSIP_BREAKER_COOLDOWN="-30s": accepted values: ` + coolAccepts},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(env(tc.env))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Load error:\n got %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := [3]any{c.Gateway.CallTimeout, int(c.Gateway.BreakerFailures), c.Gateway.BreakerCooldown}; got != tc.want {
				t.Fatalf("call timeout, breaker failures, cooldown = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestByteSizes(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1024", 1024, true}, {"2KiB", 2048, true}, {"64MiB", 64 << 20, true}, {"1GiB", 1 << 30, true},
		{"10B", 10, true}, {"1.5MiB", 0, false}, {"MiB", 0, false}, {"-1", 0, false}, {"99999999999GiB", 0, false},
	}
	for _, tc := range cases {
		got, ok := parseBytes(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for n, want := range map[int64]string{64 << 20: "64MiB", 3 << 10: "3KiB", 1000: "1000", 2 << 30: "2GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestUsageListsEveryVariableWithItsDefault(t *testing.T) {
	var b bytes.Buffer
	writeUsage(&b)
	lines := strings.Split(b.String(), "\n")
	d := defaultConfig()
	for _, s := range settings {
		def := s.show(&d)
		if def == "" {
			def = "(unset)"
		}
		found := false
		for _, l := range lines {
			if f := strings.Fields(l); len(f) == 3 && f[0] == s.name && f[1] == "default" && f[2] == def {
				found = true
			}
		}
		if !found {
			t.Errorf("--help has no line %q", s.name+" default "+def)
		}
	}
}

func TestRunArguments(t *testing.T) {
	cases := []struct {
		args       []string
		env        map[string]string
		code       int
		wantOut    string
		wantErr    string
		wantErrOne bool // stderr is exactly one line
	}{
		{[]string{"--help"}, nil, 0, "NSIP_TOKEN_BUDGET", "", false},
		{[]string{"-h"}, nil, 0, "MCP_TRANSPORT", "", false},
		{[]string{"--version"}, nil, 0, "nsip-mcp " + build.String() + "\n", "", false},
		{[]string{"--port=9"}, nil, 2, "", `unknown argument "--port=9"`, true},
		{nil, map[string]string{"MCP_TRANSPORT": "smoke-signal"}, 2, "", `invalid MCP_TRANSPORT="smoke-signal"`, true},
		{nil, map[string]string{"MCP_TRUSTED_PROXIES": "lb.internal"}, 2, "", `invalid MCP_TRUSTED_PROXIES="lb.internal": accepted values: a comma-separated list of IP addresses and CIDR prefixes of your reverse proxies, e.g. 10.0.0.5`, true},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, env(tc.env), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Fatalf("stdout %q lacks %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Fatalf("stderr %q lacks %q", errb.String(), tc.wantErr)
			}
			if tc.wantErrOne && strings.Count(errb.String(), "\n") != 1 {
				t.Fatalf("stderr %q is not exactly one line", errb.String())
			}
		})
	}
}

// TestConfigErrorsNeverShowSecrets: a refused token is not echoed, and a
// refused URL is shown with its user information hidden, however mangled
// the URL is.
func TestConfigErrorsNeverShowSecrets(t *testing.T) {
	cases := []struct {
		name, value, secret string
		shown               string // what the message shows instead; "" for nothing
	}{
		{"MCP_AUTH_TOKEN", "hunter2-short", "hunter2", ""},
		{"MCP_AUTH_TOKEN", "hunter2 with a space in it", "hunter2", ""},
		{"NSIP_REDIS_URL", "redis://:hunter2@redis:6379/db", "hunter2", `"redis://:xxxxx@redis:6379/db"`},
		{"NSIP_REDIS_URL", "redis://admin:hunter2@redis:6379/db", "hunter2", `"redis://admin:xxxxx@redis:6379/db"`},
		{"NSIP_REDIS_URL", "redis://hunter2@redis:6379/db", "hunter2", `"redis://xxxxx@redis:6379/db"`},
		{"NSIP_REDIS_URL", "redis://:hunter2 with/slash@redis:6379", "hunter2", `"redis://xxxxx@redis:6379"`},
		{"NSIP_REDIS_URL", "rediss//:hunter2@redis:6379", "hunter2", `"xxxxx@redis:6379"`},
		{"NSIP_REDIS_URL", "redis:6379 password=hunter2", "hunter2", `"redis:6379 xxxxx"`},
		{"NSIP_REDIS_URL", "redis://redis:6379/db?password=hunter2", "hunter2", `"redis://redis:6379/db?password=xxxxx"`},
		{"NSIP_REDIS_URL", "redis//redis:6379?password=hunter2", "hunter2", `"redis//redis:6379?xxxxx"`},
		{"NSIP_BASE_URL", "ftp://user:hunter2@example.org/api", "hunter2", `"ftp://user:xxxxx@example.org/api"`},
		{"MCP_ALLOWED_ORIGINS", "https://app.example.org,https://user:hunter2@app.example.org", "hunter2", `"https://app.example.org,https://user:xxxxx@app.example.org"`},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+tc.value, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(nil, env(map[string]string{tc.name: tc.value}), &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errb.String())
			}
			msg := errb.String()
			if strings.Contains(msg, tc.secret) {
				t.Fatalf("the message shows the secret: %q", msg)
			}
			if !strings.Contains(msg, "invalid "+tc.name) || (tc.shown != "" && !strings.Contains(msg, tc.shown)) {
				t.Fatalf("message %q should name %s and show %s", msg, tc.name, tc.shown)
			}
			_, err := Load(env(map[string]string{tc.name: tc.value}))
			var ce *ConfigError
			if !errors.As(err, &ce) || strings.Contains(fmt.Sprintf("%+v %#v", ce, ce), tc.secret) {
				t.Fatalf("the error value itself holds the secret: %#v", ce)
			}
		})
	}
	if got := redactURL("http://nsip:hunter2@nsip.example.org/api"); got != "http://nsip:xxxxx@nsip.example.org/api" {
		t.Errorf("a base URL with a password is logged as %q", got)
	}
	if got := redactURL(nsip.DefaultBaseURL); got != nsip.DefaultBaseURL {
		t.Errorf("a URL without user information is changed to %q", got)
	}
}

// TestNearMissesGetASuggestion: a value one slip from an accepted one is
// refused with the accepted one, which would itself be accepted.
func TestNearMissesGetASuggestion(t *testing.T) {
	cases := []struct{ name, value, want string }{
		{"MCP_TRANSPORT", "http", "http-sse"},
		{"MCP_TRANSPORT", "HTTP-SSE", "http-sse"},
		{"MCP_TRANSPORT", "sse", "http-sse"},
		{"MCP_TRANSPORT", "streamable-http", "http-sse"},
		{"MCP_TRANSPORT", "ws", "websocket"},
		{"MCP_TRANSPORT", "web-socket", "websocket"},
		{"MCP_TRANSPORT", "stdoi", "stdio"},
		{"MCP_TRANSPORT", "grpc", ""},
		{"LOG_LEVEL", "warning", "warn"},
		{"LOG_LEVEL", "verbose", "debug"},
		{"LOG_LEVEL", "eror", "error"},
		{"LOG_LEVEL", "loud", ""},
		{"NSIP_CACHE_MAX_BYTES", "64mb", "64MiB"},
		{"NSIP_CACHE_MAX_BYTES", "512 KB", "512KiB"},
		{"NSIP_CACHE_MAX_BYTES", "128GB", ""}, // above the bound either way
		{"NSIP_TIMEOUT", "15", "15s"},
		{"NSIP_TIMEOUT", "600", ""}, // 10m is above the bound
		{"NSIP_CACHE_TTL", "3600", "3600s"},
		{"NSIP_EVALUATION_RECHECK", "60", "60s"},
		{"MCP_ALLOWED_HOSTS", "http://nsip.farm.lan:8000/app", "nsip.farm.lan"},
		{"MCP_ALLOWED_HOSTS", "nsip.farm.lan:8000, shepherd-pi.local", "nsip.farm.lan,shepherd-pi.local"},
		{"MCP_ALLOWED_HOSTS", "*", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, err := Load(env(map[string]string{tc.name: tc.value}))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Load: %v, want a *ConfigError", err)
			}
			if ce.Suggest != tc.want {
				t.Fatalf("suggestion %q, want %q (%v)", ce.Suggest, tc.want, err)
			}
			want := "; did you mean " + tc.name + "=" + tc.want + "?"
			if has := strings.HasSuffix(err.Error(), want); has != (tc.want != "") {
				t.Fatalf("message %q: ends with %q = %v", err, want, has)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(nil, env(map[string]string{"MCP_TRANSPORT": "http"}), &out, &errb); code != 2 ||
		errb.String() != `nsip-mcp: invalid MCP_TRANSPORT="http": accepted values: stdio, http-sse or websocket; did you mean MCP_TRANSPORT=http-sse?`+"\n" {
		t.Fatalf("MCP_TRANSPORT=http: exit %d, stderr %q", code, errb.String())
	}
}

// Redis without a secret would let anyone who can write to it plant
// answers, so the server refuses to start, saying how to make one; a bad
// secret is refused without being repeated, and so is the Redis URL's
// password.
func TestLoadRedisSecret(t *testing.T) {
	const url, pw = "redis://:hunter2-redis-pw@redis:6379/0", "hunter2-redis-pw"
	cases := []struct {
		name, secret, value, with string
	}{
		{"missing", "", "", "NSIP_REDIS_URL set"},
		{"short", "0123456789abcdef0123456789abcde", "", ""},
		{"with a space", "0123456789abcdef 0123456789abcdef", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := map[string]string{"NSIP_REDIS_URL": url, "NSIP_REDIS_SECRET": tc.secret}
			_, err := Load(env(e))
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Name != "NSIP_REDIS_SECRET" || ce.Value != tc.value || ce.With != tc.with {
				t.Fatalf("Load: %#v, want NSIP_REDIS_SECRET=%q with %q", err, tc.value, tc.with)
			}
			var out, errb bytes.Buffer
			if code := run(nil, env(e), &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errb.String())
			}
			msg := errb.String()
			if !strings.Contains(msg, "NSIP_REDIS_SECRET") || !strings.Contains(msg, "openssl rand -hex 32") || strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr %q: want one line naming NSIP_REDIS_SECRET and how to make one", msg)
			}
			if strings.Contains(msg, pw) || (tc.secret != "" && strings.Contains(msg, tc.secret)) {
				t.Errorf("stderr %q repeats a secret", msg)
			}
		})
	}
	good := "0123456789abcdef0123456789abcdef"
	c, err := Load(env(map[string]string{"NSIP_REDIS_URL": url, "NSIP_REDIS_SECRET": good}))
	if err != nil || c.RedisSecret != good {
		t.Fatalf("Load with a 32-character secret: %q, %v", c.RedisSecret, err)
	}
	// Without Redis a secret does no harm, and none is needed.
	if _, err := Load(env(map[string]string{"NSIP_REDIS_SECRET": good})); err != nil {
		t.Errorf("Load with a secret and no Redis: %v", err)
	}
}

// NSIP_TOOLSETS goes straight into gateway.Config; a name that is not a
// toolset stops the server with exit status 2, naming the setting and the
// names it most likely meant.
func TestLoadToolsets(t *testing.T) {
	for v, want := range map[string][]string{
		"lookup":             {"lookup"},
		"analysis":           {"analysis"},
		" analysis , lookup": {"analysis", "lookup"},
	} {
		c, err := Load(env(map[string]string{"NSIP_TOOLSETS": v}))
		if err != nil || !slices.Equal(c.Gateway.Toolsets, want) {
			t.Errorf("NSIP_TOOLSETS=%q: %v, %v; want %v", v, c.Gateway.Toolsets, err, want)
		}
	}
	for v, suggest := range map[string]string{
		"lookups":          "lookup",
		"lookup,analysys":  "lookup,analysis",
		"Analysis":         "analysis",
		"lookup,lookup":    "", // mended, it would still be refused
		"lookup,,analysis": "",
		"search":           "",
		"all":              "",
	} {
		var out, errb bytes.Buffer
		code := run(nil, env(map[string]string{"NSIP_TOOLSETS": v}), &out, &errb)
		msg := errb.String()
		if code != 2 || !strings.HasPrefix(msg, fmt.Sprintf("nsip-mcp: invalid NSIP_TOOLSETS=%q: accepted values: a comma-separated list of lookup and analysis", v)) {
			t.Errorf("NSIP_TOOLSETS=%q: exit %d, stderr %q", v, code, msg)
		}
		hint := "did you mean NSIP_TOOLSETS=" + suggest + "?"
		if has := strings.Contains(msg, "did you mean"); has != (suggest != "") || has && !strings.Contains(msg, hint) {
			t.Errorf("NSIP_TOOLSETS=%q: stderr %q, suggestion %q shown: %v", v, msg, suggest, has)
		}
	}
}

// The task bounds and TTL go into gateway.Config; a value out of range
// stops the server naming the setting.
func TestLoadTaskSettings(t *testing.T) {
	c, err := Load(env(map[string]string{"NSIP_TASKS_PER_CLIENT": "4", "NSIP_TASKS_MAX": "40", "NSIP_TASK_TTL": "2m"}))
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Gateway; g.TasksPerClient != 4 || g.TasksMax != 40 || g.TaskTTL != 2*time.Minute {
		t.Errorf("tasks per client %d, max %d, TTL %s; want 4, 40, 2m", g.TasksPerClient, g.TasksMax, g.TaskTTL)
	}
	for name, bad := range map[string]string{"NSIP_TASKS_PER_CLIENT": "0", "NSIP_TASKS_MAX": "lots", "NSIP_TASK_TTL": "25h"} {
		if _, err := Load(env(map[string]string{name: bad})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming it", name, bad, err)
		}
	}
}

// NSIP_STRUCTURED goes into gateway.Config as NoStructured, on by default;
// any value but on and off stops the server with exit status 2, naming the
// setting and the accepted values, and the value most likely meant.
func TestLoadStructured(t *testing.T) {
	for v, off := range map[string]bool{"": false, "on": false, "off": true} {
		vars := map[string]string{}
		if v != "" {
			vars["NSIP_STRUCTURED"] = v
		}
		c, err := Load(env(vars))
		if err != nil || c.Gateway.NoStructured != off {
			t.Errorf("NSIP_STRUCTURED=%q: NoStructured %v, %v; want %v", v, c.Gateway.NoStructured, err, off)
		}
	}
	for v, suggest := range map[string]string{
		"false": "off",
		"of":    "off",
		"OFF":   "off",
		"true":  "on",
		"On":    "on",
		"maybe": "",
	} {
		var out, errb bytes.Buffer
		code := run(nil, env(map[string]string{"NSIP_STRUCTURED": v}), &out, &errb)
		msg := errb.String()
		if code != 2 || !strings.HasPrefix(msg, fmt.Sprintf("nsip-mcp: invalid NSIP_STRUCTURED=%q: accepted values: on or off", v)) {
			t.Errorf("NSIP_STRUCTURED=%q: exit %d, stderr %q", v, code, msg)
		}
		hint := "did you mean NSIP_STRUCTURED=" + suggest + "?"
		if has := strings.Contains(msg, "did you mean"); has != (suggest != "") || has && !strings.Contains(msg, hint) {
			t.Errorf("NSIP_STRUCTURED=%q: stderr %q, suggestion %q shown: %v", v, msg, suggest, has)
		}
	}
}

// MCP_WEB_APP is off by default and on only with a network transport; a
// bad value or stdio stops the server with exit status 2 naming the
// setting, what it accepts and, for a near miss, the value meant.
func TestLoadWebApp(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"MCP_TRANSPORT": "websocket", "MCP_WEB_APP": "off"}, false},
		{map[string]string{"MCP_TRANSPORT": "websocket", "MCP_WEB_APP": "on"}, true},
		{map[string]string{"MCP_TRANSPORT": "http-sse", "MCP_WEB_APP": "on"}, true},
	} {
		c, err := Load(env(tc.vars))
		if err != nil || c.WebApp != tc.want {
			t.Errorf("%v: WebApp %v, %v; want %v", tc.vars, c.WebApp, err, tc.want)
		}
	}
	for _, tc := range []struct {
		vars map[string]string
		msg  string
	}{
		{map[string]string{"MCP_TRANSPORT": "websocket", "MCP_WEB_APP": "yes"},
			`nsip-mcp: invalid MCP_WEB_APP="yes": accepted values: on or off, and on only with MCP_TRANSPORT=websocket or http-sse; did you mean MCP_WEB_APP=on?`},
		{map[string]string{"MCP_WEB_APP": "on"},
			`nsip-mcp: invalid MCP_WEB_APP="on" together with MCP_TRANSPORT=stdio: accepted values: on or off, and on only with MCP_TRANSPORT=websocket or http-sse`},
	} {
		var out, errb bytes.Buffer
		code := run(nil, env(tc.vars), &out, &errb)
		if got := strings.TrimSpace(errb.String()); code != 2 || got != tc.msg {
			t.Errorf("%v: exit %d, stderr\n%s\nwant exit 2 and\n%s", tc.vars, code, got, tc.msg)
		}
	}
}

// MCP_ALLOWED_HOSTS takes host names; an address typed in its place (with
// a scheme or a port) or a wildcard stops the server with exit status 2
// and one line naming the setting, and for the address the name meant.
func TestLoadAllowedHosts(t *testing.T) {
	const accepts = "accepted values: a comma-separated list of host names such as nsip.farm.lan or shepherd-pi.local, without scheme or port (IP addresses and localhost need no listing; * is not accepted: to answer any name, set MCP_AUTH_TOKEN)"
	for v, want := range map[string]string{
		"http://nsip.farm.lan:8000/app": `nsip-mcp: invalid MCP_ALLOWED_HOSTS="http://nsip.farm.lan:8000/app": ` + accepts + "; did you mean MCP_ALLOWED_HOSTS=nsip.farm.lan?",
		"*":                             `nsip-mcp: invalid MCP_ALLOWED_HOSTS="*": ` + accepts,
	} {
		var out, errb bytes.Buffer
		code := run(nil, env(map[string]string{"MCP_TRANSPORT": "websocket", "MCP_HOST": "0.0.0.0", "MCP_ALLOWED_HOSTS": v}), &out, &errb)
		if got := strings.TrimSpace(errb.String()); code != 2 || got != want {
			t.Errorf("MCP_ALLOWED_HOSTS=%s: exit %d, stderr\n%s\nwant exit 2 and\n%s", v, code, got, want)
		}
	}
	c, err := Load(env(map[string]string{"MCP_TRANSPORT": "websocket", "MCP_HOST": "0.0.0.0", "MCP_ALLOWED_HOSTS": "shepherd-pi.local"}))
	if err != nil || !slices.Equal(c.Serve.AllowedHosts, []string{"shepherd-pi.local"}) {
		t.Errorf("MCP_ALLOWED_HOSTS=shepherd-pi.local: %v, %v; want the name passed to the transport", c.Serve.AllowedHosts, err)
	}
}

// NSIP_EVALUATION_RECHECK=0 reads the date on every call: a window of
// none, not the default's minute.
func TestLoadEvaluationRecheck(t *testing.T) {
	for _, c := range []struct {
		value string
		want  time.Duration
	}{
		{"", time.Minute},
		{"0", 0},
		{"0s", 0},
		{"30s", 30 * time.Second},
		{"1h", time.Hour},
	} {
		got, err := Load(env(map[string]string{"NSIP_EVALUATION_RECHECK": c.value}))
		if err != nil {
			t.Fatalf("NSIP_EVALUATION_RECHECK=%q: %v", c.value, err)
		}
		if got.Gateway.EvaluationRecheck != c.want {
			t.Errorf("NSIP_EVALUATION_RECHECK=%q: window %s, want %s", c.value, got.Gateway.EvaluationRecheck, c.want)
		}
	}
}
