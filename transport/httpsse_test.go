package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

var clientFlavours = []string{"sse", "streamable"}

func TestHTTPSSEListsAndCallsTools(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{})
	for _, flavour := range clientFlavours {
		t.Run(flavour, func(t *testing.T) {
			c := newMCPClient(t, flavour, srv.base)
			names := toolNames(t, c)
			slices.Sort(names)
			if want := []string{"block", "echo", "log", "progress"}; !slices.Equal(names, want) {
				t.Fatalf("tools/list = %v, want %v", names, want)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			got, err := callText(ctx, c, "echo", map[string]any{"text": "ewe 6401"})
			if err != nil {
				t.Fatal(err)
			}
			if got != "echo: ewe 6401" {
				t.Fatalf("echo answered %q, want %q", got, "echo: ewe 6401")
			}
		})
	}
}

func TestHTTPSSEProgressReachesClient(t *testing.T) {
	for _, flavour := range clientFlavours {
		t.Run(flavour, func(t *testing.T) {
			g := newGate()
			srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{})
			c := newMCPClient(t, flavour, srv.base)
			notes := make(chan mcp.JSONRPCNotification, 10)
			c.OnNotification(func(n mcp.JSONRPCNotification) { notes <- n; g.open() })
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			req := mcp.CallToolRequest{}
			req.Params.Name = "progress"
			req.Params.Arguments = map[string]any{"hold": true}
			req.Params.Meta = &mcp.Meta{ProgressToken: "tok-" + flavour}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(mcp.TextContent).Text; text != "progress done" {
				t.Fatalf("result %q, want %q", text, "progress done")
			}
			select {
			case n := <-notes:
				f := n.Params.AdditionalFields
				if n.Method != "notifications/progress" || f["progressToken"] != "tok-"+flavour || f["message"] != "half way" {
					t.Fatalf("notification = %s %v, want notifications/progress for tok-%s", n.Method, f, flavour)
				}
			case <-time.After(testTimeout):
				t.Fatal("no progress notification arrived")
			}
		})
	}
}

// SC-005: fifty clients at once, each answered with its own value.
func TestHTTPSSEFiftyConcurrentSessions(t *testing.T) {
	// Every client of the test shares 127.0.0.1.
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxSessionsPerClient: 100})
	for _, flavour := range clientFlavours {
		t.Run(flavour, func(t *testing.T) {
			const sessions = 50
			clients := make([]*client.Client, sessions)
			var wg sync.WaitGroup
			for i := range clients {
				wg.Go(func() {
					c, err := connectMCP(t, flavour, srv.base)
					if err != nil {
						t.Errorf("client %d: %v", i, err)
					}
					clients[i] = c
				})
			}
			wg.Wait()
			errs := make(chan error, sessions)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			for i, c := range clients {
				if c == nil {
					t.FailNow()
				}
				wg.Go(func() {
					want := fmt.Sprintf("echo: session %d", i)
					got, err := callText(ctx, c, "echo", map[string]any{"text": fmt.Sprintf("session %d", i)})
					if err == nil && got != want {
						err = fmt.Errorf("session %d got %q, want %q", i, got, want)
					}
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			reportErrors(t, errs)
		})
	}
}

func TestHTTPSSESlowCallDoesNotBlockOtherSessions(t *testing.T) {
	for _, flavour := range clientFlavours {
		t.Run(flavour, func(t *testing.T) {
			g := newGate()
			srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{})
			slow, quick := newMCPClient(t, flavour, srv.base), newMCPClient(t, flavour, srv.base)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			slowDone := make(chan string, 1)
			go func() {
				text, err := callText(ctx, slow, "block", map[string]any{"label": flavour})
				if err != nil {
					text = err.Error()
				}
				slowDone <- text
			}()
			g.waitEntered(t)
			got, err := callText(ctx, quick, "echo", map[string]any{"text": "quick"})
			if err != nil || got != "echo: quick" {
				t.Fatalf("echo while another session is busy = %q, %v", got, err)
			}
			select {
			case text := <-slowDone:
				t.Fatalf("slow call finished before it was released: %q", text)
			default:
			}
			g.open()
			if text := <-slowDone; text != "released: "+flavour {
				t.Fatalf("slow call answered %q, want %q", text, "released: "+flavour)
			}
		})
	}
}

func TestHTTPSSEShutdownLetsCallsInFlightFinish(t *testing.T) {
	for _, flavour := range clientFlavours {
		t.Run(flavour, func(t *testing.T) {
			g := newGate()
			srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{})
			c := newMCPClient(t, flavour, srv.base)
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			answer := make(chan string, 1)
			go func() {
				text, err := callText(ctx, c, "block", map[string]any{"label": "in flight"})
				if err != nil {
					text = "error: " + err.Error()
				}
				answer <- text
			}()
			g.waitEntered(t)
			stopped := make(chan error, 1)
			go func() { stopped <- srv.stop() }()
			waitDraining(t, srv.base)
			select {
			case err := <-stopped:
				t.Fatalf("Serve returned (%v) while a call was still running", err)
			default:
			}
			g.open()
			if got := <-answer; got != "released: in flight" {
				t.Fatalf("call in flight during shutdown answered %q, want %q", got, "released: in flight")
			}
			if err := <-stopped; err != nil {
				t.Fatalf("Serve returned %v, want nil", err)
			}
		})
	}
}

