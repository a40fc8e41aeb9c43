//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEndToEndTerminalHint starts the binary with a terminal on stdin (a
// pseudo-terminal from script(1); util-linux's -c, hence Linux only) and
// expects the hint; with a pipe on stdin (every other test) stderr carries
// only JSON log records.
func TestEndToEndTerminalHint(t *testing.T) {
	watchdog(t, testLimit)
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("script(1) from util-linux is needed for a pseudo-terminal: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	// stdin at EOF: script passes Ctrl-D on, and the server stops.
	cmd := exec.CommandContext(ctx, script, "-qec", buildBinary(), "/dev/null")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "NSIP_BASE_URL=http://127.0.0.1:9/api"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script: %v; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "nsip-mcp is an MCP server") || !strings.Contains(string(out), "make demo") {
		t.Errorf("a terminal on stdin got no hint; output:\n%s", out)
	}
}
