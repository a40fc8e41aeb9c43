package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestEndToEndStdioClientGoneWithCallsInFlight: a desktop client that quits
// with three calls running closes both ends of its pipes. The answers then
// have nowhere to go; before, the first of them killed the process by
// SIGPIPE with no "stopped" line. Now the server finishes, logs that the
// client has gone and that it stopped, and exits 0.
func TestEndToEndStdioClientGoneWithCallsInFlight(t *testing.T) {
	watchdog(t, testLimit)
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	// The calls hang until the client has gone, so that every answer is
	// written after it: a latency could end before the test closes the
	// pipes on a slow machine, and then no answer meets the closed pipe.
	stub.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultHang})
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, stdin := startProcess(t, serverEnv("stdio", stub.URL(), 0), outW, true)
	outW.Close() // the process holds its own copy
	send := func(line string) {
		if _, err := fmt.Fprintln(stdin, line); err != nil {
			t.Fatalf("writing to stdin: %v", err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line, err := bufio.NewReader(outR).ReadString('\n'); err != nil || !strings.Contains(line, `"id":0`) {
		t.Fatalf("initialize answer: %q %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	d := stub.Data()
	lpns := []string{d.DeepPedigree(), d.MostProgeny(), d.Founder()}
	for i := range 3 {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nsip_get_animal","arguments":{"search_string":%q}}}`, i+1, lpns[i]))
	}
	waitFor(t, "the calls to reach the upstream", func() bool { return stub.Requests(nsiptest.EndpointDetails) > 0 })
	outR.Close() // the client is gone
	stdin.Close()
	stub.Handler.Close() // NSIP drops the held calls, which end in errors
	if code := p.wait(t, stopTimeout); code != 0 {
		t.Fatalf("exit status %d (-1: killed by a signal) after the client went away with calls running, want 0; stderr:\n%s", code, p.stderr.String())
	}
	logs := p.stderr.String()
	for _, want := range []string{"the client has gone", `"msg":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
}
