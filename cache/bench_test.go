package cache_test

import (
	"strconv"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache"
)

// benchKeys are keys shaped like the gateway's, for a cache holding n
// answers of a few KiB each.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = cache.Key("get_animal_details", map[string]any{"search_string": "6402382024NCS" + strconv.Itoa(100000+i)})
	}
	return keys
}

// fullCache holds n entries, well inside both of its bounds.
func fullCache(b *testing.B, n int) (*cache.Cache, []string) {
	b.Helper()
	c, err := cache.New(cache.Config{MaxEntries: n, MaxBytes: int64(n) * 8 << 10})
	if err != nil {
		b.Fatal(err)
	}
	keys := benchKeys(n)
	for _, k := range keys {
		c.Set(k, k, 4<<10, 450)
	}
	return c, keys
}

// BenchmarkGet is a hit in a cache of 10,000 entries (the default bound).
func BenchmarkGet(b *testing.B) {
	c, keys := fullCache(b, 10_000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := c.Get(keys[i%len(keys)]); !ok {
			b.Fatal("miss on a stored key")
		}
		i++
	}
}

// BenchmarkGetParallel is the same hit from every core at once: the cache
// has one lock, so this shows what contention costs.
func BenchmarkGetParallel(b *testing.B) {
	c, keys := fullCache(b, 10_000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, ok := c.Get(keys[i%len(keys)]); !ok {
				b.Error("miss on a stored key")
				return
			}
			i += 7
		}
	})
}

// BenchmarkSet replaces entries of a full cache, so every put also evicts.
func BenchmarkSet(b *testing.B) {
	c, _ := fullCache(b, 10_000)
	fresh := benchKeys(20_000)[10_000:]
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := fresh[i%len(fresh)]
		c.Set(k, k, 4<<10, 450)
		i++
	}
	if st := c.Stats(); st.Entries+st.StaleEntries > 10_000 {
		b.Fatalf("cache holds %d entries, above its bound of 10,000", st.Entries+st.StaleEntries)
	}
}

// BenchmarkKey builds the key of a typical search, which every tool call
// does before it looks in the cache.
func BenchmarkKey(b *testing.B) {
	args := map[string]any{
		"page": 0, "page_size": 15, "breed_id": 640, "sorted_trait": "WWT", "reverse": false,
		"search_criteria": map[string]any{"gender": "Female", "born_after": "2022-01-01", "status": "CURRENT"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if cache.Key("search_animals", args) == "" {
			b.Fatal("empty key")
		}
	}
}
