package gateway

import (
	"io"
	"log/slog"
	"testing"
)

// TestCacheBytesTrackTheHeap fills the cache with each kind of answer and
// compares the bytes the cache accounts for with what the Go heap grew by.
// NSIP_CACHE_MAX_BYTES is only a bound on memory if the two agree: an
// estimate far below the heap lets the process grow past the operator's
// setting, one far above wastes the cache.
func TestCacheBytesTrackTheHeap(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) {
		c.CacheMaxBytes = 1 << 30
		c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil)) // logs kept in memory would count
	}))
	ids := e.up.Data().AnimalIDs()
	// Every third of the first 300 animals, and of the first 90 pages of
	// 15: the same span of founders and deep pedigrees, small and large
	// answers, as every one of them, at a third of the calls. The cache
	// counts each entry on its own, so the ratio does not depend on how
	// many there are; a hundred of each kind (half a megabyte and more)
	// are far above what else the heap does between the two readings,
	// and the ratios come out as with three hundred.
	const stride = 3
	for _, k := range []struct {
		name string
		tool string
		args func(i int) map[string]any
		n    int
		// twice: each call is made again, answered from the cache, so
		// that the tool keeps its rendered answer with the call's text
		// (toolcall.Memo); what it keeps must go with the cache's entry.
		twice bool
	}{
		{"details", "nsip_get_animal", func(i int) map[string]any { return map[string]any{"search_string": ids[stride*i]} }, 300 / stride, false},
		{"details asked twice", "nsip_get_animal", func(i int) map[string]any { return map[string]any{"search_string": ids[stride*i+1]} }, 300 / stride, true},
		{"lineage", "nsip_get_lineage", func(i int) map[string]any { return map[string]any{"lpn_id": ids[stride*i]} }, 300 / stride, false},
		{"progeny", "nsip_get_progeny", func(i int) map[string]any { return map[string]any{"lpn_id": ids[stride*i], "page_size": 10} }, 300 / stride, false},
		{"search pages of 100", "nsip_search_animals", func(i int) map[string]any { return map[string]any{"page": i, "page_size": 100} }, 14, false},
		{"search pages of 15", "nsip_search_animals", func(i int) map[string]any { return map[string]any{"page": stride * i, "page_size": 15} }, 90 / stride, false},
	} {
		// The heap is read twice around emptying the cache; anything else
		// the process does in between (a goroutine an earlier test left
		// ending, say) moves the reading, never the cache's own count. A
		// reading out of range is therefore taken again, the cache filled
		// anew, up to three times: a cache that misjudges its entries is
		// out of range every time.
		var freed, counted int64
		var ratio float64
		for attempt := 1; attempt <= 3; attempt++ {
			for i := range k.n {
				e.call(k.tool, k.args(i)).mustOK(t)
				if k.twice {
					if r := e.call(k.tool, k.args(i)).mustOK(t); r.meta["cache"] != "hit" {
						t.Fatalf("%s: asked again, cache %v; want a hit", k.name, r.meta["cache"])
					}
				}
			}
			// What emptying the cache frees, so that memory the calls left
			// elsewhere (the token counter's memo, connection buffers) is
			// not taken for the cache's.
			freed, counted = heldByCache(t, e.gw)
			ratio = float64(freed) / float64(counted)
			t.Logf("%s ×%d, reading %d: cache counts %d KiB, held %d KiB (%.2f)", k.name, k.n, attempt, counted>>10, freed>>10, ratio)
			if ratio >= 0.6 && ratio <= 1.25 {
				break
			}
		}
		if ratio < 0.6 || ratio > 1.25 {
			t.Errorf("%s: the cache held %d KiB for %d KiB it counts (%.2f) in three readings; want 0.6 to 1.25", k.name, freed>>10, counted>>10, ratio)
		}
	}
}
