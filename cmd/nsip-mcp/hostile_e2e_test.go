package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// toolReply is a tool result as a model sees it.
type toolReply struct {
	text    string
	isError bool
	meta    map[string]any
	took    time.Duration
}

// errorCode is the code of an error result's {"error":{"code":…}} body.
func (r toolReply) errorCode() string {
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(r.text), &body)
	return body.Error.Code
}

// hostileCall calls a tool and returns its result whether or not it is an
// error result; only a protocol error fails the test.
func hostileCall(t *testing.T, c *client.Client, tool string, args map[string]any) toolReply {
	t.Helper()
	r, err := hostileCallErr(c, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hostileCallErr is hostileCall for goroutines other than the test's, which
// must not call t.Fatal: the test would wait for their result forever.
func hostileCallErr(c *client.Client, tool string, args map[string]any) (toolReply, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	start := time.Now()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return toolReply{}, fmt.Errorf("%s(%v): a protocol error instead of a result: %w", tool, args, err)
	}
	r := toolReply{isError: res.IsError, took: time.Since(start)}
	for _, content := range res.Content {
		if tc, ok := content.(mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.Meta != nil {
		r.meta = res.Meta.AdditionalFields
	}
	return r, nil
}

// healthBreaker reads the breaker state from /healthz.
func healthBreaker(t *testing.T, base string) map[string]any {
	t.Helper()
	var h struct {
		Breaker map[string]any `json:"breaker"`
	}
	getJSONBody(t, base+"/healthz", http.StatusOK, &h)
	return h.Breaker
}

// TestEndToEndUpstreamFaults runs the real binary against a misbehaving
// stand-in: each fault gives the caller an error result naming it, well
// within the deadline, while another session is served; once NSIP behaves,
// the same process answers normally.
func TestEndToEndUpstreamFaults(t *testing.T) {
	watchdog(t, testLimit)
	// Two seconds a request, so that only the hang runs into it on a
	// loaded machine; and a breaker that does not open here, since the
	// rows' failures would otherwise add up across rows at a pace set by
	// the scheduler (the breaker has tests of its own).
	srv := startServer(t, "websocket", "NSIP_TIMEOUT=2s", "NSIP_BREAKER_FAILURES=1000")
	c := dialFlavour(t, "websocket", srv.BaseURL)
	initialize(t, c)
	other := dialFlavour(t, "websocket", srv.BaseURL)
	initialize(t, other)
	ids := srv.Stub.Data().AnimalIDs()
	breeds := srv.Stub.Data().BreedIDs()

	rows := []struct {
		name    string
		fault   nsiptest.Fault
		code    string
		problem string
	}{
		{"503 HTML page", nsiptest.Fault{Kind: nsiptest.FaultStatusHTML, Status: 503}, "upstream_error", "HTTP 503"},
		{"200 HTML page", nsiptest.Fault{Kind: nsiptest.FaultHTML200}, "unexpected_response", "not the expected JSON"},
		{"truncated JSON", nsiptest.Fault{Kind: nsiptest.FaultTruncated}, "unexpected_response", "truncated"},
		{"connection reset", nsiptest.Fault{Kind: nsiptest.FaultReset}, "upstream_error", "connection reset"},
		{"hang", nsiptest.Fault{Kind: nsiptest.FaultHang}, "timeout", "did not answer"},
		{"oversize body", nsiptest.Fault{Kind: nsiptest.FaultOversize}, "unexpected_response", "larger than the 16777216-byte limit"},
		// Last: NSIP's pause applies to every later details request for a second.
		{"429 with Retry-After", nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: time.Second}, "rate_limited", "retry after 1 s"},
	}
	for i, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			srv.Stub.SetFault(nsiptest.EndpointDetails, row.fault)
			defer srv.Stub.ClearFaults()
			type reply struct {
				toolReply
				err error
			}
			got := make(chan reply, 1)
			go func() {
				r, err := hostileCallErr(c, "nsip_get_animal", map[string]any{"search_string": ids[i]})
				got <- reply{r, err}
			}()
			// Meanwhile another session asks NSIP something else (not
			// during the 429 row, whose pause holds only details back and
			// is covered by the gateway's tests).
			if row.fault.Kind != nsiptest.FaultRateLimit {
				if r := hostileCall(t, other, "nsip_get_trait_ranges", map[string]any{"breed_id": breeds[i]}); r.isError {
					t.Errorf("the other session was not served during the fault: %s", r.text)
				}
			}
			r := <-got // hostileCallErr gives up after callTimeout
			if r.err != nil {
				t.Fatal(r.err)
			}
			if !r.isError || r.errorCode() != row.code || !strings.Contains(r.text, row.problem) {
				t.Errorf("faulted call: error %v, %s; want %s saying %q", r.isError, r.text, row.code, row.problem)
			}
			// The error code and its text prove which limit ended the call;
			// a clock would only add a way to fail on a busy machine.
			t.Logf("%s: %v: %.300s", row.name, r.took.Round(time.Millisecond), r.text)
		})
	}
	// NSIP is well again: after its pause, the same process answers.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := hostileCall(t, c, "nsip_get_animal", map[string]any{"search_string": ids[0]})
		if !r.isError && strings.Contains(r.text, ids[0]) && r.meta["cache"] == "miss" {
			break
		}
		if time.Now().After(deadline) || r.errorCode() != "rate_limited" {
			t.Fatalf("after the faults cleared: %s", r.text)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if b := healthBreaker(t, srv.BaseURL); b["state"] != "closed" {
		t.Errorf("breaker after recovery: %v", b)
	}
}

