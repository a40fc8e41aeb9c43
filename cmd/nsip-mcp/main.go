// Command nsip-mcp serves the NSIP Search API to MCP clients over stdio,
// HTTP (SSE and streamable) or WebSocket, keeping answers inside a token
// budget. It is configured by environment variables; run it with --help for
// the list.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/term"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/views"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run returns the exit status: 0 after a clean stop, 1 when serving failed,
// 2 for bad arguments or configuration. check-nsip, a one-off check of the
// live API rather than the server, has exit statuses of its own.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "check-nsip" {
		return checkNSIP(args[1:], getenv, stdout, stderr)
	}
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
		if msg := listenProblem(err, cfg); msg != "" {
			// A setting to change, like a bad value: one plain line, exit 2.
			fmt.Fprintf(stderr, "nsip-mcp: %s\n", msg)
			return 2
		}
		logger.Error("nsip-mcp stopped", "error", err)
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
	// The server's own registry, so that a test can run several servers
	// in one process and read each one's values.
	m := metrics.New(prometheus.NewRegistry())
	// The gateway's lines, each call's among them, name the transport as
	// the transport's own do.
	glog := logger.With("transport", cfg.Transport)
	// Every HTTP request to NSIP is logged at debug and counted.
	logRequest := calllog.UpstreamHook(glog)
	client, err := nsip.NewClient(
		nsip.WithBaseURL(cfg.NSIP.BaseURL),
		nsip.WithTimeout(cfg.NSIP.Timeout),
		nsip.WithUserAgent("nsip-mcp/"+v),
		nsip.WithRequestHook(func(ctx context.Context, r nsip.RequestInfo) {
			logRequest(ctx, r)
			m.UpstreamAttempt(ctx, r)
		}),
	)
	if err != nil {
		return err
	}
	go checkUpstream(ctx, client, cfg.NSIP.BaseURL, cfg.NSIP.Timeout, logger)
	// The tokenizer table takes a few hundred milliseconds to parse; load it
	// while the transport starts so that the first tools/list is not held up.
	counter := summarize.StartCounter()
	go func() {
		if err := counter.Err(); err != nil {
			logger.Error("token counter unavailable; counting bytes instead", "error", err)
		}
	}()
	gcfg := cfg.Gateway
	gcfg.Logger = glog
	gcfg.Metrics = m
	if cfg.RedisURL != "" {
		rd, err := cache.NewRedis(cache.RedisConfig{URL: cfg.RedisURL, Secret: []byte(cfg.RedisSecret), Logger: logger,
			OpTimeout: cfg.RedisTimeout, SlowAfter: cfg.RedisTimeout / 5})
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
	logger.Info("starting", "version", v, "commit", build.Commit, "transport", cfg.Transport, "nsip_base_url", redactURL(cfg.NSIP.BaseURL),
		"shared_redis", cfg.RedisURL != "", "replicas", gcfg.Replicas)
	opts := cfg.Serve
	opts.Health = func() any { return healthWithBuild{g.Health(), build} }
	opts.Ready = g.Ready
	opts.Metrics = m
	opts.Stateless = gcfg.Replicas > 1
	opts.Version = v
	// mcp-go announces its own record of every task to every session,
	// under an ID no client was given; only the gateway's own status
	// notification, sent to the task's owner, goes out.
	opts.DropNotifications = map[string]func(json.RawMessage) bool{
		mcp.MethodNotificationTasksStatus: func(params json.RawMessage) bool {
			var p struct {
				TaskID string `json:"taskId"`
			}
			return json.Unmarshal(params, &p) != nil || !g.TaskIssued(p.TaskID)
		},
	}
	opts.Logger = logger
	if cfg.WebApp {
		opts.App = views.WebApp()
	}
	err = transport.Serve(ctx, cfg.Transport, s, opts)
	// Calls in flight have answered or been abandoned; analyses running as
	// tasks and breed passes read in the background have no call to wait
	// for, so they are stopped here.
	g.Close()
	return err
}

// listenProblem explains a failure to listen as the setting to change, or
// returns "" when err is not one. The network transports listen on
// MCP_HOST:MCP_PORT; stdio listens only for MCP_HEALTH_ADDR.
func listenProblem(err error, cfg Config) string {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "listen" {
		return ""
	}
	if cfg.Transport == transport.KindStdio {
		return fmt.Sprintf("cannot listen on MCP_HEALTH_ADDR=%s (%v): set it to a free port on an address of this machine, e.g. 127.0.0.1:8081, or unset it",
			cfg.Serve.HealthAddr, op.Err)
	}
	host, port := cfg.Serve.Host, cfg.Serve.Port
	var dns *net.DNSError
	switch {
	case errors.Is(op.Err, syscall.EADDRINUSE):
		return fmt.Sprintf("cannot listen on MCP_PORT=%d: port %d on %s is already in use by another program; set MCP_PORT to a free port, or 0 to have one picked", port, port, host)
	case errors.Is(op.Err, syscall.EACCES):
		return fmt.Sprintf("cannot listen on MCP_PORT=%d (%v): ports below 1024 need privileges; set MCP_PORT to 1024 or above", port, op.Err)
	case errors.Is(op.Err, syscall.EADDRNOTAVAIL):
		return fmt.Sprintf("cannot listen on MCP_HOST=%s: it is not an address of this machine; set MCP_HOST to one of its addresses, e.g. 127.0.0.1, or 0.0.0.0 for all of them", host)
	case errors.As(op.Err, &dns):
		return fmt.Sprintf("cannot listen on MCP_HOST=%s: the name does not resolve (%v); set MCP_HOST to an address of this machine, e.g. 127.0.0.1, or 0.0.0.0 for all of them", host, dns)
	}
	return fmt.Sprintf("cannot listen on MCP_HOST=%s MCP_PORT=%d: %v; check both", host, port, op.Err)
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
