package cache

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
)

func newCache(t *testing.T, cfg Config) (*Cache, *cachetest.Clock) {
	t.Helper()
	clk := cachetest.NewClock()
	cfg.Now = clk.Now
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, clk
}

func TestKey(t *testing.T) {
	type criteria struct {
		Gender  string `json:"gender"`
		BreedID int    `json:"breed_id"`
	}
	tests := []struct {
		name   string
		method string
		params any
		want   string
	}{
		{"spec example", "get_animal_details", map[string]any{"search_string": "6402382024NCS310"},
			`get_animal_details:{"search_string":"6402382024NCS310"}`},
		{"nil params", "get_date_last_updated", nil, `get_date_last_updated:{}`},
		{"empty params", "get_available_breed_groups", map[string]any{}, `get_available_breed_groups:{}`},
		{"keys sorted", "get_progeny", map[string]any{"page_size": 10, "lpn_id": "6402382024NCS310", "page": 0},
			`get_progeny:{"lpn_id":"6402382024NCS310","page":0,"page_size":10}`},
		{"nested keys sorted", "search_animals",
			map[string]any{"search_criteria": map[string]any{"gender": "Female", "breed_id": 640, "trait_ranges": map[string]any{"WWT": map[string]any{"max": 2.5, "min": 0.5}, "BWT": map[string]any{"min": -1, "max": 0}}}, "page": 1},
			`search_animals:{"page":1,"search_criteria":{"breed_id":640,"gender":"Female","trait_ranges":{"BWT":{"max":0,"min":-1},"WWT":{"max":2.5,"min":0.5}}}}`},
		{"struct fields sorted", "search_animals", criteria{Gender: "Male", BreedID: 640},
			`search_animals:{"breed_id":640,"gender":"Male"}`},
		{"html characters kept", "get_animal_details", map[string]any{"search_string": "a<b>&c"},
			`get_animal_details:{"search_string":"a<b>&c"}`},
		{"large integers exact", "get_trait_ranges_by_breed", map[string]any{"breed_id": int64(9007199254740993)},
			`get_trait_ranges_by_breed:{"breed_id":9007199254740993}`},
		{"arrays keep order", "x", map[string]any{"b": []any{3, 1, map[string]any{"z": 1, "a": 2}}},
			`x:{"b":[3,1,{"a":2,"z":1}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Key(tt.method, tt.params); got != tt.want {
				t.Errorf("Key = %s\nwant  %s", got, tt.want)
			}
		})
	}
}

func TestKeyUnencodableParamsAreDeterministicAndDistinct(t *testing.T) {
	a := Key("m", map[string]any{"x": math.NaN()})
	b := Key("m", map[string]any{"x": math.Inf(1)})
	if a != Key("m", map[string]any{"x": math.NaN()}) {
		t.Errorf("key for NaN params is not stable: %s", a)
	}
	if a == b || a == "m:{}" {
		t.Errorf("unencodable params collapsed: %q vs %q", a, b)
	}
}

func TestNewRejectsNegativeSettings(t *testing.T) {
	for _, cfg := range []Config{{TTL: -1}, {StaleTTL: -1}, {MaxEntries: -1}, {MaxBytes: -1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a negative setting", cfg)
		}
	}
}

func TestNewDefaults(t *testing.T) {
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.MaxEntries != DefaultMaxEntries || s.MaxBytes != DefaultMaxBytes {
		t.Errorf("bounds = %d entries / %d bytes, want %d / %d", s.MaxEntries, s.MaxBytes, DefaultMaxEntries, DefaultMaxBytes)
	}
	c.Set("k", "v", 1, 1)
	if e, ok := c.Get("k"); !ok || e.Value != "v" {
		t.Errorf("Get with the wall clock = %v, %v", e, ok)
	}
}

func TestGetSetAndStats(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Hour})
	if _, ok := c.Get("a"); ok {
		t.Fatal("empty cache reported a hit")
	}
	c.Set("a", "answer", 100, 42)
	e, ok := c.Get("a")
	if !ok {
		t.Fatal("miss right after Set")
	}
	if e.Value != "answer" || e.Size != 100 || e.Tokens != 42 || !e.Stored.Equal(clk.Now()) {
		t.Errorf("entry = %+v", e)
	}
	c.Get("a")
	s := c.Stats()
	if s.Hits != 2 || s.Misses != 1 || s.Entries != 1 || s.Bytes != 100 {
		t.Errorf("stats = %+v, want 2 hits, 1 miss, 1 entry, 100 bytes", s)
	}
	if want := 2.0 / 3.0; math.Abs(s.HitRate-want) > 1e-9 {
		t.Errorf("hit rate = %v, want %v", s.HitRate, want)
	}
	// Replacing keeps one entry and the new size.
	c.Set("a", "newer", 30, 7)
	if e, _ := c.Get("a"); e.Value != "newer" || e.Tokens != 7 {
		t.Errorf("after replace: %+v", e)
	}
	if s := c.Stats(); s.Entries != 1 || s.Bytes != 30 {
		t.Errorf("after replace stats = %+v", s)
	}
}

func TestTTLExpiryAndStaleWindow(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Hour, StaleTTL: 24 * time.Hour})
	c.Set("k", "v1", 10, 1)

	clk.Advance(time.Hour) // exactly TTL old: still fresh
	if _, ok := c.Get("k"); !ok {
		t.Fatal("entry exactly TTL old should still be fresh")
	}
	clk.Advance(time.Second)
	if _, ok := c.Get("k"); ok {
		t.Fatal("entry older than TTL served as fresh")
	}
	s := c.Stats()
	if s.Entries != 0 || s.StaleEntries != 1 || s.Bytes != 10 {
		t.Errorf("after expiry stats = %+v, want 0 fresh, 1 stale, 10 bytes", s)
	}
	e, ok := c.Stale("k")
	if !ok || e.Value != "v1" {
		t.Fatalf("Stale = %+v, %v; want the expired entry", e, ok)
	}
	if got := c.Stats().StaleServed; got != 1 {
		t.Errorf("stale served = %d, want 1", got)
	}

	clk.Advance(24 * time.Hour) // past TTL + StaleTTL
	if _, ok := c.Stale("k"); ok {
		t.Error("entry past the stale window was served")
	}
	s = c.Stats()
	if s.StaleEntries != 0 || s.Bytes != 0 || s.Expirations != 1 {
		t.Errorf("after stale window stats = %+v", s)
	}
}

func TestStaleReturnsFreshEntryAndMissesUnknownKey(t *testing.T) {
	c, _ := newCache(t, Config{})
	c.Set("k", "v", 1, 1)
	if e, ok := c.Stale("k"); !ok || e.Value != "v" {
		t.Errorf("Stale on a fresh entry = %+v, %v", e, ok)
	}
	if _, ok := c.Stale("other"); ok {
		t.Error("Stale invented an entry")
	}
}

func TestExpiredFreshEntryIsStillAStaleFallbackBeforeBeingLookedAt(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Minute, StaleTTL: time.Hour})
	c.Set("k", "v", 1, 1)
	clk.Advance(2 * time.Minute)
	if e, ok := c.Stale("k"); !ok || e.Value != "v" {
		t.Errorf("Stale = %+v, %v; want the expired entry", e, ok)
	}
}

func TestSetSweepsExpiredEntries(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Minute, StaleTTL: time.Hour})
	c.Set("old1", 1, 5, 1)
	c.Set("old2", 2, 5, 1)
	clk.Advance(2 * time.Minute)
	c.Set("new", 3, 5, 1)
	s := c.Stats()
	if s.Entries != 1 || s.StaleEntries != 2 || s.Bytes != 15 {
		t.Errorf("after sweep stats = %+v, want 1 fresh, 2 stale, 15 bytes", s)
	}
	clk.Advance(2 * time.Hour)
	c.Set("newer", 4, 5, 1)
	s = c.Stats()
	// Everything but "newer" is now older than TTL + StaleTTL.
	if s.Entries != 1 || s.StaleEntries != 0 || s.Bytes != 5 || s.Expirations != 3 {
		t.Errorf("after second sweep stats = %+v, want 1 fresh, 0 stale, 5 bytes, 3 expirations", s)
	}
}

func TestGetDropsEntryPastBothWindows(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Minute, StaleTTL: time.Minute})
	c.Set("k", "v", 8, 1)
	clk.Advance(time.Hour)
	if _, ok := c.Get("k"); ok {
		t.Fatal("hit on a long-expired entry")
	}
	s := c.Stats()
	if s.Entries != 0 || s.StaleEntries != 0 || s.Bytes != 0 || s.Expirations != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestEntryBoundEvictsLeastRecentlyUsed(t *testing.T) {
	c, _ := newCache(t, Config{MaxEntries: 3})
	for i := range 3 {
		c.Set(fmt.Sprint(i), i, 1, 1)
	}
	c.Get("0") // 0 is now the most recently used; 1 is the oldest
	c.Set("3", 3, 1, 1)
	if _, ok := c.Get("1"); ok {
		t.Error("least recently used entry survived")
	}
	for _, k := range []string{"0", "2", "3"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("entry %s evicted", k)
		}
	}
	if s := c.Stats(); s.Evictions != 1 || s.Entries != 3 {
		t.Errorf("stats = %+v, want 1 eviction, 3 entries", s)
	}
}

func TestByteBoundEvictsOldestUntilUnderCap(t *testing.T) {
	c, _ := newCache(t, Config{MaxBytes: 100})
	c.Set("a", "a", 40, 1)
	c.Set("b", "b", 40, 1)
	c.Set("c", "c", 70, 1) // 150 bytes: a and b must go
	s := c.Stats()
	if s.Bytes != 70 || s.Entries != 1 || s.Evictions != 2 {
		t.Errorf("stats = %+v, want 70 bytes, 1 entry, 2 evictions", s)
	}
	if _, ok := c.Get("c"); !ok {
		t.Error("the newest entry was evicted")
	}
}

func TestOversizeEntryIsNotStored(t *testing.T) {
	c, _ := newCache(t, Config{MaxBytes: 100})
	c.Set("small", 1, 10, 1)
	c.Set("huge", 2, 101, 1)
	if _, ok := c.Get("huge"); ok {
		t.Error("entry larger than MaxBytes was stored")
	}
	if _, ok := c.Get("small"); !ok {
		t.Error("an oversize entry pushed out a small one")
	}
	c.Set("neg", 3, -5, 1) // a nonsense size counts as zero
	if s := c.Stats(); s.Bytes != 10 || s.Entries != 2 {
		t.Errorf("stats = %+v", s)
	}
}

func TestStaleEntriesAreEvictedBeforeFreshOnes(t *testing.T) {
	c, clk := newCache(t, Config{MaxEntries: 2, TTL: time.Minute, StaleTTL: time.Hour})
	c.Set("old", 1, 1, 1)
	clk.Advance(2 * time.Minute)
	c.Set("a", 2, 1, 1) // sweeps "old" into the stale tier
	c.Set("b", 3, 1, 1) // three entries in total: the stale one goes first
	if _, ok := c.Stale("old"); ok {
		t.Error("stale entry kept while a fresh one was needed")
	}
	for _, k := range []string{"a", "b"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("fresh entry %s evicted", k)
		}
	}
}

func TestStaleTierBoundHolds(t *testing.T) {
	c, clk := newCache(t, Config{MaxEntries: 2, TTL: time.Minute, StaleTTL: time.Hour})
	c.Set("a", 1, 1, 1)
	c.Set("b", 2, 1, 1)
	clk.Advance(2 * time.Minute)
	c.Get("a")
	c.Get("b")
	c.Set("c", 3, 1, 1)
	s := c.Stats()
	if s.Entries+s.StaleEntries > 2 {
		t.Errorf("%d fresh + %d stale entries exceed the bound of 2", s.Entries, s.StaleEntries)
	}
	if _, ok := c.Get("c"); !ok {
		t.Error("newest entry missing")
	}
	if s.Bytes != int64(s.Entries+s.StaleEntries) {
		t.Errorf("bytes = %d, want one per entry (%d)", s.Bytes, s.Entries+s.StaleEntries)
	}
}

func TestConcurrentUse(t *testing.T) {
	c, _ := newCache(t, Config{MaxEntries: 50, MaxBytes: 1000})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := fmt.Sprint((g*7 + i) % 80)
				c.Set(k, i, 10, 1)
				c.Get(k)
				c.Stale(k)
			}
		}()
	}
	wg.Wait()
	s := c.Stats()
	if s.Entries+s.StaleEntries > 50 || s.Bytes > 1000 || s.Bytes != int64(10*(s.Entries+s.StaleEntries)) {
		t.Errorf("bounds or byte accounting broken: %+v", s)
	}
}

func TestPeekHasNoSideEffects(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Minute, StaleTTL: time.Hour, MaxEntries: 2})
	c.Set("a", 1, 1, 1)
	c.Set("b", 2, 1, 1)
	if e, ok := c.Peek("a"); !ok || e.Value != 1 {
		t.Fatalf("Peek = %+v, %v", e, ok)
	}
	if _, ok := c.Peek("zzz"); ok {
		t.Error("Peek invented an entry")
	}
	c.Set("c", 3, 1, 1) // "a" was only peeked, so it is still the oldest
	if _, ok := c.Peek("a"); ok {
		t.Error("Peek refreshed recency")
	}
	clk.Advance(2 * time.Minute)
	if _, ok := c.Peek("c"); ok {
		t.Error("Peek served an expired entry")
	}
	if s := c.Stats(); s.Hits != 0 || s.Misses != 0 || s.Entries != 2 || s.StaleEntries != 0 {
		t.Errorf("Peek changed the stats: %+v", s)
	}
}
