package gateway

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// TestHugeRetryAfterIsCappedAndStaysOnItsEndpoint: a 429 asking for
// 999,999,999 s pauses only the endpoint that sent it, for the configured
// limit rather than a day, and /healthz data shows the pause.
func TestHugeRetryAfterIsCappedAndStaysOnItsEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit time.Duration
		want  int
	}{
		{"default limit", 0, int(upstream.DefaultMaxUpstreamPause / time.Second)},
		{"configured limit", 90 * time.Second, 90},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withConfig(func(c *Config) { c.MaxUpstreamPause = tc.limit }))
			e.up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 999999999 * time.Second, Times: 1})
			ids := e.up.Data().AnimalIDs()

			b := e.call("nsip_get_animal", map[string]any{"search_string": ids[0]}).errorBody(t)
			if b.Code != toolerr.CodeRateLimited || b.RetryAfterSeconds != tc.want {
				t.Fatalf("429: %+v; want rate_limited with retry_after_seconds %d", b, tc.want)
			}
			// The same endpoint stays paused, without asking NSIP. What is
			// left of the pause shrinks as the test runs, and a loaded
			// machine can take seconds between the 429 and here: more than
			// half the limit left still tells the capped pause from a
			// short one.
			b = e.call("nsip_get_animal", map[string]any{"search_string": ids[1]}).errorBody(t)
			if b.Code != toolerr.CodeRateLimited || b.RetryAfterSeconds > tc.want || b.RetryAfterSeconds < tc.want/2 {
				t.Errorf("during the pause: %+v; want rate_limited within %d s", b, tc.want)
			}
			if n := e.up.Requests(nsiptest.EndpointDetails); n != 1 {
				t.Errorf("details requests = %d, want 1", n)
			}
			// Other endpoints are not paused.
			e.call("nsip_get_lineage", map[string]any{"lpn_id": ids[2]}).mustOK(t)
			e.call("nsip_search_animals", map[string]any{"page_size": 5}).mustOK(t)
			if n := e.up.Requests(nsiptest.EndpointSearch); n != 1 {
				t.Errorf("search requests = %d, want 1", n)
			}

			h := e.gw.Health()
			if len(h.UpstreamPauses) != 1 {
				t.Fatalf("upstream_pauses = %+v, want the details endpoint only", h.UpstreamPauses)
			}
			p := h.UpstreamPauses[0]
			if p.Method != "get_animal_details" || p.AskedSeconds < 86400 || !p.Capped || p.RetryInSeconds > tc.want || p.RetryInSeconds < tc.want/2 {
				t.Errorf("pause = %+v; want get_animal_details, asked a day or more (the client reads no further), capped, about %d s left", p, tc.want)
			}
			if h.MaxPauseSeconds != tc.want {
				t.Errorf("max_pause_seconds = %d, want %d", h.MaxPauseSeconds, tc.want)
			}
			js, _ := json.Marshal(h)
			var m map[string]any
			_ = json.Unmarshal(js, &m)
			if _, ok := m["upstream_pauses"].([]any); !ok {
				t.Errorf("health JSON has no upstream_pauses list: %s", js)
			}
		})
	}
}
