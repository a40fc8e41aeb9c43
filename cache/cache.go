// Package cache holds upstream answers for a while so that repeated questions
// do not reach NSIP again. Entries are fresh for a TTL (one hour by default),
// then kept as stale fallbacks for a further StaleTTL, to be served only when
// the upstream cannot answer. Both tiers together are bounded by entry count
// and by bytes; stale entries are evicted before fresh ones.
//
// Redis is the optional tier beside it that replicas share: it stores
// framed bytes under the same keys and reports its own health, so that its
// users can carry on without it.
package cache

import (
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Defaults sized for a 512 MB host: a typical cached answer is a few KiB
// (a 100-row search page is the largest, around 100 KiB).
const (
	DefaultTTL        = time.Hour
	DefaultStaleTTL   = 24 * time.Hour
	DefaultMaxEntries = 10_000
	DefaultMaxBytes   = 64 << 20
)

// Config sets the cache's lifetimes and bounds. Zero values take the defaults.
type Config struct {
	TTL        time.Duration    // how long an entry answers as fresh
	StaleTTL   time.Duration    // how long after TTL it remains a stale fallback
	MaxEntries int              // fresh and stale entries together
	MaxBytes   int64            // estimated bytes of fresh and stale entries together
	Now        func() time.Time // clock; time.Now when nil
}

// Entry is one cached upstream answer.
type Entry struct {
	Value  any       // the decoded answer
	Size   int64     // estimated bytes it occupies, as given to Set
	Tokens int       // token count of the answer, as given to Set
	Stored time.Time // when it was stored, by the cache's clock
}

// Stats is a snapshot of the cache's counters.
type Stats struct {
	Entries      int     `json:"entries"`       // fresh entries
	StaleEntries int     `json:"stale_entries"` // expired entries kept as fallbacks
	Bytes        int64   `json:"bytes"`         // estimated bytes of both tiers
	Hits         uint64  `json:"hits"`
	Misses       uint64  `json:"misses"`
	HitRate      float64 `json:"hit_rate"`     // hits / (hits + misses), 0 before any lookup
	Evictions    uint64  `json:"evictions"`    // entries dropped to respect the bounds
	Expirations  uint64  `json:"expirations"`  // entries that outlived TTL + StaleTTL
	StaleServed  uint64  `json:"stale_served"` // fallbacks handed out by Stale
	MaxEntries   int     `json:"max_entries"`
	MaxBytes     int64   `json:"max_bytes"`
}

// Cache is safe for concurrent use.
//
// The expirable LRUs are used as bounded LRU lists only: their TTL sweeper
// runs on the wall clock in a goroutine that v2 cannot stop, so the cache
// gives them no TTL and judges age itself against its own (injectable) clock.
// Expired entries are moved to the stale tier when they are next looked at or
// when a write sweeps the least recently used end.
type Cache struct {
	cfg Config

	mu        sync.Mutex
	fresh     *expirable.LRU[string, Entry]
	stale     *expirable.LRU[string, Entry]
	bytes     int64
	hits      uint64
	misses    uint64
	evictions uint64
	expired   uint64
	served    uint64
}

// New returns an empty cache. It rejects negative settings.
func New(cfg Config) (*Cache, error) {
	if cfg.TTL < 0 || cfg.StaleTTL < 0 || cfg.MaxEntries < 0 || cfg.MaxBytes < 0 {
		return nil, errors.New("cache: TTL, StaleTTL, MaxEntries and MaxBytes must not be negative")
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Cache{cfg: cfg}
	// Every removal, explicit or by the LRU's own bound, releases its bytes.
	drop := func(_ string, e Entry) { c.bytes -= e.Size }
	c.fresh = expirable.NewLRU(cfg.MaxEntries, drop, 0)
	c.stale = expirable.NewLRU(cfg.MaxEntries, drop, 0)
	return c, nil
}

// Get returns the fresh entry under key. An entry older than TTL is a miss
// (and becomes a stale fallback).
func (c *Cache) Get(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.cfg.Now()
	if e, ok := c.fresh.Peek(key); ok {
		if now.Sub(e.Stored) <= c.cfg.TTL {
			c.fresh.Get(key) // refresh its recency
			c.hits++
			return e, true
		}
		c.retire(key, e, now)
	}
	c.misses++
	return Entry{}, false
}

// Peek is Get without side effects: no counters, no recency, no retiring.
func (c *Cache) Peek(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.fresh.Peek(key); ok && c.cfg.Now().Sub(e.Stored) <= c.cfg.TTL {
		return e, true
	}
	return Entry{}, false
}

// Recall is Get for entries derived from others, such as a result assembled
// from several cached answers: it refreshes recency, so a popular derived
// entry is not evicted first, but counts neither a hit nor a miss, since
// finding it saves no upstream request.
func (c *Cache) Recall(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.fresh.Peek(key); ok && c.cfg.Now().Sub(e.Stored) <= c.cfg.TTL {
		c.fresh.Get(key)
		return e, true
	}
	return Entry{}, false
}

// Stale returns the entry under key whether fresh or expired, as long as it
// is younger than TTL + StaleTTL. It is meant for when the upstream fails;
// each success counts as a stale answer served.
func (c *Cache) Stale(key string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.cfg.Now()
	e, ok := c.fresh.Peek(key)
	if !ok {
		e, ok = c.stale.Peek(key)
	}
	if !ok {
		return Entry{}, false
	}
	if now.Sub(e.Stored) > c.cfg.TTL+c.cfg.StaleTTL {
		c.fresh.Remove(key)
		c.stale.Remove(key)
		c.expired++
		return Entry{}, false
	}
	c.served++
	return e, true
}

// Set stores value under key as fresh, replacing any older entry, then evicts
// stale and then least recently used fresh entries until both bounds hold.
// An entry larger than MaxBytes is not stored.
func (c *Cache) Set(key string, value any, size int64, tokens int) {
	c.SetAt(key, value, size, tokens, time.Time{})
}

// SetAt is Set for an entry stored earlier elsewhere, such as a shared tier:
// it ages from stored, so it expires when the original does. A zero stored
// means now.
func (c *Cache) SetAt(key string, value any, size int64, tokens int, stored time.Time) {
	if size < 0 {
		size = 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fresh.Remove(key)
	c.stale.Remove(key)
	if size > c.cfg.MaxBytes {
		return
	}
	now := c.cfg.Now()
	c.sweep(now)
	if stored.IsZero() || stored.After(now) {
		stored = now
	}
	c.bytes += size
	if c.fresh.Add(key, Entry{Value: value, Size: size, Tokens: tokens, Stored: stored}) {
		c.evictions++
	}
	c.trim()
}

// Stats returns the current counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{
		Entries:      c.fresh.Len(),
		StaleEntries: c.stale.Len(),
		Bytes:        c.bytes,
		Hits:         c.hits,
		Misses:       c.misses,
		Evictions:    c.evictions,
		Expirations:  c.expired,
		StaleServed:  c.served,
		MaxEntries:   c.cfg.MaxEntries,
		MaxBytes:     c.cfg.MaxBytes,
	}
	if n := c.hits + c.misses; n > 0 {
		s.HitRate = float64(c.hits) / float64(n)
	}
	return s
}

// retire moves an expired fresh entry to the stale tier, or drops it when it
// is past the stale window too. Callers hold c.mu.
func (c *Cache) retire(key string, e Entry, now time.Time) {
	c.fresh.Remove(key)
	if now.Sub(e.Stored) > c.cfg.TTL+c.cfg.StaleTTL {
		c.expired++
		return
	}
	c.bytes += e.Size
	if c.stale.Add(key, e) {
		c.evictions++
	}
}

// sweep retires expired entries from the least recently used end of the fresh
// tier and drops stale entries past their window from the oldest end of the
// stale tier. It stops at the first entry still in date, so the work per write
// stays small; anything it misses is caught when looked up, and the bounds
// hold regardless. Callers hold c.mu.
func (c *Cache) sweep(now time.Time) {
	for {
		k, e, ok := c.fresh.GetOldest()
		if !ok || now.Sub(e.Stored) <= c.cfg.TTL {
			break
		}
		c.retire(k, e, now)
	}
	for {
		k, e, ok := c.stale.GetOldest()
		if !ok || now.Sub(e.Stored) <= c.cfg.TTL+c.cfg.StaleTTL {
			break
		}
		c.stale.Remove(k)
		c.expired++
	}
}

// trim enforces the bounds, stale tier first. Callers hold c.mu.
func (c *Cache) trim() {
	for c.fresh.Len()+c.stale.Len() > c.cfg.MaxEntries || c.bytes > c.cfg.MaxBytes {
		if _, _, ok := c.stale.RemoveOldest(); !ok {
			if _, _, ok := c.fresh.RemoveOldest(); !ok {
				return
			}
		}
		c.evictions++
	}
}
