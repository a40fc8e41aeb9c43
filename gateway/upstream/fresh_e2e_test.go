//go:build e2e

package upstream

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A fresh read asks NSIP although the replicas' shared tier holds the
// answer, and replaces the shared record with what it read, so that
// another replica's ordinary read gets the new answer from Redis.
func TestFreshAsksDespiteTheSharedTier(t *testing.T) {
	rd := redistest.Start(t)
	replica := func() *Pool {
		r, err := cache.NewRedis(cache.RedisConfig{URL: rd.URL(), Secret: []byte("0123456789abcdef0123456789abcdef"),
			OpTimeout: 30 * time.Second, SlowAfter: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		return testPool(Config{Shared: r, Codec: NewCodec(reflect.TypeFor[nsip.LastUpdate]()), Replicas: 3,
			CallTimeout: time.Minute, CollapseWait: time.Minute, CacheTTL: time.Hour, StaleTTL: time.Hour, BreakerFailures: 5})
	}
	first, second, third := replica(), replica(), replica()
	d := newDates("08/21/2025")
	const key = "getDateLastUpdated:{}"
	ctx := context.Background()
	lookup := func() Request { return d.request(key) }

	if _, src, err := first.Obtain(ctx, key, lookup); err != nil || src != SourceMiss {
		t.Fatalf("first replica: %s, %v; want a fetch", src, err)
	}
	d.date.Store("12/01/2025")
	if a, src, err := second.Obtain(ctx, key, lookup); err != nil || src != SourceShared || dateOf(a) != "08/21/2025" {
		t.Fatalf("second replica, ordinary read: %v from %s; want the shared 08/21/2025", err, src)
	}
	sent, tokens := d.sent.Load(), second.Tokens()

	a, _, err := second.Fresh(ctx, d.request(key), 0)
	if err != nil {
		t.Fatal(err)
	}
	if dateOf(a) != "12/01/2025" || d.sent.Load() != sent+1 || second.Tokens() != tokens+1 {
		t.Errorf("fresh read: %s from %d requests taking %d tokens, want 12/01/2025 from one request taking one token",
			dateOf(a), d.sent.Load()-sent, second.Tokens()-tokens)
	}
	if a, src, err := third.Obtain(ctx, key, lookup); err != nil || src != SourceShared || dateOf(a) != "12/01/2025" {
		t.Errorf("third replica, ordinary read: %v from %s; want the fresh read's 12/01/2025 from the shared tier", err, src)
	}
	if d.sent.Load() != sent+1 {
		t.Errorf("%d requests after the fresh read, want 1", d.sent.Load()-sent)
	}
}
