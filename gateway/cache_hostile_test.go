package gateway

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// tinyRecords renders n records of a few bytes each, the shape whose
// decoded model outweighs its JSON the most: a struct and an Extra map per
// record.
func tinyRecords(n int, tag string) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"lpnId":"%s%d","x":%d}`, tag, i, i%10)
	}
	sb.WriteByte(']')
	return sb.String()
}

// hostileShapes serves pages of many tiny records and animals with
// thousands of tiny unknown fields, each answer about half a megabyte.
func hostileShapes(t *testing.T) *httptest.Server {
	const rows = 20000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch {
		case strings.HasSuffix(r.URL.Path, "/search/getPageOfSearchResults"):
			fmt.Fprintf(w, `{"recordCount":%d,"records":%s}`, rows, tinyRecords(rows, "s"+q.Get("page")+"n"))
		case strings.HasSuffix(r.URL.Path, "/details/getPageOfProgeny"):
			fmt.Fprintf(w, `{"recordCount":%d,"records":%s}`, rows, tinyRecords(rows, q.Get("lpnId")+"n"))
		case strings.HasSuffix(r.URL.Path, "/details/getAnimalDetails"):
			var sb strings.Builder
			fmt.Fprintf(&sb, `{"success":true,"data":{"lpnId":%q`, q.Get("searchString"))
			for i := range rows {
				fmt.Fprintf(&sb, `,"f%d":%d`, i, i%10)
			}
			sb.WriteString("}}")
			_, _ = io.WriteString(w, sb.String())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// heapAfterGC is the live heap.
func heapAfterGC() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// heldByCache empties g's cache and returns what the heap shrank by and
// what the cache had charged: the memory the cache really held against
// what it counted, whatever else the process allocated meanwhile.
func heldByCache(t *testing.T, g *Gateway) (freed, charged int64) {
	t.Helper()
	charged = g.cache.Stats().Bytes
	before := heapAfterGC()
	empty, err := cache.New(cache.Config{TTL: g.cfg.CacheTTL, StaleTTL: g.cfg.StaleTTL, MaxEntries: g.cfg.CacheMaxEntries, MaxBytes: g.cfg.CacheMaxBytes, Now: g.cfg.Now})
	if err != nil {
		t.Fatal(err)
	}
	// The old cache is read again only once it has been collected. A
	// fetch's goroutine that has handed its answer over may not have
	// returned yet, and while it runs it holds the old pool and so the
	// whole old cache: on a loaded machine, long enough for every reading
	// to find nothing freed. A cache something holds for good is never
	// collected, and says so.
	collected := make(chan struct{})
	runtime.AddCleanup(g.cache, func(c chan struct{}) { close(c) }, collected)
	// The pool reads and fills the local tier too: it starts over with
	// the empty one.
	g.cache, g.pool = empty, g.newPool(empty)
	for deadline := time.Now().Add(time.Minute); ; {
		runtime.GC()
		select {
		case <-collected:
			return before - heapAfterGC(), charged
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the emptied cache was still held a minute after it was replaced")
		}
	}
}

// TestCacheBoundHoldsForHostileShapes: answers shaped to make the decoded
// model outweigh the JSON (pages of 20,000 tiny records, an animal with
// 20,000 tiny unknown fields) are charged what the cache really holds, so
// NSIP_CACHE_MAX_BYTES bounds memory for them too. Charged at four times
// their JSON, such pages held eight times what was counted.
func TestCacheBoundHoldsForHostileShapes(t *testing.T) {
	srv := hostileShapes(t)
	nc, err := nsip.NewClient(nsip.WithBaseURL(srv.URL+"/api"), nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := summarizer(t)
	for _, k := range []struct {
		name string
		d    *lookup.Def
		n    int // answers cached: megabytes in all
		args func(i int) map[string]any
	}{
		{"search pages of tiny records", lookup.SearchAnimals, 2, func(i int) map[string]any { return map[string]any{"page": i, "page_size": 100} }},
		{"profile progeny pages of tiny records", lookup.Progeny, 2, func(i int) map[string]any {
			return map[string]any{"lpn_id": fmt.Sprintf("TINY%04d", i), "page": 0, "page_size": nsip.ProfilePageSize}
		}},
		// An animal holds about 200 KiB once decoded: two of them were
		// within reach of what a test's leftover goroutines allocate
		// between the readings, which once read 0.09 on a loaded machine.
		{"animals of tiny fields", lookup.Animal, 12, func(i int) map[string]any { return map[string]any{"search_string": fmt.Sprintf("TINY%04d", i)} }},
	} {
		t.Run(k.name, func(t *testing.T) {
			g, err := New(nc, sum, Config{
				CacheMaxBytes: 1 << 30, RateLimit: 1000, RateBurst: 1000, CallTimeout: 10 * time.Minute, // memory is measured, not time
				Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			// Megabytes of each shape, far above what else the heap does
			// between the two readings; the cache charges each answer on
			// its own, so more of them change the ratio no more than they
			// cost (six pages took about three times as long as two, for
			// the same ratios).
			for i := range k.n {
				args, errs := k.d.Args.Validate(param.SentOf(k.args(i)))
				if len(errs) > 0 {
					t.Fatalf("arguments %v: %+v", k.args(i), errs)
				}
				if o := g.pass(context.Background(), k.d.Read(args), toolcall.Call{Args: args}); o.Err != nil {
					t.Fatalf("call %d: %+v", i, o.Err)
				}
			}
			freed, charged := heldByCache(t, g)
			ratio := float64(freed) / float64(charged)
			t.Logf("cache charged %d KiB, held %d KiB (%.2f)", charged>>10, freed>>10, ratio)
			if ratio < 0.6 || ratio > 1.25 {
				t.Errorf("the cache held %d KiB for %d KiB charged (%.2f); want 0.6 to 1.25", freed>>10, charged>>10, ratio)
			}
		})
	}
}
