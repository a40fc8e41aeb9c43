package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// testPool is a pool over a cache of its own, with cfg's settings and
// small defaults for the rest.
func testPool(cfg Config) *Pool {
	c, err := cache.New(cache.Config{TTL: time.Hour, StaleTTL: time.Hour, MaxEntries: 100, MaxBytes: 1 << 20, Now: time.Now})
	if err != nil {
		panic(err)
	}
	cfg.Cache, cfg.Now = c, time.Now
	if cfg.Codec == nil {
		cfg.Codec = NewCodec()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.RateLimit, cfg.RateBurst, cfg.MaxConcurrent = max(cfg.RateLimit, 10), max(cfg.RateBurst, 10), max(cfg.MaxConcurrent, 2)
	return NewPool(cfg)
}

// TestOurQueueingIsNotCountedAgainstNSIP: a request our own deadline cut
// after it waited its turn is not a failure of NSIP; one that had the time
// and still failed is, and every failure the breaker counts is logged.
func TestOurQueueingIsNotCountedAgainstNSIP(t *testing.T) {
	var logs bytes.Buffer
	p := testPool(Config{CallTimeout: time.Second, BreakerFailures: 2, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	cut := &nsip.Error{Kind: nsip.KindTimeout, Reason: "the caller's deadline passed", Err: context.DeadlineExceeded}

	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	dl, _ := expired.Deadline()
	late := p.blame(expired, dl.Add(-100*time.Millisecond), cut)  // sent with 0.1 s of 1 s left
	early := p.blame(expired, dl.Add(-900*time.Millisecond), cut) // sent with 0.9 s left

	if p.breakerCounts(late) {
		t.Error("a request sent with a tenth of the deadline left and cut by it counted as NSIP's failure")
	}
	if !errors.Is(late, context.DeadlineExceeded) {
		t.Errorf("the wrapped error lost its cause: %v", late)
	}
	if !p.breakerCounts(early) {
		t.Error("a request that had most of the deadline and timed out did not count")
	}
	var counted int
	for line := range strings.Lines(logs.String()) {
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if l["msg"] == "nsip failure counted by the circuit breaker" {
			counted++
			if !strings.Contains(fmt.Sprint(l["error"]), "timeout") || l["opens_at"] != float64(2) {
				t.Errorf("log line %v lacks the error or the threshold", l)
			}
		}
	}
	if counted != 1 {
		t.Errorf("%d failures logged as counted, want 1", counted)
	}
}
