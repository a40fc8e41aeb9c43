package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// dates is a stand-in for NSIP's last-update endpoint: each request,
// counted, answers the date set when it was sent; the first ones may be
// held until released.
type dates struct {
	date  atomic.Value // string
	sent  atomic.Int64
	held  int64         // how many of the first requests wait for hold
	hold  chan struct{} // a held request waits for one value here
	began chan struct{} // when set, told of each held request as it is sent
}

func newDates(date string) *dates {
	d := &dates{}
	d.date.Store(date)
	return d
}

// request is the lookup of the date, cached under key.
func (d *dates) request(key string) Request {
	return Request{
		Method: "getDateLastUpdated", Key: key, Caller: "c",
		Bind: func() (Fetch, error) {
			return func(ctx context.Context) (any, json.RawMessage, error) {
				n := d.sent.Add(1)
				date := d.date.Load().(string) // NSIP's date when the request went out
				if n <= d.held {
					d.began <- struct{}{}
					select {
					case <-d.hold:
					case <-ctx.Done():
						return nil, nil, ctx.Err()
					}
				}
				raw := json.RawMessage(fmt.Sprintf(`{"date":%q}`, date))
				return &nsip.LastUpdate{Date: date, Raw: raw}, raw, nil
			}, nil
		},
		Prepare: func(_ context.Context, a *Answer) error {
			a.Res = summarize.Result{Text: string(a.Raw), Tokens: 5, OriginalTokens: 5}
			return nil
		},
	}
}

func dateOf(a *Answer) string { return a.Value.(*nsip.LastUpdate).Date }

// A fresh read asks NSIP although the cache holds the answer, takes a
// rate-limit token for it like any request, and leaves its answer in the
// cache for the ordinary reads after it.
func TestFreshAsksDespiteTheCache(t *testing.T) {
	p := testPool(Config{CallTimeout: time.Minute, BreakerFailures: 5})
	d := newDates("08/21/2025")
	const key = "getDateLastUpdated:{}"
	ctx := context.Background()
	if _, _, err := p.Obtain(ctx, key, func() Request { return d.request(key) }); err != nil {
		t.Fatal(err)
	}
	d.date.Store("12/01/2025")
	if a, src, _ := p.Obtain(ctx, key, func() Request { return d.request(key) }); src != SourceHit || dateOf(a) != "08/21/2025" {
		t.Fatalf("ordinary read: %s from %s, want the cached 08/21/2025", dateOf(a), src)
	}
	sent, tokens := d.sent.Load(), p.Tokens()

	a, _, err := p.Fresh(ctx, d.request(key), 0)
	if err != nil {
		t.Fatal(err)
	}
	if dateOf(a) != "12/01/2025" || d.sent.Load() != sent+1 {
		t.Errorf("fresh read: %s after %d requests, want 12/01/2025 from one request", dateOf(a), d.sent.Load()-sent)
	}
	if got := p.Tokens() - tokens; got != 1 {
		t.Errorf("fresh read took %d rate-limit tokens, want 1", got)
	}
	if a, src, _ := p.Obtain(ctx, key, func() Request { return d.request(key) }); src != SourceHit || dateOf(a) != "12/01/2025" {
		t.Errorf("ordinary read after the fresh one: %s from %s, want 12/01/2025 from the cache", dateOf(a), src)
	}
	if d.sent.Load() != sent+1 {
		t.Errorf("%d requests in all after the fresh read, want 1", d.sent.Load()-sent)
	}
}

// A fresh read is refused, not queued, when the rate limit has no token
// for it within its deadline: it is bounded like any request.
func TestFreshKeepsToTheRateLimit(t *testing.T) {
	p := testPool(Config{CallTimeout: time.Second, BreakerFailures: 5, RateLimit: 0.001, RateBurst: 1})
	p.limiter.SetBurst(1)
	p.limiter.SetLimit(0.001) // testPool raises both to its minimum
	d := newDates("08/21/2025")
	const key = "getDateLastUpdated:{}"
	if _, _, err := p.Fresh(context.Background(), d.request(key), 0); err != nil {
		t.Fatal(err)
	}
	_, _, err := p.Fresh(context.Background(), d.request(key), 0)
	var rl *RateLimited
	if !errors.As(err, &rl) {
		t.Fatalf("second fresh read with no token left: %v, want RateLimited", err)
	}
	if n := d.sent.Load(); n != 1 {
		t.Errorf("%d requests sent, want 1", n)
	}
}

