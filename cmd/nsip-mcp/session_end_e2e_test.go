//go:build e2e

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// mcpPost sends one JSON-RPC message to /mcp in session (none for ""), and
// returns the status, the session the answer names and the body.
func mcpPost(ctx context.Context, base, session, body string) (int, string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b), err
}

// queued is /healthz's count of fetches waiting for an NSIP connection.
func queued(t *testing.T, base string) int {
	var h struct {
		RateLimit struct {
			Queued int `json:"queued"`
		} `json:"rate_limit"`
	}
	getJSONBody(t, base+"/healthz", http.StatusOK, &h)
	return h.RateLimit.Queued
}

// A client that starts calls and DELETEs its session leaves nothing behind
// (the red team's loop: initialize, call, DELETE, 100 times over, took an
// honest call from 0.09 s to 21 s): the calls still queued for NSIP end with
// the session, each POST is answered, and the queue empties. Before, they
// stayed queued, each a caller of its own, after the session had gone.
func TestEndToEndDeletedSessionsCallsEndWithIt(t *testing.T) {
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	stub.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultHang, Times: 1})
	base := startInProcess(t, stub, map[string]string{
		// The calls' own deadline lies far past the wait below: only the
		// session's end can empty the queue in time.
		"MCP_TRANSPORT": "http-sse", "NSIP_MAX_CONCURRENT": "1", "NSIP_CALL_TIMEOUT": "10m", "NSIP_TIMEOUT": "5m",
	})
	ctx := context.Background()
	status, session, body, err := mcpPost(ctx, base, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"leaver","version":"1"}}}`)
	if err != nil || status != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %q %v %s", status, session, err, body)
	}
	if _, _, _, err := mcpPost(ctx, base, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	ids := stub.Data().AnimalIDs()
	const n = 5
	var wg sync.WaitGroup
	answered := make(chan string, n)
	defer func() {
		stub.Close() // ends the hung request
		wg.Wait()
	}()
	for i := range n {
		wg.Go(func() {
			call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nsip_get_animal","arguments":{"search_string":%q}}}`, i+1, ids[i])
			_, _, body, err := mcpPost(ctx, base, session, call)
			if err != nil {
				body = err.Error()
			}
			answered <- body
		})
	}
	waitUntil(t, "one call to hang at NSIP and the rest to queue", func() bool { return queued(t, base) == n-1 })

	req, _ := http.NewRequest(http.MethodDelete, base+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	waitUntil(t, "the deleted session's queued calls to leave the queue", func() bool { return queued(t, base) == 0 })
	for range n {
		// The one sent to NSIP goes on (its answer will fill the cache);
		// its caller has left too.
		if body := <-answered; !strings.Contains(body, `\"code\":\"canceled\"`) {
			t.Errorf("a call of the deleted session answered %.300s; want canceled", body)
		}
	}
}

// waitUntil polls cond until it holds, failing after a generous bound.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
