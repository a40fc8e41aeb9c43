// Package cachetest holds what the tests of the cache and of its users
// share.
package cachetest

import (
	"sync"
	"time"
)

// Clock is a settable time source for TTL tests: pass its Now as the
// cache's clock and Advance it instead of sleeping.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts at a fixed instant, so that ages in failures read the
// same on every run.
func NewClock() *Clock { return &Clock{now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)} }

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
