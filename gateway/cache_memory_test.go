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
	for _, k := range []struct {
		name string
		tool string
		args func(i int) map[string]any
		n    int
	}{
		{"details", "nsip_get_animal", func(i int) map[string]any { return map[string]any{"search_string": ids[i]} }, 300},
		{"lineage", "nsip_get_lineage", func(i int) map[string]any { return map[string]any{"lpn_id": ids[i]} }, 300},
		{"progeny", "nsip_get_progeny", func(i int) map[string]any { return map[string]any{"lpn_id": ids[i], "page_size": 10} }, 300},
		{"search pages of 100", "nsip_search_animals", func(i int) map[string]any { return map[string]any{"page": i, "page_size": 100} }, 14},
		{"search pages of 15", "nsip_search_animals", func(i int) map[string]any { return map[string]any{"page": i, "page_size": 15} }, 90},
	} {
		for i := range k.n {
			e.call(k.tool, k.args(i)).mustOK(t)
		}
		// What emptying the cache frees, so that memory the calls left
		// elsewhere (the token counter's memo, connection buffers) is not
		// taken for the cache's.
		freed, counted := heldByCache(t, e.gw)
		ratio := float64(freed) / float64(counted)
		t.Logf("%s ×%d: cache counts %d KiB, held %d KiB (%.2f)", k.name, k.n, counted>>10, freed>>10, ratio)
		if ratio < 0.6 || ratio > 1.25 {
			t.Errorf("%s: the cache held %d KiB for %d KiB it counts (%.2f); want 0.6 to 1.25", k.name, freed>>10, counted>>10, ratio)
		}
	}
}
