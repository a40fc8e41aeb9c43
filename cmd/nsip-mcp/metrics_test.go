package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The server as run, over the stand-in: known calls are counted exactly on
// /metrics, which needs the bearer token like /mcp does.
func TestMetricsCountKnownCalls(t *testing.T) {
	const token = "metrics-test-token-0123456789"
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 200})
	// The first lineage request is throttled; the client's retry succeeds.
	stub.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, Times: 1})
	base := startMetricsServer(t, map[string]string{
		"NSIP_BASE_URL":  stub.URL(),
		"MCP_TRANSPORT":  "http-sse",
		"MCP_AUTH_TOKEN": token,
	})

	c, err := client.NewStreamableHttpClient(base+"/mcp",
		mcptransport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18" // a version with sessions
	init.Params.ClientInfo = mcp.Implementation{Name: "metrics-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	id := stub.Data().DeepPedigree()
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
	}{
		{"nsip_get_animal", map[string]any{"search_string": id}, false}, // miss
		{"nsip_get_animal", map[string]any{"search_string": id}, false}, // hit
		{"nsip_get_animal", map[string]any{"search_string": 42}, true},  // invalid_argument
		{"nsip_get_lineage", map[string]any{"lpn_id": id}, false},       // miss, after a 429 and a retry
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tc.tool, tc.args
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError != tc.isError {
			t.Fatalf("%s(%v): error result %v, want %v (err %v)", tc.tool, tc.args, res != nil && res.IsError, tc.isError, err)
		}
	}

	if code := scrapeStatus(t, base, ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: status %d, want 401", code)
	}
	fams := scrape(t, base, token)
	for _, w := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"nsip_mcp_tool_calls_total", map[string]string{"tool": "nsip_get_animal", "outcome": "ok"}, 2},
		{"nsip_mcp_tool_calls_total", map[string]string{"tool": "nsip_get_animal", "outcome": "invalid_argument"}, 1},
		{"nsip_mcp_tool_calls_total", map[string]string{"tool": "nsip_get_lineage", "outcome": "ok"}, 1},
		{"nsip_mcp_tool_call_duration_seconds", map[string]string{"tool": "nsip_get_animal", "cache": "miss"}, 1},
		{"nsip_mcp_tool_call_duration_seconds", map[string]string{"tool": "nsip_get_animal", "cache": "hit"}, 1},
		{"nsip_mcp_tool_call_duration_seconds", map[string]string{"tool": "nsip_get_animal", "cache": "none"}, 1},
		{"nsip_mcp_upstream_requests_total", map[string]string{"endpoint": "get_animal_details", "status_class": "2xx"}, 1},
		{"nsip_mcp_upstream_requests_total", map[string]string{"endpoint": "get_lineage", "status_class": "429"}, 1},
		{"nsip_mcp_upstream_requests_total", map[string]string{"endpoint": "get_lineage", "status_class": "2xx"}, 1},
		{"nsip_mcp_upstream_retries_total", map[string]string{"endpoint": "get_lineage"}, 1},
		{"nsip_mcp_upstream_request_duration_seconds", map[string]string{"endpoint": "get_lineage"}, 2},
		{"nsip_mcp_rate_limit_wait_seconds", map[string]string{"endpoint": "get_animal_details"}, 1},
		{"nsip_mcp_rate_limit_wait_seconds", map[string]string{"endpoint": "get_lineage"}, 2}, // the retry took a token too
		{"nsip_mcp_cache_hits_total", nil, 1},
		{"nsip_mcp_cache_misses_total", nil, 2},
		{"nsip_mcp_cache_entries", map[string]string{"tier": "fresh"}, 2},
		{"nsip_mcp_breaker_state", map[string]string{"state": "closed"}, 1},
		{"nsip_mcp_breaker_state", map[string]string{"state": "open"}, 0},
		{"nsip_mcp_sessions", map[string]string{"transport": "http-sse"}, 1},
		{"nsip_mcp_tasks_running", nil, 0},
	} {
		got, ok := sample(fams, w.name, w.labels)
		if !ok {
			t.Errorf("%s%v: no such series", w.name, w.labels)
		} else if got != w.want {
			t.Errorf("%s%v = %g, want %g", w.name, w.labels, got, w.want)
		}
	}
	if b, ok := sample(fams, "nsip_mcp_cache_bytes", nil); !ok || b <= 0 {
		t.Errorf("nsip_mcp_cache_bytes = %g (present %v), want the two answers' size", b, ok)
	}
	// No label carries an animal's ID.
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), id) {
					t.Errorf("%s has label %s=%q naming an animal", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// startMetricsServer runs the command's serve on a loopback port with the
// settings in vars and returns its base URL; it stops with the test.
func startMetricsServer(t *testing.T, vars map[string]string) string {
	t.Helper()
	return startMetricsServerLogging(t, vars, slog.NewTextHandler(io.Discard, nil))
}

// startMetricsServerLogging is startMetricsServer logging to h.
func startMetricsServerLogging(t *testing.T, vars map[string]string, h slog.Handler) string {
	t.Helper()
	cfg, err := Load(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Serve.Listener = ln
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(h)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func scrapeGet(t *testing.T, base, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func scrapeStatus(t *testing.T, base, token string) int {
	t.Helper()
	resp := scrapeGet(t, base, token)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// scrape reads /metrics as Prometheus would, in the text format.
func scrape(t *testing.T, base, token string) map[string]*dto.MetricFamily {
	t.Helper()
	resp := scrapeGet(t, base, token)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("/metrics Content-Type %q, want the text format", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// sample is the value of the series of family name with exactly labels:
// a counter's or gauge's value, a histogram's count of observations.
func sample(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}
