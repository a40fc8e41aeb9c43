package main

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"
)

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of sorted:
// the smallest sample with at least p% of the samples at or below it. It is
// 0 for no samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// Latency summarises a set of call latencies, in milliseconds.
type Latency struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

// latencyOf sorts ds in place and reads the percentiles off it.
func latencyOf(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latency{
		N:    len(ds),
		P50:  ms(percentile(ds, 50)),
		P95:  ms(percentile(ds, 95)),
		P99:  ms(percentile(ds, 99)),
		Max:  ms(ds[len(ds)-1]),
		Mean: ms(sum / time.Duration(len(ds))),
	}
}

// ms is d in milliseconds, rounded to microseconds.
func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// sample is one finished call as a session records it.
type sample struct {
	lat   time.Duration
	tool  uint8
	cache uint8 // cacheUnknown, cacheHit, ...
	err   bool
}

// Where an answer came from, as _meta.cache reports it.
const (
	cacheUnknown uint8 = iota
	cacheHit
	cacheMiss
	cacheStale
	cacheShared // another replica's answer, found in Redis
)

var cacheNames = []string{"unknown", "hit", "miss", "stale", "shared"}

func cacheCode(s string) uint8 {
	for i, n := range cacheNames {
		if n == s {
			return uint8(i)
		}
	}
	return cacheUnknown
}

// histogram counts latencies in buckets a quarter of a power of two wide,
// lock-free, so that the progress line can show percentiles of the last
// interval without touching the sessions' own records.
type histogram struct {
	buckets [histBuckets]atomic.Uint64
}

const histBuckets = 4 * 40 // up to 2^40 ns, about 18 minutes

// bucketOf maps a latency to its bucket: 4*log2(ns), rounded down, with the
// quarter steps read from the two bits below the leading one.
func bucketOf(d time.Duration) int {
	ns := uint64(max(d, 1))
	lead := bits.Len64(ns) - 1
	frac := 0
	if lead >= 2 {
		frac = int(ns>>(lead-2)) & 3
	}
	return min(4*lead+frac, histBuckets-1)
}

// bucketTop is the largest latency bucket b holds.
func bucketTop(b int) time.Duration {
	lead, frac := b/4, b%4
	if lead < 2 {
		return time.Duration(1<<lead + 1<<lead - 1)
	}
	base := uint64(1) << lead
	step := base >> 2
	return time.Duration(base + uint64(frac+1)*step - 1)
}

func (h *histogram) add(d time.Duration) { h.buckets[bucketOf(d)].Add(1) }

// drain empties the histogram and returns what it held.
func (h *histogram) drain() [histBuckets]uint64 {
	var out [histBuckets]uint64
	for i := range h.buckets {
		out[i] = h.buckets[i].Swap(0)
	}
	return out
}

// histPercentile is the upper edge of the bucket holding the p-th
// percentile of counts, an overestimate by at most a quarter octave.
func histPercentile(counts [histBuckets]uint64, p float64) time.Duration {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p / 100 * float64(total)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			return bucketTop(i)
		}
	}
	return bucketTop(histBuckets - 1)
}
