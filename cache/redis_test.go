//go:build e2e

package cache_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// testSecret is what the replicas in these tests share.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

func newRedis(t *testing.T, url string, retry time.Duration) (*cache.Redis, *logbuf.Buffer) {
	t.Helper()
	return newRedisWith(t, url, retry, testSecret)
}

// newRedisWith gives each command 30 s and marks nothing slow under
// 30 s: a loaded race run has taken Redis over a second to answer, and
// with the defaults (250 ms, 50 ms) a test of something else would see
// Redis down or slow. Late replies are made with late, which spends no
// time.
func newRedisWith(t *testing.T, url string, retry time.Duration, secret []byte) (*cache.Redis, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	r, err := cache.NewRedis(cache.RedisConfig{URL: url, RetryEvery: retry, Secret: secret, OpTimeout: 30 * time.Second, SlowAfter: 30 * time.Second, Logger: slog.New(slog.NewTextHandler(logs, nil))})
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
	now := stored.Add(time.Minute)
	r.Store(ctx, "get_animal:{}", []byte("answer bytes"), stored, time.Minute)
	v, at, ok := r.Load(ctx, "get_animal:{}", now)
	if !ok || string(v) != "answer bytes" || !at.Equal(stored) {
		t.Fatalf("Load = %q, %v, %v; want the bytes stored at %v", v, at, ok, stored)
	}
	if _, _, ok := r.Load(ctx, "never-stored", now); ok {
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
	if v, _, ok := r.Load(ctx, "get_animal:{}", now); ok {
		t.Errorf("a damaged value was loaded: %q", v)
	}
	if st := r.Status(); !st.Up || st.IgnoredValues != 1 || st.UnauthenticatedValues != 1 {
		t.Errorf("status = %+v, want up with 1 ignored value, unauthenticated", st)
	}
}

// Whoever can write to Redis can compute a CRC and copy a frame; only a
// replica can compute the MAC. Every value below is built by someone
// without the secret, and none is served.
func TestRedisServesOnlyRecordsWithItsMAC(t *testing.T) {
	srv := redistest.Start(t)
	r, _ := newRedis(t, srv.URL(), time.Hour)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), DisableIdentity: true})
	defer c.Close()
	now := time.Now()
	const genuine, forged = `{"lpnId":"A1","sire":"6400462020VPI007"}`, `{"lpnId":"A1","sire":"FORGED0000SIRE01"}`
	rkey := func(k string) string { return cache.DefaultRedisPrefix + "c:" + k }
	r.Store(ctx, "get_animal:A1", []byte(genuine), now, time.Minute)
	frame := c.Get(ctx, rkey("get_animal:A1")).Val()
	header := frame[:len(frame)-len(genuine)]

	crcFrame := func(magic string) string {
		var h [12]byte
		binary.BigEndian.PutUint64(h[:8], uint64(now.UnixNano()))
		binary.BigEndian.PutUint32(h[8:], crc32.ChecksumIEEE([]byte(forged)))
		return magic + string(h[:]) + forged
	}
	other, _ := newRedisWith(t, srv.URL(), time.Hour, []byte("another secret, another deployment"))
	plant := []struct {
		name  string
		plant func(key string)
	}{
		// The frame before MACs: magic, store time and a CRC-32 of the value.
		{"checksummed frame", func(k string) { c.Set(ctx, rkey(k), crcFrame("nsc1"), time.Minute) }},
		{"checksummed frame, current magic", func(k string) { c.Set(ctx, rkey(k), crcFrame(frame[:4]), time.Minute) }},
		// A genuine header, MAC included, in front of another value.
		{"genuine header, other value", func(k string) { c.Set(ctx, rkey(k), header+forged, time.Minute) }},
		// A genuine record, moved: the MAC covers the key.
		{"genuine record at another key", func(k string) { c.Set(ctx, rkey(k), frame, time.Minute) }},
		// A well-formed record keyed with another secret.
		{"another secret", func(k string) { other.Store(ctx, k, []byte(forged), now, time.Minute) }},
	}
	for i, p := range plant {
		key := "get_animal:B" + strconv.Itoa(i)
		p.plant(key)
		if v, _, ok := r.Load(ctx, key, now); ok {
			t.Errorf("%s: loaded %q", p.name, v)
		}
	}
	st := r.Status()
	if st.UnauthenticatedValues != uint64(len(plant)) || st.IgnoredValues != uint64(len(plant)) {
		t.Errorf("status = %+v, want %d unauthenticated and ignored values", st, len(plant))
	}
	if v, _, ok := r.Load(ctx, "get_animal:A1", now); !ok || string(v) != genuine {
		t.Errorf("the genuine record: %q, %v; want it served", v, ok)
	}
}

