package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// callTimeout bounds one tool call in these tests.
const callTimeout = 30 * time.Second

var nineTools = []string{
	"nsip_breed_diversity", "nsip_check_mating", "nsip_compare_animals", "nsip_flock_summary",
	"nsip_get_animal", "nsip_get_last_update", "nsip_get_lineage", "nsip_get_progeny", "nsip_get_statuses",
	"nsip_get_trait_ranges", "nsip_list_breeds", "nsip_plan_matings", "nsip_rank_animals", "nsip_search_animals", "nsip_search_by_lpn",
}

// connect returns an initialized mcp-go client for the binary running with
// the given transport flavour: stdio, sse, streamable or websocket.
func connect(t *testing.T, flavour string, env ...string) (*client.Client, *nsiptest.Server) {
	t.Helper()
	if flavour == "stdio" {
		s := startStdioServer(t, env...)
		initialize(t, s.Client)
		return s.Client, s.Stub
	}
	kind := "http-sse"
	if flavour == "websocket" {
		kind = "websocket"
	}
	srv := startServer(t, kind, env...)
	c := dialFlavour(t, flavour, srv.BaseURL)
	initialize(t, c)
	return c, srv.Stub
}

// dialFlavour opens and starts an mcp-go client on a running network server.
func dialFlavour(t *testing.T, flavour, baseURL string) *client.Client {
	t.Helper()
	c, err := dialFlavourErr(flavour, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func dialFlavourErr(flavour, baseURL string) (*client.Client, error) {
	var c *client.Client
	var err error
	switch flavour {
	case "sse":
		c, err = client.NewSSEMCPClient(baseURL + "/sse")
	case "streamable":
		c, err = client.NewStreamableHttpClient(baseURL + "/mcp")
	case "websocket":
		c = client.NewClient(newWSTransport(baseURL))
	default:
		err = fmt.Errorf("unknown flavour %q", flavour)
	}
	if err != nil {
		return nil, err
	}
	// The SSE client keeps its stream on Start's context: it must outlive
	// the call. Close ends it.
	if err := c.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("%s start: %w", flavour, err)
	}
	return c, nil
}

// call runs a tool and returns its text; an error result fails the test.
func call(t *testing.T, c *client.Client, tool string, args map[string]any) string {
	t.Helper()
	text, err := callTool(c, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func callTool(c *client.Client, tool string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var texts []string
	for _, content := range res.Content {
		if tc, ok := content.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return "", fmt.Errorf("%s(%v) returned an error result: %s", tool, args, text)
	}
	return text, nil
}

// toolCase is one call and the stand-in's own values its answer must show.
type toolCase struct {
	tool string
	args map[string]any
	want []string
}

// toolCases builds a call of each of the nine tools from the stand-in's data,
// so that expectations come from the upstream, not from earlier output.
// toolNames is the names of the tools c is offered, in the order listed.
func toolNames(t *testing.T, ctx context.Context, c *client.Client) []string {
	t.Helper()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func toolCases(t *testing.T, d *nsiptest.Dataset) []toolCase {
	t.Helper()
	groups := d.BreedGroups()
	breed := groups[0].Breeds[0]
	ranges, ok := d.TraitRanges(breed.ID)
	if !ok || len(ranges) == 0 {
		t.Fatalf("stand-in has no trait ranges for breed %d", breed.ID)
	}
	var rangeTrait string
	for code := range ranges {
		rangeTrait = code
		break
	}
	matches, err := d.Search(breed.ID, nsiptest.Criteria{BreedID: breed.ID}, "", false)
	if err != nil || len(matches) == 0 {
		t.Fatalf("stand-in search of breed %d: %v, %d matches", breed.ID, err, len(matches))
	}
	animal, _ := d.Animal(d.DeepPedigree())
	parent := d.MostProgeny()
	cases := []toolCase{
		{"nsip_get_last_update", nil, []string{d.LastUpdated()}},
		{"nsip_list_breeds", nil, []string{groups[0].Name, breed.Name}},
		{"nsip_get_statuses", nil, d.Statuses()},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": breed.ID}, []string{rangeTrait}},
		{"nsip_search_animals", map[string]any{"breed_id": breed.ID, "page_size": 5},
			[]string{matches[0], fmt.Sprint(len(matches))}},
		{"nsip_get_animal", map[string]any{"search_string": animal.LPNID}, []string{animal.LPNID, animal.Sire, animal.Dam}},
		{"nsip_get_lineage", map[string]any{"lpn_id": animal.LPNID}, []string{animal.Sire, animal.Dam}},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 5}, []string{d.Progeny(parent)[0]}},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": animal.LPNID}, []string{animal.LPNID, animal.Sire, animal.Dam}},
	}
	for _, tc := range cases {
		if slices.Contains(tc.want, "") {
			t.Fatalf("stand-in data gave an empty expectation for %s: %q", tc.tool, tc.want)
		}
	}
	return cases
}

var flavours = []string{"stdio", "sse", "streamable", "websocket"}

func TestEndToEndNineToolsOverEveryTransport(t *testing.T) {
	watchdog(t, testLimit)
	for _, flavour := range flavours {
		t.Run(flavour, func(t *testing.T) {
			t.Parallel()
			c, stub := connect(t, flavour)
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			names := toolNames(t, ctx, c)
			sort.Strings(names)
			if !slices.Equal(names, nineTools) {
				t.Fatalf("tools/list = %v, want %v", names, nineTools)
			}
			for _, tc := range toolCases(t, stub.Data()) {
				text := call(t, c, tc.tool, tc.args)
				for _, want := range tc.want {
					if !strings.Contains(text, want) {
						t.Errorf("%s(%v) answer lacks %q; answer starts %.300s", tc.tool, tc.args, want, text)
					}
				}
			}
		})
	}
}

// SC-005: fifty sessions at once on each network transport.
func TestEndToEndFiftyConcurrentSessions(t *testing.T) {
	watchdog(t, testLimit)
	for _, flavour := range []string{"sse", "streamable", "websocket"} {
		t.Run(flavour, func(t *testing.T) {
			kind := map[string]string{"sse": "http-sse", "streamable": "http-sse", "websocket": "websocket"}[flavour]
			// All 50 come from 127.0.0.1.
			srv := startServer(t, kind, "NSIP_RATE_LIMIT=1000", "NSIP_RATE_BURST=1000", "NSIP_MAX_CONCURRENT=50", "MCP_MAX_SESSIONS_PER_CLIENT=64")
			ids := srv.Stub.Data().AnimalIDs()
			const sessions = 50
			errs := make(chan error, sessions)
			var wg sync.WaitGroup
			for i := range sessions {
				wg.Go(func() {
					errs <- oneSession(flavour, srv.BaseURL, ids[(i*37)%len(ids)])
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// oneSession connects, lists the tools and looks up one animal.
func oneSession(flavour, baseURL, lpnID string) error {
	c, err := dialFlavourErr(flavour, baseURL)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "e2e-load", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		return fmt.Errorf("%s initialize: %w", lpnID, err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != len(nineTools) {
		return fmt.Errorf("%s tools/list: %v", lpnID, err)
	}
	text, err := callTool(c, "nsip_get_animal", map[string]any{"search_string": lpnID})
	if err != nil {
		return err
	}
	if !strings.Contains(text, lpnID) {
		return fmt.Errorf("nsip_get_animal(%s) answered without that ID: %.200s", lpnID, text)
	}
	return nil
}

func TestEndToEndStdoutCarriesOnlyJSONRPC(t *testing.T) {
	watchdog(t, testLimit)
	s := startStdioServer(t)
	initialize(t, s.Client)
	d := s.Stub.Data()
	call(t, s.Client, "nsip_list_breeds", nil)
	call(t, s.Client, "nsip_get_animal", map[string]any{"search_string": d.DeepPedigree()})
	if _, err := callTool(s.Client, "nsip_get_animal", map[string]any{"search_string": "NOSUCHANIMAL1"}); err == nil {
		t.Fatal("looking up a missing animal succeeded")
	}
	if code := s.Close(t); code != 0 {
		t.Fatalf("exit status %d after stdin closed, want 0", code)
	}
	lines := strings.Split(strings.TrimSpace(s.Stdout()), "\n")
	if len(lines) < 4 {
		t.Fatalf("stdout had %d lines, want the answers to 4 requests", len(lines))
	}
	for i, line := range lines {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not JSON-RPC: %.200q", i+1, line)
		}
	}
	logs := strings.Split(strings.TrimSpace(s.Stderr()), "\n")
	for i, line := range logs {
		var rec struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Level == "" || rec.Msg == "" {
			t.Errorf("stderr line %d is not a slog JSON record: %.200q", i+1, line)
		}
	}
	if !strings.Contains(s.Stderr(), `"tool":"nsip_get_animal"`) {
		t.Errorf("stderr lacks the log line of the nsip_get_animal call:\n%s", s.Stderr())
	}
	// The call's line names the transport and the call; the session opened
	// before it.
	for _, line := range logs {
		if !strings.Contains(line, `"tool":"nsip_get_animal"`) {
			continue
		}
		var rec map[string]any
		_ = json.Unmarshal([]byte(line), &rec)
		if rec["transport"] != "stdio" || rec["call_id"] == nil || rec["session"] == nil {
			t.Errorf("call line %s: want transport stdio, a call_id and the session", line)
		}
	}
	if !strings.Contains(s.Stderr(), `"msg":"session opened"`) {
		t.Errorf("stderr lacks the session's opening:\n%s", s.Stderr())
	}
}

func TestEndToEndInvalidEnvironmentExitsTwo(t *testing.T) {
	watchdog(t, testLimit)
	cases := []struct{ name, value string }{
		{"MCP_TRANSPORT", "carrier-pigeon"},
		{"MCP_PORT", "eighty"},
		{"NSIP_TIMEOUT", "soon"},
		{"NSIP_TOKEN_BUDGET", "-5"},
		{"LOG_LEVEL", "chatty"},
		{"MCP_ALLOWED_ORIGINS", "flock.example.org"},
		{"NSIP_BREAKER_FAILURES", "0"},
		{"NSIP_BREAKER_COOLDOWN", "forever"},
		{"NSIP_CALL_TIMEOUT", "10s"}, // shorter than the default NSIP_TIMEOUT
		{"NSIP_TOOLSETS", "lookups"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(buildBinary())
			cmd.Env = []string{tc.name + "=" + tc.value}
			var stdout, stderr logbuf.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Fatalf("exit status %d (%v), want 2; stderr %q", code, err, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tc.name) || !strings.Contains(msg, fmt.Sprintf("%q", tc.value)) || !strings.Contains(msg, "accepted values") {
				t.Fatalf("stderr %q: want one line naming %s, the value and the accepted values", msg, tc.name)
			}
			if stdout.String() != "" {
				t.Fatalf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

// NSIP_TOOLSETS=lookup reaches the gateway: the binary lists the nine
// lookups alone, in the table's order, and its instructions name no
// analysis.
func TestEndToEndToolsetLookupOnly(t *testing.T) {
	watchdog(t, testLimit)
	s := startStdioServer(t, "NSIP_TOOLSETS=lookup")
	res := initialize(t, s.Client)
	if strings.Contains(res.Instructions, "nsip_check_mating") || !strings.Contains(res.Instructions, "nsip_get_animal") {
		t.Errorf("instructions %q: want the lookups and no analysis", res.Instructions)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	names := toolNames(t, ctx, s.Client)
	want := []string{
		"nsip_get_last_update", "nsip_list_breeds", "nsip_get_statuses", "nsip_get_trait_ranges",
		"nsip_search_animals", "nsip_get_animal", "nsip_get_lineage", "nsip_get_progeny", "nsip_search_by_lpn",
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools/list %v, want %v", names, want)
	}
}

func TestEndToEndHelpAndVersion(t *testing.T) {
	watchdog(t, testLimit)
	out, err := exec.Command(buildBinary(), "--help").Output()
	if err != nil {
		t.Fatalf("--help: %v", err)
	}
	for _, s := range settings {
		if !strings.Contains(string(out), s.name) {
			t.Errorf("--help does not mention %s", s.name)
		}
	}
	out, err = exec.Command(buildBinary(), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "nsip-mcp ") {
		t.Fatalf("--version printed %q (%v), want nsip-mcp <version>", out, err)
	}
	err = exec.Command(buildBinary(), "serve").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("an unknown argument: %v, want exit status 2", err)
	}
}

// SIGTERM while a call waits on a slow upstream: the call is answered, then
// the process exits 0.
func TestEndToEndSIGTERMLetsCallInFlightFinish(t *testing.T) {
	watchdog(t, testLimit)
	for _, flavour := range flavours {
		t.Run(flavour, func(t *testing.T) {
			t.Parallel()
			var c *client.Client
			var stub *nsiptest.Server
			var signal func() error
			var wait func() int
			var stderr func() string
			if flavour == "stdio" {
				s := startStdioServer(t)
				initialize(t, s.Client)
				c, stub, stderr = s.Client, s.Stub, s.Stderr
				signal = func() error { return s.Signal(syscall.SIGTERM) }
				wait = func() int { return s.Wait(t) }
			} else {
				kind := map[string]string{"sse": "http-sse", "streamable": "http-sse", "websocket": "websocket"}[flavour]
				srv := startServer(t, kind)
				c = dialFlavour(t, flavour, srv.BaseURL)
				initialize(t, c)
				stub, stderr = srv.Stub, srv.Stderr
				signal = func() error { return srv.Signal(syscall.SIGTERM) }
				wait = func() int { return srv.Wait(t) }
			}
			lpn := stub.Data().DeepPedigree()
			stub.SetLatency(nsiptest.EndpointDetails, 1500*time.Millisecond)
			type answer struct {
				text string
				err  error
			}
			answered := make(chan answer, 1)
			go func() {
				text, err := callTool(c, "nsip_get_animal", map[string]any{"search_string": lpn})
				answered <- answer{text, err}
			}()
			waitFor(t, "the call to reach the upstream", func() bool { return stub.Requests(nsiptest.EndpointDetails) > 0 })
			if err := signal(); err != nil {
				t.Fatal(err)
			}
			var a answer
			select {
			case a = <-answered:
			case <-time.After(callTimeout + stopTimeout):
				t.Fatalf("no answer to the call in flight %v after SIGTERM; stderr:\n%s", callTimeout+stopTimeout, stderr())
			}
			if a.err != nil || !strings.Contains(a.text, lpn) {
				t.Fatalf("call in flight at SIGTERM: %v, answer %.200s; want the animal %s", a.err, a.text, lpn)
			}
			if code := wait(); code != 0 {
				t.Fatalf("exit status %d after SIGTERM, want 0", code)
			}
		})
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(callTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEndToEndHealthAndReadiness(t *testing.T) {
	watchdog(t, testLimit)
	srv := startServer(t, "websocket", "NSIP_CACHE_MAX_BYTES=8MiB")
	c := dialFlavour(t, "websocket", srv.BaseURL)
	initialize(t, c)
	call(t, c, "nsip_get_statuses", nil)
	var health map[string]any
	getJSONBody(t, srv.BaseURL+"/healthz", http.StatusOK, &health)
	// The soft memory limit follows the cache bound: twice 8 MiB plus 128 MiB.
	mem, _ := health["memory"].(map[string]any)
	if mem["limit_bytes"] != float64(144<<20) {
		t.Errorf("healthz memory %v, want limit_bytes %d", mem, 144<<20)
	}
	if rt, _ := mem["runtime_bytes"].(float64); rt <= 0 || rt > 144<<20 {
		t.Errorf("healthz memory runtime_bytes %v, want a positive figure under the limit", mem["runtime_bytes"])
	}
	for k, want := range map[string]any{"status": "ok", "transport": "websocket", "open_sessions": 1.0} {
		if health[k] != want {
			t.Errorf("healthz %s = %v, want %v", k, health[k], want)
		}
	}
	for _, k := range []string{"cache", "breaker", "rate_limit", "last_upstream_success", "uptime_seconds", "version"} {
		if _, ok := health[k]; !ok {
			t.Errorf("healthz lacks %q: %v", k, health)
		}
	}
	if b, _ := health["breaker"].(map[string]any); b["state"] != "closed" {
		t.Errorf("healthz breaker %v, want state closed", health["breaker"])
	}
	var ready map[string]any
	getJSONBody(t, srv.BaseURL+"/readyz", http.StatusOK, &ready)
	if ready["status"] != "ready" {
		t.Errorf("readyz %v, want ready", ready)
	}
}

func getJSONBody(t *testing.T, url string, wantStatus int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != wantStatus {
		t.Fatalf("GET %s: status %d, want %d", url, resp.StatusCode, wantStatus)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// BenchmarkStartupToToolsList measures a desktop assistant's wait: from
// starting the process to the answer of its first tools/list over stdio.
// It reports the median as ms/median.
func BenchmarkStartupToToolsList(b *testing.B) {
	stub := nsiptest.NewServer(b, nsiptest.Options{Seed: 1})
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(buildBinary())
		cmd.Env = serverEnv("stdio", stub.URL(), 0, "LOG_LEVEL=error")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		c := client.NewClient(transport.NewIO(stdout, stdin, nil))
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
		if _, err := c.Initialize(ctx, req); err != nil {
			b.Fatal(err)
		}
		list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil || len(list.Tools) != len(nineTools) {
			b.Fatalf("tools/list: %v", err)
		}
		took = append(took, time.Since(start))
		cancel()
		_ = c.Close()
		_ = cmd.Wait()
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/median")
}
