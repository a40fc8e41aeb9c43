package upstream

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/nsip-tools/nsip-mcp/cache"
)

// A Redis that takes the rate-limit script and never answers, once: Redis
// is not marked down by one late reply, and the request keeps to the
// replica's share of the limit, not to no limit at all (the local limiter
// stands aside while Redis keeps the shared one). With a share of one
// request per 1000 s the first takes its token and the second is refused.
func TestLateSharedTurnKeepsToTheShare(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts and reads, answers nothing
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = c.Read(make([]byte, 1<<16)) }()
		}
	}()
	r, err := cache.NewRedis(cache.RedisConfig{URL: "redis://" + ln.Addr().String() + "/0",
		Secret: []byte("0123456789abcdef0123456789abcdef"), OpTimeout: 20 * time.Millisecond, RetryEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	local := rate.NewLimiter(1, 1)
	s := NewShared(SharedConfig{Redis: r, Limiter: local, Pauses: &Pauses{}, RateLimit: 0.001, RateBurst: 1, Replicas: 1,
		CallTimeout: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.turn(ctx, "m"); err != nil {
		t.Fatalf("first turn with Redis late = %v, want the share's token", err)
	}
	if st := r.Status(); !st.Up || local.Limit() != rate.Inf {
		t.Fatalf("after one late reply Redis is %+v and the local limit %v; want up and the shared limit kept", st, local.Limit())
	}
	var rl *RateLimited
	if err := s.shareTurn(ctx); !errors.As(err, &rl) || rl.RetryAfter < 900*time.Second {
		t.Errorf("second request on the share = %v, want rate_limited for about 1000 s", err)
	}
}