// TestEndToEndBreakerOpensAndServesStale: five failed requests in a row,
// retries counted, open the breaker (two calls of three attempts); then
// calls fail fast without reaching NSIP, /healthz says so, and answers
// fetched before are served, marked stale.
func TestEndToEndBreakerOpensAndServesStale(t *testing.T) {
	watchdog(t, testLimit)
	srv := startServer(t, "websocket", "NSIP_TIMEOUT=10s", "NSIP_CACHE_TTL=1s")
	c := dialFlavour(t, "websocket", srv.BaseURL)
	initialize(t, c)
	ids := srv.Stub.Data().AnimalIDs()
	fresh := hostileCall(t, c, "nsip_get_animal", map[string]any{"search_string": ids[0]})
	if fresh.isError {
		t.Fatal(fresh.text)
	}
	time.Sleep(1100 * time.Millisecond) // past the TTL, within the stale window

	srv.Stub.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500})
	failedBefore := srv.Stub.Requests(nsiptest.EndpointDetails)
	for i := 1; i <= 2; i++ {
		if r := hostileCall(t, c, "nsip_get_animal", map[string]any{"search_string": ids[i]}); r.errorCode() != "upstream_error" {
			t.Fatalf("failure %d: %s", i, r.text)
		}
	}
	if b := healthBreaker(t, srv.BaseURL); b["state"] != "open" || b["retry_in_seconds"] == nil {
		t.Fatalf("/healthz breaker after five failed requests: %v, want open with retry_in_seconds", b)
	}
	if n := srv.Stub.Requests(nsiptest.EndpointDetails) - failedBefore; n != 5 {
		t.Errorf("%d failed requests reached NSIP before the breaker opened, want 5", n)
	}
	before := srv.Stub.TotalRequests()
	r := hostileCall(t, c, "nsip_get_lineage", map[string]any{"lpn_id": ids[9]})
	if r.errorCode() != "upstream_unavailable" || !strings.Contains(r.text, "retry_in_seconds") {
		t.Errorf("call while open: %s, want upstream_unavailable with retry_in_seconds", r.text)
	}
	st := hostileCall(t, c, "nsip_get_animal", map[string]any{"search_string": ids[0]})
	if st.isError || st.meta["cache"] != "stale" || st.meta["stale_reason"] != "upstream_unavailable" || st.text != fresh.text {
		t.Errorf("expired answer while open: error %v, _meta %v; want the earlier answer marked stale", st.isError, st.meta)
	}
	if n := srv.Stub.TotalRequests() - before; n != 0 {
		t.Errorf("%d requests reached NSIP while the breaker was open", n)
	}
}

