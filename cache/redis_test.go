//go:build e2e

package cache_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
)

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

func newRedis(t *testing.T, url string, retry time.Duration) (*cache.Redis, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	r, err := cache.NewRedis(cache.RedisConfig{URL: url, RetryEvery: retry, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, logs
}

func TestRedisStoresAndLoadsFramedValues(t *testing.T) {
	srv := redistest.Start(t)
	r, _ := newRedis(t, srv.URL(), time.Hour)
	ctx := context.Background()
	stored := time.Date(2026, 11, 23, 8, 0, 0, 123, time.UTC)
	r.Store(ctx, "get_animal:{}", []byte("answer bytes"), stored, time.Minute)
	v, at, ok := r.Load(ctx, "get_animal:{}")
	if !ok || string(v) != "answer bytes" || !at.Equal(stored) {
		t.Fatalf("Load = %q, %v, %v; want the bytes stored at %v", v, at, ok, stored)
	}
	if _, _, ok := r.Load(ctx, "never-stored"); ok {
		t.Error("Load of a missing key reported a value")
	}
	// Store's expiry is Redis's: the key carries a TTL of about a minute.
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), DisableIdentity: true})
	defer c.Close()
	if ttl := c.PTTL(ctx, cache.DefaultRedisPrefix+"c:get_animal:{}").Val(); ttl <= 50*time.Second || ttl > time.Minute {
		t.Errorf("stored key's TTL = %v, want about 1m", ttl)
	}
	// A damaged value is a miss, and counted.
	raw := c.Get(ctx, cache.DefaultRedisPrefix+"c:get_animal:{}").Val()
	c.Set(ctx, cache.DefaultRedisPrefix+"c:get_animal:{}", raw[:len(raw)-1]+"X", time.Minute)
	if v, _, ok := r.Load(ctx, "get_animal:{}"); ok {
		t.Errorf("a damaged value was loaded: %q", v)
	}
	if st := r.Status(); !st.Up || st.IgnoredValues != 1 {
		t.Errorf("status = %+v, want up with 1 ignored value", st)
	}
}

func TestRedisDownIsSkippedLoggedOnceAndRecovers(t *testing.T) {
	srv := redistest.Start(t)
	r, logs := newRedis(t, srv.URL(), time.Hour) // no automatic retry within the test
	ctx := context.Background()
	var changes []bool
	var mu sync.Mutex
	r.Watch(func(up bool) { mu.Lock(); changes = append(changes, up); mu.Unlock() })
	if err := r.Ping(ctx); err != nil {
		t.Fatalf("Ping with Redis up: %v", err)
	}
	srv.Stop()
	for range 5 {
		r.Store(ctx, "k", []byte("v"), time.Now(), time.Minute)
	}
	st := r.Status()
	if st.Up || st.Reason == "" {
		t.Fatalf("status with Redis stopped = %+v, want down with a reason", st)
	}
	// Down and not due for a try: commands are refused at once, without
	// asking Redis.
	calls := 0
	err := r.Do(ctx, func(context.Context, *redis.Client) error { calls++; return nil })
	if !errors.Is(err, cache.ErrRedisDown) || calls != 0 {
		t.Errorf("Do while down = %v after %d calls of op; want ErrRedisDown without calling it", err, calls)
	}
	srv.Restart()
	if err := r.Ping(ctx); err != nil {
		t.Fatalf("Ping after restart: %v", err)
	}
	if !r.Status().Up {
		t.Fatalf("status after a successful Ping = %+v, want up", r.Status())
	}
	if n := logs.count("redis unavailable"); n != 1 {
		t.Errorf("logged 'redis unavailable' %d times over five failed commands, want once", n)
	}
	if n := logs.count("redis reachable again"); n != 1 {
		t.Errorf("logged 'redis reachable again' %d times, want once", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changes) != 2 || changes[0] || !changes[1] {
		t.Errorf("watchers saw %v, want [false true]", changes)
	}
}

func TestRedisURLs(t *testing.T) {
	for _, u := range []string{"redis://127.0.0.1:6379/0", "rediss://:pw@redis.internal:6380/3", "redis://user:pw@localhost"} {
		if err := cache.CheckRedisURL(u); err != nil {
			t.Errorf("CheckRedisURL(%q) = %v, want accepted", u, err)
		}
	}
	for _, u := range []string{"", "127.0.0.1:6379", "http://redis:6379", "redis://redis:6379/notanumber"} {
		if err := cache.CheckRedisURL(u); err == nil {
			t.Errorf("CheckRedisURL(%q) accepted it", u)
		}
	}
}
