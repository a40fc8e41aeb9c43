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
