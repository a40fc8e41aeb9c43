package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// checkDone closes done when the start-up check logs its outcome.
type checkDone struct {
	slog.Handler
	done chan struct{}
}

func (h checkDone) Enabled(context.Context, slog.Level) bool { return true }

func (h checkDone) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "start-up check") {
		close(h.done)
	}
	return nil
}

func (h checkDone) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h checkDone) WithGroup(string) slog.Handler      { return h }

// The start-up check and a tool call ask the same NSIP endpoint: /metrics
// counts both under one label, the one the tool calls use, and no series
// is labelled with an API path.
func TestMetricsLabelAnEndpointOnce(t *testing.T) {
	const token = "metrics-test-token-0123456789"
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 50})
	h := checkDone{done: make(chan struct{})}
	base := startMetricsServerLogging(t, map[string]string{
		"NSIP_BASE_URL":  stub.URL(),
		"MCP_TRANSPORT":  "http-sse",
		"MCP_AUTH_TOKEN": token,
	}, h)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	select {
	case <-h.done:
	case <-ctx.Done():
		t.Fatal("the start-up check never logged its outcome")
	}
	c, err := client.NewStreamableHttpClient(base+"/mcp",
		mcptransport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "metrics-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_get_last_update"
	if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("nsip_get_last_update: %v %+v", err, res)
	}
	fams := scrape(t, base, token)
	for _, name := range []string{"nsip_mcp_upstream_requests_total", "nsip_mcp_upstream_request_duration_seconds"} {
		for _, m := range fams[name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "endpoint" && strings.Contains(l.GetValue(), "/") {
					t.Errorf("%s has endpoint=%q, an API path where the tools' name is used", name, l.GetValue())
				}
			}
		}
	}
	got, ok := sample(fams, "nsip_mcp_upstream_requests_total", map[string]string{"endpoint": "get_date_last_updated", "status_class": "2xx"})
	if !ok || got != 2 {
		t.Errorf(`upstream_requests_total{endpoint="get_date_last_updated",status_class="2xx"} = %g (present %v), want 2: the start-up check and the call`, got, ok)
	}
}