// waitDraining returns once /healthz says the server is draining, which is
// how a test knows shutdown has begun; the listener stays open until the
// calls in flight are over.
func waitDraining(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		if status, body := getJSON(t, base+"/healthz", nil); status == http.StatusServiceUnavailable && body["status"] == "draining" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never said it was draining", base)
}

func TestHTTPSSEGuards(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{
		AllowedOrigins: []string{"https://flock.example.org"},
	})
	initBody := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	cases := []struct {
		name       string
		method     string
		path       string
		header     http.Header
		wantStatus int
		wantACAO   string
	}{
		{"no origin", "GET", "/healthz", nil, 200, ""},
		{"rebinding host on healthz", "GET", "/healthz", http.Header{"Host": {"evil.example:8000"}}, 403, ""},
		{"rebinding host on sse", "GET", "/sse", http.Header{"Host": {"evil.example"}}, 403, ""},
		{"rebinding host on mcp", "POST", "/mcp", http.Header{"Host": {"evil.example"}}, 403, ""},
		{"localhost host", "GET", "/healthz", http.Header{"Host": {"localhost:8000"}}, 200, ""},
		{"foreign origin", "GET", "/healthz", http.Header{"Origin": {"https://evil.example"}}, 403, ""},
		{"foreign origin on mcp", "POST", "/mcp", http.Header{"Origin": {"https://evil.example"}}, 403, ""},
		{"listed origin", "GET", "/healthz", http.Header{"Origin": {"https://flock.example.org"}}, 200, "https://flock.example.org"},
		{"listed origin on mcp", "POST", "/mcp", http.Header{"Origin": {"https://flock.example.org"}}, 200, "https://flock.example.org"},
		{"loopback page", "GET", "/healthz", http.Header{"Origin": {"http://localhost:5173"}}, 200, "http://localhost:5173"},
		{"null origin", "GET", "/healthz", http.Header{"Origin": {"null"}}, 403, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.base+tc.path, strings.NewReader(string(initBody)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tc.header {
				req.Header[k] = v
			}
			if h := tc.header.Get("Host"); h != "" {
				req.Host = h
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			resp, err := newHTTPClient(t).Do(req.WithContext(ctx))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			// One check refuses, on every route: the site's, which says why.
			if body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096)); tc.wantStatus == 403 &&
				!strings.Contains(string(body), "is not a loopback name") && !strings.Contains(string(body), "is not allowed") {
				t.Fatalf("refusal %q does not come from the site's own check", body)
			} else if strings.Contains(tc.name, "origin") && tc.wantStatus == 403 &&
				!strings.Contains(string(body), "can add it to MCP_ALLOWED_ORIGINS") {
				t.Fatalf("refusal %q does not name the setting that allows an origin", body)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tc.wantACAO {
				t.Fatalf("Access-Control-Allow-Origin %q, want %q", got, tc.wantACAO)
			}
		})
	}
}

func TestHTTPSSEPreflight(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{AllowedOrigins: []string{"https://flock.example.org"}})
	req, _ := http.NewRequest(http.MethodOptions, srv.base+"/mcp", nil)
	req.Header.Set("Origin", "https://flock.example.org")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id")
	resp, err := newHTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight status %d, want 204", resp.StatusCode)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin":  "https://flock.example.org",
		"Access-Control-Allow-Headers": "content-type, mcp-session-id",
		"Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestHTTPSSEBodyLimit(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxBodyBytes: 1024})
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, strings.Repeat("x", 2048))
	for _, path := range []string{"/mcp", "/message?sessionId=none"} {
		status, body := postRaw(t, srv.base+path, nil, []byte(big))
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "limit of 1024 bytes") {
			t.Errorf("POST %s with a 2 KiB body: %d %s, want 413 naming the 1024-byte limit", path, status, body)
		}
	}
}