// TestEndToEndDeadlineAndBreakerFromEnvironment: NSIP_CALL_TIMEOUT,
// NSIP_BREAKER_FAILURES and NSIP_BREAKER_COOLDOWN reach the gateway. The
// values differ from the defaults so that a setting left unwired shows.
func TestEndToEndDeadlineAndBreakerFromEnvironment(t *testing.T) {
	watchdog(t, testLimit)
	srv := startServer(t, "websocket", "NSIP_TIMEOUT=1500ms", "NSIP_CALL_TIMEOUT=1500ms",
		"NSIP_BREAKER_FAILURES=2", "NSIP_BREAKER_COOLDOWN=5s")
	c := dialFlavour(t, "websocket", srv.BaseURL)
	initialize(t, c)
	ids := srv.Stub.Data().AnimalIDs()

	// A hanging NSIP: each call's one request is cut off by the call's
	// 1.5 s deadline, which the message names (the request's own limit is
	// the same and starts later, so it never ends a call first, however
	// late the request goes out). Each cut request counts, so two calls
	// open the breaker at NSIP_BREAKER_FAILURES=2 (the default 5 would
	// leave it closed) for NSIP_BREAKER_COOLDOWN.
	srv.Stub.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultHang})
	for _, id := range ids[:2] {
		r := hostileCall(t, c, "nsip_get_animal", map[string]any{"search_string": id})
		if r.errorCode() != "timeout" || !strings.Contains(r.text, "within 1.5s, the time limit for one call") {
			t.Fatalf("call against a hanging NSIP: %s; want timeout naming the 1.5s call limit", r.text)
		}
	}
	b := healthBreaker(t, srv.BaseURL)
	if retry, _ := b["retry_in_seconds"].(float64); b["state"] != "open" || retry < 1 || retry > 5 {
		t.Fatalf("breaker after two failed requests: %v, want open with retry_in_seconds from 1 to 5", b)
	}

	// Once NSIP is well, the 5 s cooldown lets a trial through and it closes
	// the breaker; the default 30 s would outlast this loop.
	srv.Stub.ClearFaults()
	deadline := time.Now().Add(25 * time.Second)
	for {
		r := hostileCall(t, c, "nsip_get_animal", map[string]any{"search_string": ids[2]})
		if !r.isError && strings.Contains(r.text, ids[2]) {
			break
		}
		if r.errorCode() != "upstream_unavailable" || time.Now().After(deadline) {
			t.Fatalf("after the cooldown: %s", r.text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if b := healthBreaker(t, srv.BaseURL); b["state"] != "closed" {
		t.Errorf("breaker after a successful trial: %v, want closed", b)
	}
}

// TestEndToEndGarbageFrameKeepsTheSession: a WebSocket frame that is not
// JSON gets a parse error and the session goes on answering.
func TestEndToEndGarbageFrameKeepsTheSession(t *testing.T) {
	watchdog(t, testLimit)
	srv := startServer(t, "websocket")
	d := websocket.Dialer{HandshakeTimeout: readyTimeout, Subprotocols: []string{"mcp"}}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.BaseURL, "http")+"/ws", nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exchange := func(frame string) map[string]any {
		t.Helper()
		if err := conn.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		for {
			_ = conn.SetReadDeadline(time.Now().Add(callTimeout))
			_, data, err := conn.ReadMessage()
			if err != nil {
				t.Fatalf("after %.60s: %v", frame, err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatalf("frame %q is not JSON", data)
			}
			if _, note := m["method"]; !note {
				return m
			}
		}
	}
	exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`)
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	m := exchange("\x00\x7f{not json") // UTF-8: invalid UTF-8 would close with 1007
	if e, _ := m["error"].(map[string]any); e["code"] != -32700.0 || m["id"] != nil {
		t.Fatalf("garbage frame answered %v, want -32700 with id null", m)
	}
	m = exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nsip_get_statuses","arguments":{}}}`)
	if res, _ := m["result"].(map[string]any); m["id"] != 2.0 || res == nil || res["isError"] == true {
		t.Fatalf("call after the garbage: %v", m)
	}
}

// soakTarget is one server the soak drives: the built binary (pid set) or
// the same wiring run in this process (pid 0), where goroutines can be
// counted.
type soakTarget struct {
	name     string
	base     string
	pid      int
	flavours []string // client transports, taken in turn
	workers  int
}

// soakSample is one reading, at a quiet moment (no session open) unless
// busy is set.
type soakSample struct {
	At         time.Duration `json:"at_s"`
	Busy       bool          `json:"busy,omitempty"`
	RSSKB      int64         `json:"rss_kb,omitempty"`     // the binary's VmRSS
	Threads    int64         `json:"threads,omitempty"`    // the binary's OS threads
	Goroutines int           `json:"goroutines,omitempty"` // in-process servers and this test, soak workers excluded
	HeapKB     uint64        `json:"heap_kb,omitempty"`    // in-process heap in use after GC
}

// procStatus reads fields of /proc/<pid>/status, in the units it gives.
func procStatus(t *testing.T, pid int, keys ...string) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the server's status: %v", err)
	}
	out := map[string]int64{}
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && slices.Contains(keys, k) {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			out[k] = n
		}
	}
	return out
}

