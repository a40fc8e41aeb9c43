package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// benchmarkHit measures a cache hit through the tool handler: validation,
// key, lookup and the result fitted when the answer was fetched.
func benchmarkHit(b *testing.B, tool string, args func(e *env) map[string]any) {
	e := newEnv(b)
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args(e)
	h := e.gw.handler(defByName(b, tool))
	ctx := context.Background()
	if res, err := h(ctx, req); err != nil || res.IsError {
		b.Fatalf("warm-up call failed: %v %v", err, res)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res, _ := h(ctx, req); res.IsError {
			b.Fatal("error result")
		}
	}
}

func BenchmarkHitPassThrough(b *testing.B) {
	benchmarkHit(b, "nsip_get_animal", func(e *env) map[string]any {
		return map[string]any{"search_string": e.up.Data().MostProgeny()}
	})
}

func BenchmarkHitSummarizedSearchPage(b *testing.B) {
	benchmarkHit(b, "nsip_search_animals", func(*env) map[string]any { return map[string]any{"page_size": 100} })
}

// The benchmarks below measure the pipeline side by side with the bare NSIP
// client, against one stand-in on loopback with no added latency, so that
// the differences are the gateway's own cost. Each reports its median and
// 99th percentile per call besides the mean.

// pipelineRig is the pipeline as the server wires it: the real client,
// cache, summarizer and gateway, logging JSON at info level (to nowhere).
type pipelineRig struct {
	stub  *nsiptest.Server
	nc    *nsip.Client
	srv   *server.MCPServer
	tools map[string]server.ToolHandlerFunc
}

// newPipelineRig builds a gateway over stub. maxEntries 1 defeats the cache
// when calls alternate between keys; 0 keeps the default bound. The rate
// limit is lifted: it guards the real API, and here it would only measure
// waiting.
func newPipelineRig(b *testing.B, stub *nsiptest.Server, maxEntries int) *pipelineRig {
	b.Helper()
	nc, err := nsip.NewClient(nsip.WithBaseURL(stub.URL()),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1, MaxRetryAfter: time.Second}))
	if err != nil {
		b.Fatal(err)
	}
	counter, err := summarize.NewCounter()
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.RateLimit, cfg.RateBurst, cfg.MaxConcurrentUpstream = 1e9, 1<<30, 1000
	cfg.CacheMaxEntries = maxEntries
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	g, err := New(nc, summarize.New(counter), cfg)
	if err != nil {
		b.Fatal(err)
	}
	r := &pipelineRig{stub: stub, nc: nc, srv: g.NewMCPServer("bench", "1"), tools: map[string]server.ToolHandlerFunc{}}
	for _, st := range g.Tools() {
		r.tools[st.Tool.Name] = st.Handler
	}
	return r
}

func benchStub(b *testing.B) *nsiptest.Server {
	return nsiptest.NewServer(b, nsiptest.Options{Seed: 11, Animals: 4000})
}

// call runs one tool call through the handler and checks it succeeded with
// the expected cache outcome ("" accepts any).
func (r *pipelineRig) call(b *testing.B, tool string, args map[string]any, wantCache string) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := r.tools[tool](context.Background(), req)
	if err != nil || res.IsError {
		b.Fatalf("%s %v: %v %v", tool, args, err, res)
	}
	if wantCache != "" {
		if got := res.Meta.AdditionalFields["cache"]; got != wantCache {
			b.Fatalf("%s %v: cache %v, want %s", tool, args, got, wantCache)
		}
	}
}

// animalIDs are the first 64 animals: enough keys that, with a one-entry
// cache, every call misses.
func animalIDs(stub *nsiptest.Server) []string { return stub.Data().AnimalIDs()[:64] }

// timedLoop runs op b.N times, timing each, and reports the median and
// 99th percentile besides the mean.
func timedLoop(b *testing.B, op func(i int)) {
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 1<<16)
	i := 0
	for b.Loop() {
		t0 := time.Now()
		op(i)
		lat = append(lat, time.Since(t0))
		i++
	}
	reportPercentiles(b, "", lat)
}

// reportPercentiles adds name-p50-µs and name-p99-µs metrics.
func reportPercentiles(b *testing.B, name string, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		k := min(int(math.Ceil(p*float64(len(lat))))-1, len(lat)-1)
		return float64(lat[max(k, 0)]) / 1e3
	}
	if name != "" {
		name += "-"
	}
	b.ReportMetric(at(0.50), name+"p50-µs")
	b.ReportMetric(at(0.99), name+"p99-µs")
}

