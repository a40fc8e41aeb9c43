// Command nsip-load drives an nsip-mcp server with many concurrent MCP
// sessions over WebSocket, legacy SSE, streamable HTTP or stdio, and
// reports throughput, latency percentiles, errors by kind, upstream
// requests per tool call and the server's memory. It only ever talks to
// loopback addresses; with --spawn it runs the stand-in NSIP upstream itself
// and starts nsip-mcp pointed at it. Run nsip-load --help for the flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command without the process around it: the summary goes to
// stdout, progress and problems to stderr, and the exit status comes back.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == serveBareCommand {
		return serveBare(ctx, stderr)
	}
	if len(args) > 0 && args[0] == analysesCommand {
		return runAnalyses(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parseArgs(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "nsip-load: %v\nRun nsip-load --help for usage.\n", err)
		return 2
	}
	rep, err := execute(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "nsip-load: %v\n", err)
		return 1
	}
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "nsip-load: writing the summary: %v\n", err)
			return 1
		}
	} else {
		rep.writeText(stdout)
	}
	if n := rep.failed(); n > 0 && cfg.failOnError {
		fmt.Fprintf(stderr, "nsip-load: %d calls or connections failed\n", n)
		return 3
	}
	return 0
}
