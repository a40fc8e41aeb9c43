package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
)

const metricsToken = "a-token-of-enough-length"

// /metrics is served on both network listeners, needs the token like /mcp
// (unlike the probes), and reports the listener's open sessions.
func TestMetricsNeedTheTokenAndCountSessions(t *testing.T) {
	for _, kind := range []string{KindHTTPSSE, KindWebSocket} {
		t.Run(kind, func(t *testing.T) {
			m := metrics.New(prometheus.NewRegistry())
			srv := serveNetwork(t, kind, newTestServer(newGate()), Options{AuthToken: metricsToken, Metrics: m})
			if status, _ := doRequest(t, http.MethodGet, srv.base+"/metrics", nil, nil); status != http.StatusUnauthorized {
				t.Errorf("/metrics without the token: %d, want 401", status)
			}
			auth := http.Header{"Authorization": {"Bearer " + metricsToken}}
			status, body := doRequest(t, http.MethodGet, srv.base+"/metrics", auth, nil)
			want := `nsip_mcp_sessions{transport="` + kind + `"} 0`
			if status != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("/metrics with the token: %d, want 200 with %s in:\n%.2000s", status, want, body)
			}
		})
	}
}

// In stdio mode the health listener serves /metrics, counting the one
// session stdio is.
func TestStdioHealthListenerServesMetrics(t *testing.T) {
	addr := freeAddr(t)
	m := metrics.New(prometheus.NewRegistry())
	startStdio(t, newTestServer(newGate()), Options{HealthAddr: addr, Metrics: m})
	waitHealthStatus(t, "http://"+addr, "ok")
	status, body := doRequest(t, http.MethodGet, "http://"+addr+"/metrics", nil, nil)
	if want := `nsip_mcp_sessions{transport="stdio"} 1`; status != http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("stdio /metrics: %d, want 200 with %s in:\n%.2000s", status, want, body)
	}
}

// Without Options.Metrics there is no /metrics.
func TestNoMetricsWithoutOption(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{})
	if status, _ := doRequest(t, http.MethodGet, srv.base+"/metrics", nil, nil); status != http.StatusNotFound {
		t.Errorf("/metrics without Options.Metrics: %d, want 404", status)
	}
}