func TestHTTPSSEMaxSessions(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxSessions: 1})
	newMCPClient(t, "sse", srv.base)
	status, body := getJSON(t, srv.base+"/sse", nil)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("second SSE stream: status %d, want 503", status)
	}
	if msg := errorMessage(body); !strings.Contains(msg, "1 sessions are open") {
		t.Fatalf("second SSE stream: message %q, want it to name the limit", msg)
	}
}

// errorMessage digs error.message out of a decoded JSON-RPC error body.
func errorMessage(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

func TestHealthzMergesApplicationFacts(t *testing.T) {
	type appHealth struct {
		Status       string  `json:"status"`
		CacheEntries int     `json:"cache_entries"`
		HitRate      float64 `json:"cache_hit_rate"`
	}
	facts := appHealth{Status: "degraded", CacheEntries: 12, HitRate: 0.5}
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{
		Version: "9.8.7",
		Health:  func() any { return facts },
	})
	newMCPClient(t, "sse", srv.base) // one open stream
	status, body := getJSON(t, srv.base+"/healthz", nil)
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200", status)
	}
	want := map[string]any{
		"status": "degraded", "version": "9.8.7", "transport": "http-sse",
		"open_sessions": 1.0, "in_flight": 0.0, "cache_entries": 12.0, "cache_hit_rate": 0.5,
	}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("healthz %s = %v, want %v", k, body[k], v)
		}
	}
	if up, ok := body["uptime_seconds"].(float64); !ok || up < 0 || up > testTimeout.Seconds()*3 {
		t.Errorf("healthz uptime_seconds = %v, want a small non-negative number", body["uptime_seconds"])
	}
	if g, ok := body["goroutines"].(float64); !ok || g < 1 || g != math.Trunc(g) {
		t.Errorf("healthz goroutines = %v, want a positive whole number", body["goroutines"])
	}
	mem, _ := body["memory"].(map[string]any)
	total, _ := mem["runtime_bytes"].(float64)
	heap, _ := mem["heap_object_bytes"].(float64)
	if heap <= 0 || total < heap {
		t.Errorf("healthz memory = %v, want heap_object_bytes > 0 within runtime_bytes", mem)
	}
	if _, ok := mem["limit_bytes"]; ok && os.Getenv("GOMEMLIMIT") == "" {
		t.Errorf("healthz memory = %v: a limit is reported though none is set", mem)
	}
}

// TestHealthzCountsGoroutines: the count is read on every request, so
// opening WebSocket sessions, each served by a reader and a writer, raises it
// by at least two a session, and closing them brings it back down.
func TestHealthzCountsGoroutines(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{})
	goroutines := func() float64 {
		t.Helper()
		_, body := getJSON(t, srv.base+"/healthz", nil)
		g, ok := body["goroutines"].(float64)
		if !ok {
			t.Fatalf("healthz goroutines = %v, want a number", body["goroutines"])
		}
		return g
	}
	before := goroutines()
	const sessions = 5
	var conns []*wsClient
	for range sessions {
		conns = append(conns, mustDialWS(t, srv.base))
	}
	waitSessions(t, srv.base, sessions)
	during := goroutines()
	// Each session runs at least two goroutines (its reader and writer);
	// one per session is asked for, since the baseline may still include a
	// goroutine of the previous request's connection on its way out.
	if during < before+sessions {
		t.Fatalf("goroutines %v with %d sessions open, %v before; want at least %v", during, sessions, before, before+sessions)
	}
	for _, c := range conns {
		c.conn.Close()
	}
	waitSessions(t, srv.base, 0)
	deadline := time.Now().Add(testTimeout)
	for after := goroutines(); after >= during; after = goroutines() {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines stayed at %v after the %d sessions closed (%v while open)", after, sessions, during)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestReadyz(t *testing.T) {
	var mu sync.Mutex
	var readyErr error
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{
		Ready: func(context.Context) error { mu.Lock(); defer mu.Unlock(); return readyErr },
	})
	cases := []struct {
		err        error
		wantStatus int
		want       map[string]any
	}{
		{nil, 200, map[string]any{"status": "ready"}},
		{errors.New("upstream last answered 5m ago"), 503, map[string]any{"status": "not_ready", "reason": "upstream last answered 5m ago"}},
	}
	for _, tc := range cases {
		mu.Lock()
		readyErr = tc.err
		mu.Unlock()
		status, body := getJSON(t, srv.base+"/readyz", nil)
		if status != tc.wantStatus {
			t.Errorf("readyz with %v: status %d, want %d", tc.err, status, tc.wantStatus)
		}
		for k, v := range tc.want {
			if body[k] != v {
				t.Errorf("readyz with %v: %s = %v, want %v", tc.err, k, body[k], v)
			}
		}
	}
}
