package gateway

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// BenchmarkFloodBesideHonestSessions measures what one session firing 200
// unique calls at once, again and again, does to four sessions making one
// call at a time: their latency and errors, with the default limits
// (5 requests/s, burst 10, 4 connections, 30 s deadline) against a
// stand-in that takes 50 ms per answer. Each iteration floods for 10 s, or
// NSIP_FLOOD; the figures in specs/benchmarks.md are from 60 s:
//
//	NSIP_FLOOD=60s go test -run '^$' -bench FloodBesideHonestSessions -benchtime 1x -timeout 10m ./gateway/
func BenchmarkFloodBesideHonestSessions(b *testing.B) {
	d := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("NSIP_FLOOD")); err == nil && v > 0 {
		d = v
	}
	for b.Loop() {
		flood(b, d)
	}
}

func flood(b *testing.B, d time.Duration) {
	e := newEnv(b, withConfig(func(c *Config) {
		def := DefaultConfig()
		c.RateLimit, c.RateBurst = def.RateLimit, def.RateBurst
	}))
	e.up.SetLatency("", 50*time.Millisecond)
	ids := e.up.Data().AnimalIDs()
	var next atomic.Int64 // every call asks for an animal not asked before
	id := func() string { return ids[int(next.Add(1))%len(ids)] }
	stop := time.Now().Add(d)

	type tally struct {
		mu     sync.Mutex
		lat    []time.Duration
		errors map[string]int
	}
	record := func(tl *tally, start time.Time, res *mcp.CallToolResult) {
		tl.mu.Lock()
		defer tl.mu.Unlock()
		if res.IsError {
			tc, _ := mcp.AsTextContent(res.Content[0])
			tl.errors[errorCodeOf(tc.Text)]++
			return
		}
		tl.lat = append(tl.lat, time.Since(start))
	}
	flood, honest := &tally{errors: map[string]int{}}, &tally{errors: map[string]int{}}
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				start := time.Now()
				record(flood, start, callAs(context.Background(), e, "flood", toolOf(lookup.Animal), map[string]any{"search_string": id()}))
			}
		}()
	}
	for s := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				start := time.Now()
				record(honest, start, callAs(context.Background(), e, "honest"+strconv.Itoa(s), toolOf(lookup.Lineage), map[string]any{"lpn_id": id()}))
				time.Sleep(200 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	for _, x := range []struct {
		name string
		tl   *tally
	}{{"flood", flood}, {"honest", honest}} {
		slices.Sort(x.tl.lat)
		q := func(p float64) time.Duration {
			if len(x.tl.lat) == 0 {
				return 0
			}
			return x.tl.lat[min(len(x.tl.lat)-1, int(p*float64(len(x.tl.lat))))].Round(time.Millisecond)
		}
		b.Logf("%s: %d ok, p50 %v, p99 %v, max %v, errors %v", x.name, len(x.tl.lat), q(0.5), q(0.99), q(1), x.tl.errors)
		if x.name == "honest" {
			errs := 0
			for _, n := range x.tl.errors {
				errs += n
			}
			b.ReportMetric(float64(q(0.99).Milliseconds()), "honest-p99-ms")
			b.ReportMetric(float64(errs), "honest-errors")
			b.ReportMetric(float64(len(x.tl.lat)), "honest-ok")
		}
	}
	h := e.gw.Health()
	b.Logf("breaker %s (%d consecutive failures), upstream requests %d, details %d, lineage %d", h.Breaker.State,
		h.Breaker.ConsecutiveFailures, h.UpstreamRequests, e.up.Requests(nsiptest.EndpointDetails), e.up.Requests(nsiptest.EndpointLineage))
}

// errorCodeOf reads the code of an error result's body.
func errorCodeOf(text string) string {
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(text), &body)
	return body.Error.Code
}
