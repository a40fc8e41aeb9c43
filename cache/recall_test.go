package cache

import (
	"testing"
	"time"
)

func TestRecallRefreshesRecencyWithoutCounting(t *testing.T) {
	c, clk := newCache(t, Config{TTL: time.Minute, StaleTTL: time.Hour, MaxEntries: 2})
	c.Set("a", 1, 1, 1)
	c.Set("b", 2, 1, 1)
	if e, ok := c.Recall("a"); !ok || e.Value != 1 {
		t.Fatalf("Recall(a) = %+v, %v", e, ok)
	}
	if _, ok := c.Recall("zzz"); ok {
		t.Error("Recall invented an entry")
	}
	c.Set("c", 3, 1, 1) // "a" was recalled, so "b" is now the oldest
	if _, ok := c.Peek("a"); !ok {
		t.Error("a recalled entry was evicted before an older one")
	}
	if _, ok := c.Peek("b"); ok {
		t.Error("the least recently used entry survived")
	}
	if s := c.Stats(); s.Hits != 0 || s.Misses != 0 {
		t.Errorf("Recall counted lookups: %+v", s)
	}
	clk.Advance(2 * time.Minute)
	if _, ok := c.Recall("c"); ok {
		t.Error("Recall served an entry older than the TTL")
	}
}