// A fresh read does not join an ordinary fetch of its key already under
// way, nor a fresh read whose request went out before it began: either
// may answer from before what it must see.
func TestFreshJoinsNoEarlierRequest(t *testing.T) {
	p := testPool(Config{CallTimeout: time.Minute, BreakerFailures: 5})
	d := newDates("08/21/2025")
	d.held, d.hold, d.began = 2, make(chan struct{}), make(chan struct{})
	const key = "getDateLastUpdated:{}"
	ctx := context.Background()

	// An ordinary fetch, sent and held.
	ordinary := make(chan *Answer, 1)
	go func() {
		a, _, _ := p.Obtain(ctx, key, func() Request { return d.request(key) })
		ordinary <- a
	}()
	<-d.began
	d.date.Store("12/01/2025")
	fresh := make(chan *Answer, 2)
	go func() {
		a, _, _ := p.Fresh(ctx, d.request(key), 0)
		fresh <- a
	}()
	<-d.began // the fresh read sent a request of its own
	// A second fresh read joins the first, whose request went out before
	// it began; once the first is answered it must ask again.
	go func() {
		a, _, _ := p.Fresh(ctx, d.request(key), 0)
		fresh <- a
	}()
	for p.Waiting(freshFlight+key) != 2 {
		time.Sleep(time.Millisecond)
	}
	d.date.Store("12/02/2025")
	d.hold <- struct{}{} // the ordinary fetch
	d.hold <- struct{}{} // the first fresh read
	if a := <-ordinary; dateOf(a) != "08/21/2025" {
		t.Errorf("ordinary fetch answered %s", dateOf(a))
	}
	got := map[string]bool{dateOf(<-fresh): true, dateOf(<-fresh): true}
	if !got["12/01/2025"] || !got["12/02/2025"] {
		t.Errorf("fresh reads answered %v, want 12/01/2025 and, from a request of the second's own, 12/02/2025", got)
	}
	if n := d.sent.Load(); n != 3 {
		t.Errorf("%d requests sent, want 3: the ordinary fetch and one per fresh read", n)
	}
}

// Within a window of a fresh read's request its answer is the answer of
// the fresh reads after it, with no request and reported as a hit; once
// the window has passed, a fresh read asks NSIP again and sees its new
// date. A window of 0 asks on every fresh read.
func TestFreshWithinTheWindowSendsNothing(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	const key = "getDateLastUpdated:{}"
	ctx := context.Background()

	p := testPool(Config{CallTimeout: time.Minute, BreakerFailures: 5})
	p.cfg.Now = clock
	d := newDates("08/21/2025")
	read := func(want, wantSource string, wantSent int64) {
		t.Helper()
		a, src, err := p.Fresh(ctx, d.request(key), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if dateOf(a) != want || src != wantSource || d.sent.Load() != wantSent {
			t.Fatalf("fresh read: %s from %s after %d requests; want %s from %s after %d",
				dateOf(a), src, d.sent.Load(), want, wantSource, wantSent)
		}
	}
	read("08/21/2025", SourceMiss, 1)
	d.date.Store("12/01/2025") // NSIP publishes a new evaluation
	now.Add(int64(59 * time.Second))
	read("08/21/2025", SourceHit, 1) // within the window: the earlier answer
	now.Add(int64(time.Second))
	read("12/01/2025", SourceMiss, 2) // the window has passed: NSIP asked again
	now.Add(-int64(time.Hour))
	read("12/01/2025", SourceMiss, 3) // a clock set back trusts nothing kept

	every := testPool(Config{CallTimeout: time.Minute, BreakerFailures: 5})
	every.cfg.Now = clock
	_, _, _ = every.Fresh(ctx, newDates("08/21/2025").request(key), 0) // kept, but a window of 0 takes nothing kept
	e := newDates("08/21/2025")
	for i := range 3 {
		if _, src, err := every.Fresh(ctx, e.request(key), 0); err != nil || src != SourceMiss {
			t.Fatalf("window 0, read %d: source %s, %v; want a request each", i+1, src, err)
		}
	}
	if e.sent.Load() != 3 {
		t.Fatalf("window 0: %d requests for 3 fresh reads, want 3", e.sent.Load())
	}
}