// A record stamped ahead of the reader's clock would look fresh past its
// TTL (a local tier that took it in would serve it after Redis forgot it);
// beyond MaxClockSkew it is refused until the reader's clock catches up.
func TestRedisRefusesStoreTimesInTheFuture(t *testing.T) {
	srv := redistest.Start(t)
	r, _ := newRedis(t, srv.URL(), time.Hour)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	r.Store(ctx, "within", []byte("v"), now.Add(cache.MaxClockSkew), time.Minute)
	r.Store(ctx, "beyond", []byte("v"), now.Add(cache.MaxClockSkew+time.Millisecond), time.Minute)
	r.Store(ctx, "far", []byte("v"), now.Add(10*365*24*time.Hour), time.Minute)
	if _, _, ok := r.Load(ctx, "within", now); !ok {
		t.Errorf("a record %v ahead was refused; the allowance is %v", cache.MaxClockSkew, cache.MaxClockSkew)
	}
	for _, k := range []string{"beyond", "far"} {
		if _, at, ok := r.Load(ctx, k, now); ok {
			t.Errorf("%s: a record stamped %v was served at %v", k, at, now)
		}
	}
	if st := r.Status(); st.FutureValues != 2 || st.IgnoredValues != 2 || st.UnauthenticatedValues != 0 {
		t.Errorf("status = %+v, want 2 future values, 2 ignored, none unauthenticated", st)
	}
	if _, _, ok := r.Load(ctx, "beyond", now.Add(time.Second)); !ok {
		t.Error("the record a millisecond past the allowance was still refused a second later")
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
	if n := logs.Count("redis unavailable"); n != 1 {
		t.Errorf("logged 'redis unavailable' %d times over five failed commands, want once", n)
	}
	if n := logs.Count("redis reachable again"); n != 1 {
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

// late is an op whose reply came after the command's limit, as go-redis
// reports one; it spends no time, so the test counts replies, not
// milliseconds.
func late(context.Context, *redis.Client) error { return context.DeadlineExceeded }

// One reply later than the command's limit, among replies in time, fails
// its own command and does not mark Redis down; two of the window's
// RedisWindow round trips do, logged once. Before, the first late reply
// marked Redis down and the replica went on alone.
func TestRedisOneLateReplyIsNotDown(t *testing.T) {
	srv := redistest.Start(t)
	r, logs := newRedis(t, srv.URL(), time.Hour)
	ctx := context.Background()
	ping := func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() }
	for round := range 3 {
		if err := r.Do(ctx, late); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("round %d: a late reply returned %v, want the deadline", round, err)
		}
		if st := r.Status(); !st.Up || st.State != cache.RedisUp {
			t.Fatalf("round %d: after one late reply Redis is %+v, want up", round, st)
		}
		for range cache.RedisWindow {
			if err := r.Do(ctx, ping); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = r.Do(ctx, late)
	_ = r.Do(ctx, late)
	if st := r.Status(); st.Up || st.State != cache.RedisDown || !strings.Contains(st.Reason, "2 of the last 8 commands unanswered") {
		t.Errorf("after two late replies in a row Redis is %+v, want down, saying why", st)
	}
	if n := logs.Count("redis unavailable"); n != 1 {
		t.Errorf("logged %d 'redis unavailable' warnings, want 1", n)
	}
}
