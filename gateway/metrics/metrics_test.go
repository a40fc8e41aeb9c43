package metrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestStatusClass(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   nsip.Kind
		want   string
	}{
		{200, 0, "2xx"},
		{301, nsip.KindUnexpectedResponse, "3xx"},
		{404, nsip.KindNotFound, "4xx"},
		{429, nsip.KindRateLimited, "429"},
		{503, nsip.KindUpstream, "5xx"},
		{0, nsip.KindTimeout, "timeout"},
		{0, nsip.KindConnection, "network"},
		{999, nsip.KindUpstream, "network"}, // not a status: no class of its own
	} {
		if got := StatusClass(tc.status, tc.kind); got != tc.want {
			t.Errorf("StatusClass(%d, %v) = %q, want %q", tc.status, tc.kind, got, tc.want)
		}
	}
}

// Attempts are counted under the endpoint their context was tagged with,
// else under the API path's name, the same label; the first of a call is
// not a retry.
func TestUpstreamAttemptLabels(t *testing.T) {
	m := New(prometheus.NewRegistry())
	ctx := WithEndpoint(context.Background(), "get_lineage")
	m.UpstreamAttempt(ctx, nsip.RequestInfo{Endpoint: "details/getLineage", Attempt: 1, Status: 429, Err: &nsip.Error{Kind: nsip.KindRateLimited}, Latency: time.Millisecond})
	m.UpstreamAttempt(ctx, nsip.RequestInfo{Endpoint: "details/getLineage", Attempt: 2, Status: 200, Latency: time.Millisecond})
	m.UpstreamAttempt(context.Background(), nsip.RequestInfo{Endpoint: "details/getLineage", Attempt: 1, Status: 200})
	for _, tc := range []struct {
		c    prometheus.Collector
		want float64
	}{
		{m.upstreamRequests.WithLabelValues("get_lineage", "429"), 1},
		{m.upstreamRequests.WithLabelValues("get_lineage", "2xx"), 2},
		{m.upstreamRetries.WithLabelValues("get_lineage"), 1},
	} {
		if got := testutil.ToFloat64(tc.c); got != tc.want {
			t.Errorf("%v = %g, want %g", tc.c, got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(m.upstreamRetries); n != 1 {
		t.Errorf("retry series = %d, want only get_lineage's", n)
	}
}

// An error's latency is filed under cache "none", whatever the caller said.
func TestToolCallErrorHasNoCacheOutcome(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	m.ToolCall("nsip_rank_animals", "upstream_error", "miss", time.Second)
	m.ToolCall("nsip_get_animal", "ok", "stale", time.Second)
	want := `
# HELP nsip_mcp_tool_calls_total Tool calls answered, by tool and outcome: ok or the error code of the error result.
# TYPE nsip_mcp_tool_calls_total counter
nsip_mcp_tool_calls_total{outcome="ok",tool="nsip_get_animal"} 1
nsip_mcp_tool_calls_total{outcome="upstream_error",tool="nsip_rank_animals"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "nsip_mcp_tool_calls_total"); err != nil {
		t.Error(err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fams {
		if f.GetName() == "nsip_mcp_tool_call_duration_seconds" {
			for _, s := range f.GetMetric() {
				got = append(got, s.GetLabel()[0].GetValue()+"/"+s.GetLabel()[1].GetValue())
			}
		}
	}
	if strings.Join(got, " ") != "none/nsip_rank_animals stale/nsip_get_animal" {
		t.Errorf("duration series (cache/tool) = %v, want none/nsip_rank_animals stale/nsip_get_animal (sorted)", got)
	}
}

// The breaker reports each state, 1 for the one it is in; the state is
// read at scrape time.
func TestStateReadAtScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	state := "closed"
	m.WatchState(func() State { return State{Breaker: state, CacheEntries: 3, CacheBytes: 1024} })
	state = "open"
	want := `
# HELP nsip_mcp_breaker_state The circuit breaker in front of NSIP: 1 for the state it is in, 0 for the others.
# TYPE nsip_mcp_breaker_state gauge
nsip_mcp_breaker_state{state="closed"} 0
nsip_mcp_breaker_state{state="half-open"} 0
nsip_mcp_breaker_state{state="open"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "nsip_mcp_breaker_state"); err != nil {
		t.Error(err)
	}
}

// A nil *Metrics records nothing and does not fail.
func TestNilMetrics(t *testing.T) {
	var m *Metrics
	m.ToolCall("t", "ok", "hit", 0)
	m.RateLimitWait("e", 0)
	m.UpstreamAttempt(context.Background(), nsip.RequestInfo{})
	m.WatchState(nil)
	m.WatchSessions("stdio", nil)
	m.TaskStarted("t")()
}

// A tool call's series are looked up once and reused: every later call
// with the same labels counts in them without allocating.
func TestToolCallReusesItsSeries(t *testing.T) {
	m := New(prometheus.NewRegistry())
	m.ToolCall("nsip_get_animal", "ok", "hit", time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { m.ToolCall("nsip_get_animal", "ok", "hit", time.Millisecond) }); n != 0 {
		t.Errorf("a tool call's metrics make %v allocations, want none", n)
	}
	m.ToolCall("nsip_get_animal", "not_found", "hit", time.Millisecond)
	// 1, then AllocsPerRun's 1 + 100.
	if got := testutil.ToFloat64(m.toolCalls.WithLabelValues("nsip_get_animal", "ok")); got != 102 {
		t.Errorf("ok calls %v, want 102", got)
	}
	if got := testutil.ToFloat64(m.toolCalls.WithLabelValues("nsip_get_animal", "not_found")); got != 1 {
		t.Errorf("not_found calls %v, want 1", got)
	}
	if n := testutil.CollectAndCount(m.toolDuration); n != 2 {
		t.Errorf("%d duration series, want hit and none", n)
	}
}

// BenchmarkToolCall is the metrics of one cached call.
func BenchmarkToolCall(b *testing.B) {
	m := New(prometheus.NewRegistry())
	b.ReportAllocs()
	for b.Loop() {
		m.ToolCall("nsip_get_animal", "ok", "hit", time.Millisecond)
	}
}
