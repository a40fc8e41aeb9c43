package gateway

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// flakyUpstream is the stand-in behind a door that answers 503 to the first
// failures requests for each distinct URL (failures < 0: to every one),
// counting every request that reaches it.
type flakyUpstream struct {
	*nsiptest.Handler
	url      string
	failures int

	mu    sync.Mutex
	seen  map[string]int
	total int
}

func newFlakyUpstream(t *testing.T, failures int) *flakyUpstream {
	t.Helper()
	f := &flakyUpstream{Handler: nsiptest.NewHandler(nsiptest.Options{Seed: 7, Animals: 200}), failures: failures, seen: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.total++
		f.seen[r.URL.RequestURI()]++
		fail := f.failures < 0 || f.seen[r.URL.RequestURI()] <= f.failures
		f.mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		f.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/api"
	return f
}

func (f *flakyUpstream) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total
}

// newRetryingGateway serves a gateway over f through the real client with
// three attempts per request, as the binary has.
func newRetryingGateway(t *testing.T, f *flakyUpstream, configure func(*Config)) *env {
	t.Helper()
	nc, err := nsip.NewClient(nsip.WithBaseURL(f.url),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	configure(&cfg)
	sum, _ := summarizer(t)
	gw, err := New(nc, sum, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, gw: gw, logs: logs}
	e.srv = gw.NewMCPServer("nsip-mcp-test", "0.0.0")
	e.client = connect(t, e.srv)
	return e
}

// NSIP failing each request twice before answering: every retry takes a
// rate-limit token, so no more requests reach NSIP than the limit allows.
// The limit here is a burst of 6 that does not refill during the test (one
// token per 1,000 s): two calls of three requests each get answers, the
// third is refused as rate_limited without a request. Before, the client's
// retries took no token: six calls sent 18 requests against a burst of 6.
func TestRetriesTakeRateLimitTokens(t *testing.T) {
	f := newFlakyUpstream(t, 2)
	e := newRetryingGateway(t, f, func(c *Config) { c.RateLimit, c.RateBurst = 0.001, 6 })
	ids := f.Data().AnimalIDs()
	var answered, limited int
	for _, id := range ids[:6] {
		r := e.call("nsip_get_animal", map[string]any{"search_string": id})
		switch {
		case !r.isError:
			answered++
		case r.errorBody(t).Code == CodeRateLimited:
			limited++
		default:
			t.Errorf("call for %s: %s, want an answer or rate_limited", id, r.text)
		}
	}
	if got := f.requests(); got > 6 {
		t.Fatalf("NSIP received %d requests under a burst of 6 that does not refill", got)
	}
	if got, taken := f.requests(), e.gw.pool.Tokens(); int64(got) != taken {
		t.Errorf("NSIP received %d requests for %d rate-limit tokens taken, want one token per request", got, taken)
	}
	if answered != 2 || limited != 4 {
		t.Errorf("%d answered and %d rate_limited, want 2 (three requests each) and 4", answered, limited)
	}
	if h := e.gw.Health(); h.UpstreamRequests != 6 {
		t.Errorf("/healthz upstream_requests = %d, want 6, retries counted", h.UpstreamRequests)
	}
}

// NSIP failing every request: the breaker counts each attempt, so with 5
// failures to open and 3 attempts per call it opens during the second
// call, after exactly 5 requests, and the third call fails fast. Before, it
// counted one failure per call and let 15 requests through.
func TestBreakerCountsEveryAttempt(t *testing.T) {
	f := newFlakyUpstream(t, -1)
	e := newRetryingGateway(t, f, func(c *Config) { c.BreakerFailures = 5 })
	ids := f.Data().AnimalIDs()
	for i, id := range ids[:2] {
		if te := e.call("nsip_get_animal", map[string]any{"search_string": id}).errorBody(t); te.Code != CodeUpstreamError {
			t.Fatalf("call %d: %s %q, want upstream_error", i+1, te.Code, te.Problem)
		}
	}
	if got := f.requests(); got != 5 {
		t.Errorf("NSIP received %d requests before the breaker opened, want 5 (the configured failures)", got)
	}
	if st := e.gw.Health().Breaker.State; st != "open" {
		t.Fatalf("breaker %s after 5 failed requests, want open", st)
	}
	te := e.call("nsip_get_animal", map[string]any{"search_string": ids[2]}).errorBody(t)
	if te.Code != CodeUpstreamUnavailable || f.requests() != 5 {
		t.Errorf("third call: %s with %d requests in all, want upstream_unavailable and no new request", te.Code, f.requests())
	}
}