// BenchmarkPipeline runs the cached, uncached and bare variants of a
// pass-through call (nsip_get_animal, about 450 tokens) and a summarized one
// (nsip_search_animals with 100 rows, about 29,000 tokens) in one process,
// and a cached profile (nsip_search_by_lpn, assembled from three entries).
func BenchmarkPipeline(b *testing.B) {
	stub := benchStub(b)
	cached := newPipelineRig(b, stub, 0)
	uncached := newPipelineRig(b, stub, 1)
	ids := animalIDs(stub)
	animal := func(i int) map[string]any { return map[string]any{"search_string": ids[i%len(ids)]} }
	page := func(i int) map[string]any { return map[string]any{"page_size": 100, "page": i % 40} }
	ctx := context.Background()

	b.Run("cached/pass-through", func(b *testing.B) {
		cached.call(b, "nsip_get_animal", animal(0), "")
		timedLoop(b, func(int) { cached.call(b, "nsip_get_animal", animal(0), "hit") })
	})
	b.Run("cached/pass-through/json-rpc", func(b *testing.B) {
		cached.call(b, "nsip_get_animal", animal(0), "")
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nsip_get_animal","arguments":{"search_string":"` + ids[0] + `"}}}`)
		timedLoop(b, func(int) {
			out, err := json.Marshal(cached.srv.HandleMessage(ctx, msg))
			if err != nil || !bytes.Contains(out, []byte(`"cache":"hit"`)) {
				b.Fatalf("not a cached answer: %v %.200s", err, out)
			}
		})
	})
	b.Run("cached/summarized", func(b *testing.B) {
		cached.call(b, "nsip_search_animals", page(0), "")
		timedLoop(b, func(int) { cached.call(b, "nsip_search_animals", page(0), "hit") })
	})
	b.Run("cached/profile", func(b *testing.B) {
		profile := map[string]any{"lpn_id": stub.Data().MostProgeny()}
		cached.call(b, "nsip_search_by_lpn", profile, "")
		timedLoop(b, func(int) { cached.call(b, "nsip_search_by_lpn", profile, "hit") })
	})
	b.Run("uncached/pass-through", func(b *testing.B) {
		timedLoop(b, func(i int) { uncached.call(b, "nsip_get_animal", animal(i), "miss") })
	})
	b.Run("uncached/summarized", func(b *testing.B) {
		timedLoop(b, func(i int) { uncached.call(b, "nsip_search_animals", page(i), "miss") })
	})
	b.Run("bare/pass-through", func(b *testing.B) {
		timedLoop(b, func(i int) {
			if _, err := cached.nc.AnimalDetails(ctx, ids[i%len(ids)]); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("bare/summarized", func(b *testing.B) {
		timedLoop(b, func(i int) {
			if _, err := cached.nc.SearchAnimals(ctx, nsip.SearchParams{PageSize: 100, Page: i % 40}); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkPipelineParallel is the cached pass-through call from every core
// at once; calls/s is the in-process ceiling of the server.
func BenchmarkPipelineParallel(b *testing.B) {
	stub := benchStub(b)
	r := newPipelineRig(b, stub, 0)
	args := map[string]any{"search_string": animalIDs(stub)[0]}
	r.call(b, "nsip_get_animal", args, "")
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.call(b, "nsip_get_animal", args, "hit")
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkSideBySide alternates two ways of making the same call within
// each iteration, so that both see the same machine load, and reports each
// one's median, the median of the per-pair differences and the ratio of the
// medians. The shared machine's noise falls on both sides alike.
func BenchmarkSideBySide(b *testing.B) {
	stub := benchStub(b)
	cached := newPipelineRig(b, stub, 0)
	uncached := newPipelineRig(b, stub, 1)
	ids := animalIDs(stub)
	ctx := context.Background()
	for _, id := range ids {
		cached.call(b, "nsip_get_animal", map[string]any{"search_string": id}, "")
	}
	pairs := []struct {
		name          string
		base, subject func(i int)
	}{
		{
			"gateway-uncached-vs-bare/pass-through",
			func(i int) {
				if _, err := cached.nc.AnimalDetails(ctx, ids[i%len(ids)]); err != nil {
					b.Fatal(err)
				}
			},
			func(i int) {
				uncached.call(b, "nsip_get_animal", map[string]any{"search_string": ids[i%len(ids)]}, "miss")
			},
		},
		{
			"gateway-uncached-vs-bare/summarized",
			func(i int) {
				if _, err := cached.nc.SearchAnimals(ctx, nsip.SearchParams{PageSize: 100, Page: i % 40}); err != nil {
					b.Fatal(err)
				}
			},
			func(i int) {
				uncached.call(b, "nsip_search_animals", map[string]any{"page_size": 100, "page": i % 40}, "miss")
			},
		},
		{
			"uncached-vs-cached/pass-through",
			func(i int) {
				cached.call(b, "nsip_get_animal", map[string]any{"search_string": ids[i%len(ids)]}, "hit")
			},
			func(i int) {
				uncached.call(b, "nsip_get_animal", map[string]any{"search_string": ids[i%len(ids)]}, "miss")
			},
		},
	}
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			var base, subj, diff []time.Duration
			i := 0
			for b.Loop() {
				// Alternate which side goes first, so neither always finds
				// the other's garbage or warm caches.
				var tb, ts time.Duration
				if i%2 == 0 {
					tb, ts = timeIt(func() { p.base(i) }), timeIt(func() { p.subject(i) })
				} else {
					ts, tb = timeIt(func() { p.subject(i) }), timeIt(func() { p.base(i) })
				}
				base, subj, diff = append(base, tb), append(subj, ts), append(diff, ts-tb)
				i++
			}
			reportPercentiles(b, "base", base)
			reportPercentiles(b, "subject", subj)
			slices.Sort(diff)
			b.ReportMetric(float64(diff[len(diff)/2])/1e3, "diff-p50-µs")
			b.ReportMetric(float64(subj[len(subj)/2])/float64(base[len(base)/2]), "ratio-p50")
		})
	}
}

func timeIt(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}
