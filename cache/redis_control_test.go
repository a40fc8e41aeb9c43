//go:build e2e

package cache_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/nsip-tools/nsip-mcp/cache/redistest"
)

// Control values (pauses, breaker news) are sealed as records are, under
// their own Redis key: a replica opens what another sealed there, and
// nothing sealed for one key opens under another.
func TestControlValuesAreSealedUnderTheirOwnKey(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := newRedis(t, srv.URL(), time.Hour)
	b, _ := newRedis(t, srv.URL(), time.Hour)
	at := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	pause := a.Key("pause:search")
	if pause == "pause:search" || pause != b.Key("pause:search") {
		t.Fatalf("Key = %q; want the replicas' shared namespace before the name", pause)
	}
	sealed := a.SealAt(pause, []byte("30s"), at)
	if v, stored, ok := b.OpenAt(pause, sealed, at.Add(time.Second)); !ok || string(v) != "30s" || !stored.Equal(at) {
		t.Errorf("OpenAt = %q, %v, %v; want what the other replica sealed", v, stored, ok)
	}
	if _, _, ok := b.OpenAt(b.Key("breaker"), sealed, at); ok {
		t.Error("a value sealed for the pause key opened under the breaker key")
	}
	if st := b.Status(); st.UnauthenticatedValues != 1 || st.IgnoredValues != 1 {
		t.Errorf("status %+v; want the copied value counted unauthenticated", st)
	}
}

// A control value refused is reported in the status, by key and reason,
// while the key's latest read refuses it, and logged once; a later read
// that finds nothing to refuse clears it. Ignored counts values that
// opened but could not be used.
func TestRefusedControlValuesAreReportedUntilAccepted(t *testing.T) {
	srv := redistest.Start(t)
	r, logs := newRedis(t, srv.URL(), time.Hour)
	key := r.Key("pause:search")
	if st := r.Status(); len(st.Refused) != 0 {
		t.Fatalf("a new replica reports %v refused", st.Refused)
	}
	r.Accept(key) // nothing refused: a no-op
	r.Refuse(key, "a pause of 10h, over NSIP_MAX_PAUSE", true)
	r.Refuse(key, "a pause of 10h, over NSIP_MAX_PAUSE", true)
	r.Refuse(r.Key("breaker"), "not sealed by a replica", false)
	st := r.Status()
	want := []string{"breaker: not sealed by a replica", "pause:search: a pause of 10h, over NSIP_MAX_PAUSE"}
	if !slices.Equal(st.Refused, want) || st.OutOfBoundValues != 2 || st.IgnoredValues != 2 {
		t.Errorf("status %+v; want refused %v, 2 out of bound", st, want)
	}
	if n := logs.Count("does not believe"); n != 2 {
		t.Errorf("%d warnings; want one per key", n)
	}
	r.Accept(key)
	if st := r.Status(); !slices.Equal(st.Refused, want[:1]) {
		t.Errorf("after an accepted read, refused %v; want %v", st.Refused, want[:1])
	}
	r.Ignored()
	if st := r.Status(); st.IgnoredValues != 3 {
		t.Errorf("ignored %d; want 3", st.IgnoredValues)
	}
}

// Limit runs the shared limit's commands, counted by the hooks a caller
// adds, in pipelines as well as one by one.
func TestLimitRunsAndIsObserved(t *testing.T) {
	srv := redistest.Start(t)
	r, _ := newRedis(t, srv.URL(), time.Hour)
	ctx := context.Background()
	if err := r.Ping(ctx); err != nil { // the connection's own handshake, before counting
		t.Fatal(err)
	}
	h := &countHook{}
	r.AddHook(h)
	before := r.Status().RoundTrips
	err := r.Limit(ctx, func(ctx context.Context, c *redis.Client) error {
		if err := c.Set(ctx, r.Key("rate"), "1", time.Minute).Err(); err != nil {
			return err
		}
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, r.Key("rate"))
			p.Expire(ctx, r.Key("rate"), time.Minute)
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The pool may open a connection for the pipeline, whose handshake
	// is a command of its own: at least the SET, and the one pipeline.
	if h.commands < 1 || h.pipelines != 1 {
		t.Errorf("hook saw %d commands and %d pipelines; want the SET and 1", h.commands, h.pipelines)
	}
	if st := r.Status(); st.RoundTrips-before < 2 || !st.SharesLimit {
		t.Errorf("status %+v; want at least 2 more round trips and the limit shared", st)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), DisableIdentity: true})
	defer c.Close()
	if v := c.Get(ctx, r.Key("rate")).Val(); v != "2" {
		t.Errorf("rate key %q; want 2 after the SET and the INCR", v)
	}
}

type countHook struct{ commands, pipelines int }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.commands++; return next(ctx, cmd) }
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.pipelines++; return next(ctx, cmds) }
}
