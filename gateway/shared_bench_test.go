//go:build e2e

package gateway

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// benchmarkShared measures a cached call on replica B of two sharing a
// local Redis: from B's own tier, or (fromRedis) from Redis with B's tier
// emptied before each call, which is what a replica pays for an answer
// another one fetched. It reports the bytes Redis holds for the answer
// beside the upstream body's.
func benchmarkShared(b *testing.B, tool string, args func(*nsiptest.Server) map[string]any, fromRedis bool) {
	rd := redistest.Start(b)
	rs, up := newReplicas(b, 2, rd.URL(), nil)
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args(up)
	d := defByName(b, tool)
	ctx := context.Background()
	if res, err := rs[0].gw.handler(d)(ctx, req); err != nil || res.IsError {
		b.Fatalf("warm-up call on A failed: %v %v", err, res)
	}
	gw := rs[1].gw
	h := gw.handler(d)
	want := cacheHit
	if fromRedis {
		want = cacheShared
	} else if _, err := h(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if fromRedis {
			b.StopTimer()
			gw.cache, _ = cache.New(cache.Config{TTL: gw.cfg.CacheTTL, StaleTTL: gw.cfg.StaleTTL})
			b.StartTimer()
		}
		res, _ := h(ctx, req)
		if res.IsError || res.Meta.AdditionalFields["cache"] != want {
			b.Fatalf("call on B: error %v, _meta.cache %v; want %s", res.IsError, res.Meta.AdditionalFields["cache"], want)
		}
	}
	b.StopTimer()
	if up.Requests(nsiptest.EndpointDetails)+up.Requests(nsiptest.EndpointSearch) != 1 {
		b.Fatalf("upstream requests %d, want the warm-up's 1", up.TotalRequests())
	}
	valid, _ := param.ValidateObject("", d.Args.Specs, param.SentOf(args(up)))
	if e, ok := rs[0].gw.cache.Peek(cache.Key(d.Method, valid.Members())); ok {
		a := e.Value.(*upstream.Answer)
		if enc, err := sharedCodec.Encode(a); err == nil {
			b.ReportMetric(float64(len(enc)), "redis-bytes")
			b.ReportMetric(float64(len(a.Raw)), "upstream-bytes")
		}
	}
}

func animalArgs(up *nsiptest.Server) map[string]any {
	return map[string]any{"search_string": up.Data().MostProgeny()}
}

func searchPageArgs(*nsiptest.Server) map[string]any { return map[string]any{"page_size": 100} }

func BenchmarkSharedLocalHitAnimal(b *testing.B) {
	benchmarkShared(b, "nsip_get_animal", animalArgs, false)
}

func BenchmarkSharedRedisHitAnimal(b *testing.B) {
	benchmarkShared(b, "nsip_get_animal", animalArgs, true)
}

func BenchmarkSharedLocalHitSearchPage(b *testing.B) {
	benchmarkShared(b, "nsip_search_animals", searchPageArgs, false)
}

func BenchmarkSharedRedisHitSearchPage(b *testing.B) {
	benchmarkShared(b, "nsip_search_animals", searchPageArgs, true)
}
