//go:build e2e

package gateway

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func deflate(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	_, _ = io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func inflate(t testing.TB, b []byte) string {
	t.Helper()
	s, err := io.ReadAll(flate.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	return string(s)
}

// Someone who can write to Redis but does not hold the replicas' secret
// takes a genuine record, replaces the animal's sire, and writes it back
// in a frame whose checksum and data shape are right: once as the frame
// was before records carried a MAC, once well formed but keyed with a
// secret of their own. The replica that reads it fetches the animal
// instead, and its /healthz counts what it refused.
func TestSharedForgedRecordIsNotServed(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := newReplicas(t, 2, rd.URL(), nil)
	a, b := rs[0], rs[1]
	rc := redisClient(t, rd)
	ctx := context.Background()
	ids := up.Data().AnimalIDs()
	attacker, err := cache.NewRedis(cache.RedisConfig{URL: rd.URL(), Secret: []byte("not-the-replicas-secret-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	const forgedSire = "6400462099FRG001"
	frames := []struct {
		name  string
		write func(rkey string, value []byte, stored time.Time)
	}{
		{"checksummed frame", func(rkey string, value []byte, stored time.Time) {
			var h [12]byte
			binary.BigEndian.PutUint64(h[:8], uint64(stored.UnixNano()))
			binary.BigEndian.PutUint32(h[8:], crc32.ChecksumIEEE(value))
			rc.Set(ctx, rkey, append([]byte("nsc1"+string(h[:])), value...), time.Hour)
		}},
		{"MAC under another secret", func(rkey string, value []byte, stored time.Time) {
			attacker.Store(ctx, strings.TrimPrefix(rkey, cache.DefaultRedisPrefix+"c:"), value, stored, time.Hour)
		}},
	}
	n := 0
	for _, f := range frames {
		t.Run(f.name, func(t *testing.T) {
			// An animal with a sire, not yet asked for by B.
			var id, sire string
			for ; id == ""; n++ {
				if an, _ := up.Data().Animal(ids[n]); an.Sire != "" {
					id, sire = an.LPNID, an.Sire
				}
			}
			key := cache.Key(animalDef.method, map[string]any{"search_string": id})
			first := a.call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
			if !strings.Contains(first.text, sire) {
				t.Fatalf("A's answer does not name the sire %s: %.300s", sire, first.text)
			}
			e, ok := a.gw.cache.Peek(key)
			if !ok {
				t.Fatal("A did not cache its answer")
			}
			genuine, err := sharedCodec.Encode(e.Value.(*upstream.Answer))
			if err != nil {
				t.Fatal(err)
			}
			forged := deflate(t, strings.ReplaceAll(inflate(t, genuine), sire, forgedSire))
			if _, err := sharedCodec.Decode(forged); err != nil {
				t.Fatalf("the forged record does not even decode: %v", err)
			}
			f.write(cache.DefaultRedisPrefix+"c:"+b.gw.pool.Shared().RecordKey(key), forged, time.Now())

			up.ResetCounts()
			before := b.redis.Status().UnauthenticatedValues
			got := b.call(t, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
			if strings.Contains(got.text, forgedSire) || !strings.Contains(got.text, sire) {
				t.Errorf("B served the forged sire: %.300s", got.text)
			}
			if src := cacheSource(t, got); src != cacheMiss || up.Requests(nsiptest.EndpointDetails) != 1 {
				t.Errorf("B: _meta.cache %q after %d upstream requests; want miss and 1 (the forged record ignored)", src, up.Requests(nsiptest.EndpointDetails))
			}
			if h := b.gw.Health().Shared; h == nil || h.Redis.UnauthenticatedValues != before+1 {
				t.Errorf("B's /healthz shared section %+v, want unauthenticated_values %d", h, before+1)
			}
		})
	}
}

// A replica whose clock runs a year ahead stamps its records a year in the
// future. Served as they are, such a record looks fresh to every replica
// until Redis drops it, past any TTL, so nobody refetches and replaces it
// (one written without an expiry would stay until Redis is flushed). It is
// refused instead, and counted.
func TestSharedFutureStoreTimeDoesNotPin(t *testing.T) {
	rd := redistest.Start(t)
	clk := cachetest.NewClock()
	const ahead = 365 * 24 * time.Hour
	i := 0
	rs, up := newReplicas(t, 2, rd.URL(), func(c *Config) {
		c.Now = clk.Now
		if i == 0 {
			c.Now = func() time.Time { return clk.Now().Add(ahead) }
		}
		i++
	})
	a, b := rs[0], rs[1]
	args := map[string]any{"lpn_id": up.Data().MostProgeny()}
	a.call(t, "nsip_get_lineage", args).mustOK(t)
	written := mustCached(t, a, lineageDef, args)
	for range 2 {
		up.ResetCounts()
		r := b.call(t, "nsip_get_lineage", args).mustOK(t)
		if src := cacheSource(t, r); src != cacheMiss || up.Requests(nsiptest.EndpointLineage) != 1 {
			t.Errorf("B at %s: _meta.cache %q after %d upstream requests; want its own fetch",
				clk.Now().Format(time.TimeOnly), src, up.Requests(nsiptest.EndpointLineage))
		}
		clk.Advance(2 * time.Hour) // past the one-hour TTL
		// A writes its record, stamped a year ahead, again.
		a.gw.pool.Shared().Store(context.Background(), cache.Key(lineageDef.method, args), nil, written)
	}
	if h := b.gw.Health().Shared; h == nil || h.Redis.FutureValues != 2 || h.Redis.IgnoredValues != 2 {
		t.Errorf("B's /healthz shared section %+v, want future_values 2 and ignored_values 2", h)
	}
}

// mustCached is the answer r holds for d and args in its local tier.
func mustCached(t *testing.T, r *replica, d *toolDef, args map[string]any) *upstream.Answer {
	t.Helper()
	e, ok := r.gw.cache.Peek(cache.Key(d.method, args))
	if !ok {
		t.Fatalf("%s %v is not in the replica's local tier", d.name, args)
	}
	return e.Value.(*upstream.Answer)
}

// A replica with a token budget of 1000 must not serve another replica's
// fit for a budget of 8000 (a 6,700-token search page passes through
// whole there). It fetches and fits for itself, and a third replica with
// its budget shares its fit.
func TestSharedReplicasWithOtherBudgetsFitForThemselves(t *testing.T) {
	rd := redistest.Start(t)
	budgets := []int{8000, 1000, 1000}
	i := 0
	rs, up := newReplicas(t, 3, rd.URL(), func(c *Config) { c.Budget = budgets[i]; i++ })
	args := map[string]any{"page": 10, "page_size": 20}

	big := rs[0].call(t, "nsip_search_animals", args).mustOK(t)
	if tokens := big.metaInt(t, "tokens"); tokens <= 6000 || tokens > 8000 || big.meta["summarized"] != false {
		t.Fatalf("A (budget 8000): %d tokens, summarized %v; want the whole page of over 6000 tokens", tokens, big.meta["summarized"])
	}
	small := rs[1].call(t, "nsip_search_animals", args).mustOK(t)
	if tokens := small.metaInt(t, "tokens"); tokens > 1000 || small.meta["summarized"] != true || small.metaInt(t, "budget") != 1000 {
		t.Errorf("B (budget 1000): %d tokens, summarized %v, budget %d; want a summary within 1000", tokens, small.meta["summarized"], small.metaInt(t, "budget"))
	}
	if src := cacheSource(t, small); src != cacheMiss || up.Requests(nsiptest.EndpointSearch) != 2 {
		t.Errorf("B: _meta.cache %q after %d upstream requests; want miss and 2", src, up.Requests(nsiptest.EndpointSearch))
	}
	same := rs[2].call(t, "nsip_search_animals", args).mustOK(t)
	if src := cacheSource(t, same); src != cacheShared || same.text != small.text || up.Requests(nsiptest.EndpointSearch) != 2 {
		t.Errorf("C (budget 1000): _meta.cache %q, same text as B %v, %d upstream requests; want B's fit, shared, and still 2",
			src, same.text == small.text, up.Requests(nsiptest.EndpointSearch))
	}
}
