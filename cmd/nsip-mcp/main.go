// Command nsip-mcp serves the NSIP Search API to MCP clients over stdio,
// HTTP (SSE and streamable) or WebSocket, keeping answers inside a token
// budget. It is configured by environment variables; run it with --help for
// the list.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"golang.org/x/term"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run returns the exit status: 0 after a clean stop, 1 when serving failed,
// 2 for bad arguments or configuration.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			writeUsage(stdout)
			return 0
		case "-version", "--version":
			fmt.Fprintf(stdout, "nsip-mcp %s\n", build)
			return 0
		default:
			fmt.Fprintf(stderr, "nsip-mcp: unknown argument %q: configuration comes from environment variables; see nsip-mcp --help\n", a)
			return 2
		}
	}
	cfg, err := Load(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "nsip-mcp: %v\n", err)
		return 2
	}
	if cfg.Transport == "stdio" && term.IsTerminal(int(os.Stdin.Fd())) {
		writeTerminalHint(stderr)
	}
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	// Libraries that log through slog's or log's defaults end up here too,
	// never on stdout.
	slog.SetDefault(logger)

	// A client that closes its end of stdout while calls are running is
	// gone, which ends the server normally: writes then fail with EPIPE
	// instead of the signal killing the process. (Go already spares the
	// process for sockets; only fds 1 and 2 get the signal's default.)
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, logger); err != nil {
		logger.Error("nsip-mcp stopped", "err", err)
		return 1
	}
	return 0
}

// serve wires the client, gateway and transport together and runs until
// ctx ends.
func serve(ctx context.Context, cfg Config, logger *slog.Logger) error {
	v := build.Version
	if cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
		logger.Debug("soft memory limit set from NSIP_CACHE_MAX_BYTES", "bytes", cfg.MemoryLimit)
	}
	client, err := nsip.NewClient(
		nsip.WithBaseURL(cfg.BaseURL),
		nsip.WithTimeout(cfg.Timeout),
		nsip.WithUserAgent("nsip-mcp/"+v),
	)
	if err != nil {
		return err
	}
	// The tokenizer table takes a few hundred milliseconds to parse; load it
	// while the transport starts so that the first tools/list is not held up.
	counter := summarize.StartCounter()
	go func() {
		if err := counter.Err(); err != nil {
			logger.Error("token counter unavailable; counting bytes instead", "err", err)
		}
	}()
	gcfg := gateway.DefaultConfig()
	gcfg.Budget = cfg.TokenBudget
	gcfg.MaxBudget = cfg.MaxTokenBudget
	gcfg.CacheTTL = cfg.CacheTTL
	gcfg.CacheMaxEntries = cfg.CacheMaxEntries
	gcfg.CacheMaxBytes = cfg.CacheMaxBytes
	gcfg.RateLimit = cfg.RateLimit
	gcfg.RateBurst = cfg.RateBurst
	gcfg.MaxConcurrentUpstream = cfg.MaxConcurrent
	gcfg.CallTimeout = cfg.CallTimeout
	gcfg.BreakerFailures = uint32(cfg.BreakerFailures) // 1..1000, checked by Load
	gcfg.BreakerCooldown = cfg.BreakerCooldown
	gcfg.MaxUpstreamPause = cfg.MaxPause
	gcfg.Logger = logger
	gcfg.Replicas = cfg.Replicas
	if cfg.RedisURL != "" {
		rd, err := cache.NewRedis(cache.RedisConfig{URL: cfg.RedisURL, Secret: []byte(cfg.RedisSecret), Logger: logger})
		if err != nil {
			return err
		}
		defer rd.Close()
		gcfg.Shared = rd
	}
	g, err := gateway.New(client, summarize.New(counter), gcfg)
	if err != nil {
		return err
	}
	s := g.NewMCPServer("nsip-mcp", v)
	logger.Info("starting", "version", v, "commit", build.Commit, "transport", cfg.Transport, "nsip_base_url", cfg.BaseURL,
		"shared_redis", cfg.RedisURL != "", "replicas", cfg.Replicas)
	return transport.Serve(ctx, cfg.Transport, s, transport.Options{
		Host:           cfg.Host,
		Port:           cfg.Port,
		HealthAddr:     cfg.HealthAddr,
		AllowedOrigins: cfg.AllowedOrigins,
		AuthToken:      cfg.AuthToken,
		Health:         func() any { return healthWithBuild{g.Health(), build} },
		Ready:          g.Ready,
		Stateless:      cfg.Replicas > 1,
		Version:        v,
		Logger:         logger,

		// Every session of a client address counts against this bound.
		MaxSessionsPerClient: cfg.MaxSessionsPerClient,
	})
}

// healthWithBuild is /healthz's body: the gateway's facts and, under
// "build", which build is answering.
type healthWithBuild struct {
	gateway.Health
	Build buildInfo `json:"build"`
}

// writeTerminalHint is for a person who started the server by hand and sees
// it wait: it is waiting for an MCP host, and here is how to try it.
func writeTerminalHint(w io.Writer) {
	fmt.Fprint(w, `nsip-mcp is an MCP server: it reads JSON-RPC from stdin and answers on
stdout, waiting for an assistant (an MCP host) to talk to it. To try it:
  offline, from a clone:  make demo   (a stand-in NSIP and one call)
  in an MCP inspector:    npx @modelcontextprotocol/inspector nsip-mcp
  in an assistant:        see "Connect an assistant" in the README
                          (Claude Desktop, Claude Code, Cursor, VS Code)
Ctrl-D or Ctrl-C stops it. Logs follow as JSON lines.
`)
}
