package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	ten := make([]time.Duration, 10)
	for i := range ten {
		ten[i] = time.Duration(i+1) * time.Millisecond // 1..10 ms
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample is every percentile", []time.Duration{7}, 99, 7},
		{"median of ten is the fifth", ten, 50, 5 * time.Millisecond},
		{"p90 of ten is the ninth", ten, 90, 9 * time.Millisecond},
		{"p91 of ten rounds up to the tenth", ten, 91, 10 * time.Millisecond},
		{"p100 is the maximum", ten, 100, 10 * time.Millisecond},
		{"a tiny p is the minimum", ten, 0.1, time.Millisecond},
		{"p0 is clamped to the minimum", ten, 0, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v, %g) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestLatencyOfSortsAndReadsPercentiles(t *testing.T) {
	// 1..1000 µs in shuffled order.
	ds := make([]time.Duration, 1000)
	for i := range ds {
		ds[i] = time.Duration(i+1) * time.Microsecond
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	got := latencyOf(ds)
	// The mean of 1..1000 µs is 500.5 µs, which rounds to 501 µs.
	want := Latency{N: 1000, P50: 0.5, P95: 0.95, P99: 0.99, Max: 1, Mean: 0.501}
	if got != want {
		t.Errorf("latencyOf = %+v, want %+v", got, want)
	}
	if (latencyOf(nil) != Latency{}) {
		t.Errorf("latencyOf(nil) = %+v, want the zero Latency", latencyOf(nil))
	}
}

func TestHistogramBucketsBracketTheirSamples(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		d := time.Duration(r.Int64N(int64(10 * time.Second)))
		b := bucketOf(d)
		if top := bucketTop(b); top < max(d, 1) {
			t.Fatalf("bucketTop(bucketOf(%v)=%d) = %v, below the sample", d, b, top)
		}
		if b > 0 && bucketTop(b-1) >= max(d, 1) {
			t.Fatalf("%v fits bucket %d (top %v) but went to %d", d, b-1, bucketTop(b-1), b)
		}
	}
}

func TestHistogramPercentileWithinAQuarterOctave(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var h histogram
	var ds []time.Duration
	for range 5000 {
		d := time.Duration(r.ExpFloat64() * float64(3*time.Millisecond))
		ds = append(ds, d)
		h.add(d)
	}
	counts := h.drain()
	slices.Sort(ds)
	for _, p := range []float64{50, 95, 99} {
		exact := percentile(ds, p)
		got := histPercentile(counts, p)
		if got < exact || float64(got) > 1.25*float64(exact)+1 {
			t.Errorf("p%g: histogram says %v, exact %v; want within [exact, 1.25*exact]", p, got, exact)
		}
	}
	if after := h.drain(); histPercentile(after, 50) != 0 {
		t.Errorf("drain left samples behind: p50 %v", histPercentile(after, 50))
	}
}