// soakSession is one client's visit: connect, initialize, one to three
// calls on a small set of animals (so the cache is warm after the first
// round and growth means a leak), disconnect.
func soakSession(flavour, base string, ids []string, rng *rand.Rand) (int, error) {
	c, err := dialFlavourErr(flavour, base)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "soak", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		return 0, fmt.Errorf("initialize: %w", err)
	}
	n := 1 + rng.IntN(3)
	for i := range n {
		id := ids[rng.IntN(len(ids))]
		var err error
		switch rng.IntN(4) {
		case 0:
			_, err = callTool(c, "nsip_get_statuses", nil)
		case 1:
			_, err = callTool(c, "nsip_search_animals", map[string]any{"page": rng.IntN(4), "page_size": 5, "breed_id": 640})
		default:
			_, err = callTool(c, "nsip_get_animal", map[string]any{"search_string": id})
		}
		if err != nil {
			return i, err
		}
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
	}
	return n, nil
}

// startInProcess runs serve, the binary's own wiring, in this process with
// env on a free loopback port.
func startInProcess(t *testing.T, stub *nsiptest.Server, env map[string]string) string {
	t.Helper()
	port := freePort(t)
	env["MCP_HOST"], env["MCP_PORT"], env["NSIP_BASE_URL"] = "127.0.0.1", strconv.Itoa(port), stub.URL()
	cfg, err := Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("in-process server: %v", err)
		}
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(readyTimeout)
	for {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("in-process server on %s did not come up", base)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitQuiet waits until /healthz shows no session and no call.
func waitQuiet(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var h struct {
			Open     float64 `json:"open_sessions"`
			InFlight float64 `json:"in_flight"`
		}
		getJSONBody(t, base+"/healthz", http.StatusOK, &h)
		if h.Open == 0 && h.InFlight == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still reports %v sessions and %v calls with every client gone", base, h.Open, h.InFlight)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// settled returns the goroutine count once it has stopped falling.
func settled() int {
	last := runtime.NumGoroutine()
	for range 100 {
		runtime.GC()
		time.Sleep(100 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n >= last {
			return n
		}
		last = n
	}
	return last
}

// TestSoak churns a few hundred sessions through the binary (WebSocket, and
// streamable HTTP plus SSE) and through the same wiring in this process for
// NSIP_SOAK_DURATION (default 10m), pausing every 30 s until no session is
// open to read the binaries' RSS and threads and this process's goroutines
// and heap. RSS, goroutines and heap must end within 10% of their reading
// after the first, warm-up round; threads are recorded only, a difference
// of one being more than 10% of eight. It runs only with NSIP_SOAK=1 and writes its readings as JSON to
// NSIP_SOAK_OUT (default $TMPDIR/nsip-soak.json).
func TestSoak(t *testing.T) {
	if os.Getenv("NSIP_SOAK") != "1" {
		t.Skip("the soak runs only with NSIP_SOAK=1")
	}
	duration := 10 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("NSIP_SOAK_DURATION")); err == nil {
		duration = d
	}
	watchdog(t, duration+testLimit)
	const round = 30 * time.Second
	limits := []string{"NSIP_RATE_LIMIT=1000", "NSIP_RATE_BURST=1000", "NSIP_MAX_CONCURRENT=64", "LOG_LEVEL=warn", "MCP_MAX_SESSIONS_PER_CLIENT=200"}
	wsBin := startServer(t, "websocket", limits...)
	httpBin := startServer(t, "http-sse", limits...)
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	inEnv := func(kind string) map[string]string {
		return map[string]string{"MCP_TRANSPORT": kind, "NSIP_RATE_LIMIT": "1000", "NSIP_RATE_BURST": "1000", "NSIP_MAX_CONCURRENT": "64", "MCP_MAX_SESSIONS_PER_CLIENT": "200"}
	}
	targets := []*soakTarget{
		{name: "binary websocket", base: wsBin.BaseURL, pid: wsBin.proc.cmd.Process.Pid, flavours: []string{"websocket"}, workers: 100},
		{name: "binary http-sse", base: httpBin.BaseURL, pid: httpBin.proc.cmd.Process.Pid, flavours: []string{"streamable", "sse"}, workers: 100},
		{name: "in-process websocket", base: startInProcess(t, stub, inEnv("websocket")), flavours: []string{"websocket"}, workers: 40},
		{name: "in-process http-sse", base: startInProcess(t, stub, inEnv("http-sse")), flavours: []string{"streamable", "sse"}, workers: 40},
	}
	ids := stub.Data().AnimalIDs()[:200] // the binaries' stand-ins share seed 1, hence these IDs

	// Workers hold gate for reading while a session is open; the sampler
	// takes it for writing, so that it reads at a moment with no session.
	var gate sync.RWMutex
	var sessions, calls, failures, alive atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for ti, tg := range targets {
		for w := range tg.workers {
			alive.Add(1)
			wg.Go(func() {
				defer alive.Add(-1)
				rng := rand.New(rand.NewPCG(uint64(ti), uint64(w)))
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					gate.RLock()
					n, err := soakSession(tg.flavours[i%len(tg.flavours)], tg.base, ids, rng)
					gate.RUnlock()
					sessions.Add(1)
					calls.Add(int64(n))
					if err != nil {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", tg.name, err))
					}
					time.Sleep(time.Duration(rng.IntN(200)) * time.Millisecond)
				}
			})
		}
	}

	start := time.Now()
	readings := map[string][]soakSample{}
	quiet := func() {
		gate.Lock()
		defer gate.Unlock()
		for _, tg := range targets {
			waitQuiet(t, tg.base)
		}
		at := time.Since(start).Round(time.Second)
		// Idle keep-alive connections of the clients' pool would count
		// as goroutines on both sides; they are not the server's.
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		g := settled() - int(alive.Load()) // the workers, parked on gate, are not the server's
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		readings["in-process"] = append(readings["in-process"], soakSample{At: at, Goroutines: g, HeapKB: ms.HeapInuse >> 10})
		for _, tg := range targets[:2] {
			st := procStatus(t, tg.pid, "VmRSS", "Threads")
			readings[tg.name] = append(readings[tg.name], soakSample{At: at, RSSKB: st["VmRSS"], Threads: st["Threads"]})
		}
	}
	busy := func() {
		at := time.Since(start).Round(time.Second)
		for _, tg := range targets[:2] {
			st := procStatus(t, tg.pid, "VmRSS", "Threads")
			readings[tg.name] = append(readings[tg.name], soakSample{At: at, Busy: true, RSSKB: st["VmRSS"], Threads: st["Threads"]})
		}
		readings["in-process"] = append(readings["in-process"], soakSample{At: at, Busy: true, Goroutines: runtime.NumGoroutine()})
	}
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	next := start.Add(round)
	for time.Since(start) < duration {
		<-tick.C
		busy()
		if time.Now().After(next) {
			quiet()
			next = time.Now().Add(round)
		}
	}
	close(stop)
	wg.Wait()
	quiet()

	summary := map[string]any{"duration_s": time.Since(start).Seconds(), "sessions": sessions.Load(), "calls": calls.Load(),
		"failed_sessions": failures.Load(), "first_failure": firstErr.Load(), "readings": readings}
	out := os.Getenv("NSIP_SOAK_OUT")
	if out == "" {
		out = filepath.Join(os.TempDir(), "nsip-soak.json")
	}
	if b, err := json.MarshalIndent(summary, "", "  "); err == nil {
		_ = os.WriteFile(out, b, 0o644)
	}
	t.Logf("%d sessions, %d calls, %d failed (first: %v) over %v; readings in %s",
		sessions.Load(), calls.Load(), failures.Load(), firstErr.Load(), time.Since(start).Round(time.Second), out)

	// The first quiet reading follows a warm-up round (cache filled, pools
	// grown); flat means the last is within 10% of it.
	flat := func(name, what string, value func(soakSample) float64) {
		var quietVals []float64
		peak := 0.0
		for _, s := range readings[name] {
			v := value(s)
			peak = max(peak, v)
			if !s.Busy {
				quietVals = append(quietVals, v)
			}
		}
		if len(quietVals) < 2 {
			t.Errorf("%s %s: only %d quiet readings", name, what, len(quietVals))
			return
		}
		first, last := quietVals[0], quietVals[len(quietVals)-1]
		t.Logf("%s %s: start %.0f, end %.0f, peak %.0f (%+.1f%%)", name, what, first, last, peak, 100*(last-first)/first)
		if last > first*1.10 {
			t.Errorf("%s %s grew from %.0f to %.0f, more than 10%%", name, what, first, last)
		}
	}
	for _, tg := range targets[:2] {
		flat(tg.name, "RSS KiB", func(s soakSample) float64 { return float64(s.RSSKB) })
	}
	flat("in-process", "goroutines", func(s soakSample) float64 { return float64(s.Goroutines) })
	flat("in-process", "heap KiB", func(s soakSample) float64 { return float64(s.HeapKB) })
	if f := failures.Load(); f*1000 > sessions.Load() {
		t.Errorf("%d of %d sessions failed; first: %v", f, sessions.Load(), firstErr.Load())
	}
}
