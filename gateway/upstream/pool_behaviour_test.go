package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

func standIn(t testing.TB) *nsiptest.Server {
	return nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 300})
}

// A miss asks NSIP once and fits the answer once; the next read of the
// key is a hit on the very same answer, and the pool's counters say so.
func TestMissThenHit(t *testing.T) {
	up := standIn(t)
	r := newRig(t, up, 1, Config{})
	id := up.Data().MostProgeny()
	ctx := context.Background()
	a, src, err := r.obtain(ctx, id)
	if err != nil || src != SourceMiss || lpnOf(t, a) != id {
		t.Fatalf("first read: %v from %q, err %v; want %s from a miss", a, src, err, id)
	}
	b, src, err := r.obtain(ctx, id)
	if err != nil || src != SourceHit || b != a {
		t.Fatalf("second read: from %q, same answer %v, err %v; want the cached answer", src, b == a, err)
	}
	p := r.pool
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 || r.fits.Load() != 1 {
		t.Errorf("%d requests and %d fits for two reads; want 1 and 1", got, r.fits.Load())
	}
	if p.Requests() != 1 || p.Tokens() != 1 || p.Answers() != 1 || a.ID != 1 {
		t.Errorf("requests %d, tokens %d, answers %d, answer id %d; want 1 each", p.Requests(), p.Tokens(), p.Answers(), a.ID)
	}
	if p.InFlight() != 0 || p.Queued() != 0 || p.Waiting(methodDetails+":"+id) != 0 || p.Abandoned() != 0 {
		t.Errorf("after the reads: in flight %d, queued %d, waiting %d, abandoned %d; want none", p.InFlight(), p.Queued(), p.Waiting(id), p.Abandoned())
	}
	if ls := time.Unix(0, p.LastSuccess()); time.Since(ls) > time.Minute {
		t.Errorf("last success %v; want just now", ls)
	}
	if st, n := p.Breaker(); st != "closed" || n != 0 || p.BreakerOpen() || p.RetryIn() != 0 {
		t.Errorf("breaker %s with %d failures, open %v, retry in %v; want closed and clean", st, n, p.BreakerOpen(), p.RetryIn())
	}
	// The structured copy of an object answer is its text, kept once.
	if string(a.Structured) != a.Res.Text || a.Res.Text != string(a.Raw) || a.Note() != "" {
		t.Errorf("structured copy %.80q, text %.80q, note %q; want the text itself and no note", a.Structured, a.Res.Text, a.Note())
	}
	// Without Redis the shared tier is absent and says nothing.
	if s := p.Shared(); s.Redis() != nil || s.Health() != nil || s.Readiness(ctx) != nil || s.RetryIn() != 0 {
		t.Errorf("shared tier without Redis: %v %v %v", s.Redis(), s.Health(), s.Readiness(ctx))
	}
	if ps, burst := p.LocalLimit(); ps != 1000 || burst != 1000 {
		t.Errorf("local limit %g/%d; want the configured 1000/1000", ps, burst)
	}
}

// blocked is a lookup whose fetch waits for release, whatever its
// deadline, and counts the requests it stands for.
type blocked struct {
	release chan struct{}
	sent    atomic.Int64
}

func (b *blocked) request(key, who string) Request {
	return Request{
		Method: methodDetails, Key: key, Caller: who,
		Bind: func() (Fetch, error) {
			return func(context.Context) (any, json.RawMessage, error) {
				b.sent.Add(1)
				<-b.release
				raw := json.RawMessage(`{"lpnId":"` + key + `"}`)
				return &nsip.AnimalDetails{LPNID: key, Raw: raw}, raw, nil
			}, nil
		},
		Prepare: func(_ context.Context, a *Answer) error {
			a.Res = summarize.Result{Text: string(a.Raw), Tokens: 3, OriginalTokens: 3}
			return nil
		},
	}
}

// Callers reading one key while its fetch is under way share that fetch:
// eight callers, one request, one answer.
func TestIdenticalMissesShareOneFetch(t *testing.T) {
	r := newRig(t, standIn(t), 1, Config{})
	p := r.pool
	b := &blocked{release: make(chan struct{})}
	const n = 8
	got := make(chan *Answer, n)
	for range n {
		go func() {
			a, src, err := p.Obtain(context.Background(), "k", func() Request { return b.request("k", "c") })
			if err != nil || src != SourceMiss {
				t.Errorf("caller: from %q, %v; want the shared miss", src, err)
			}
			got <- a
		}()
	}
	waitFor(t, "eight callers on the fetch", func() bool { return p.Waiting("k") == n })
	close(b.release)
	first := <-got
	for range n - 1 {
		if a := <-got; a != first {
			t.Errorf("callers got different answers (%d and %d)", a.ID, first.ID)
		}
	}
	if b.sent.Load() != 1 || p.Requests() != 1 || p.Answers() != 1 {
		t.Errorf("%d fetches, %d requests, %d answers for eight callers; want 1 each", b.sent.Load(), p.Requests(), p.Answers())
	}
}

// gated is a lookup whose every request tells arrived its key and then
// waits for one value on proceed, whatever its deadline.
type gated struct {
	arrived chan string
	proceed chan struct{}
}

func newGated() *gated {
	return &gated{arrived: make(chan string, 100), proceed: make(chan struct{})}
}

func (g *gated) request(key, who string) Request {
	b := &blocked{release: g.proceed}
	r := b.request(key, who)
	bind := r.Bind
	r.Bind = func() (Fetch, error) {
		f, err := bind()
		return func(ctx context.Context) (any, json.RawMessage, error) {
			g.arrived <- key
			return f(ctx)
		}, err
	}
	return r
}

// A fetch queued for a connection that every caller leaves (two callers
// sharing it) is dropped without asking NSIP; the fetch already sent is
// not affected, and the key asked again is fetched afresh.
func TestQueuedFetchNobodyAwaitsIsDropped(t *testing.T) {
	r := newRig(t, standIn(t), 1, Config{MaxConcurrent: 1, CallTimeout: time.Minute})
	p := r.pool
	g := newGated()
	obtain := func(ctx context.Context, key, who string) error {
		_, _, err := p.Obtain(ctx, key, func() Request { return g.request(key, who) })
		return err
	}
	held := make(chan error, 1)
	go func() { held <- obtain(context.Background(), "held", "a") }()
	if got := <-g.arrived; got != "held" {
		t.Fatalf("NSIP saw %s first", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 2)
	for _, who := range []string{"b", "c"} {
		go func() { gone <- obtain(ctx, "queued", who) }()
	}
	waitFor(t, "both callers on the queued fetch", func() bool { return p.Waiting("queued") == 2 && p.Queued() == 1 })
	cancel()
	for range 2 {
		if err := <-gone; !errors.Is(err, context.Canceled) {
			t.Errorf("a caller who left got %v; want context.Canceled", err)
		}
	}
	waitFor(t, "the fetch to leave the queue", func() bool { return p.Queued() == 0 })
	if p.Abandoned() != 1 {
		t.Errorf("%d fetches abandoned; want 1", p.Abandoned())
	}
	g.proceed <- struct{}{}
	if err := <-held; err != nil {
		t.Errorf("the fetch already sent: %v", err)
	}
	select {
	case key := <-g.arrived:
		t.Errorf("the abandoned fetch of %s reached NSIP", key)
	default:
	}
	go func() { g.proceed <- struct{}{} }()
	if err := obtain(context.Background(), "queued", "b"); err != nil {
		t.Errorf("asked again: %v", err)
	}
	if got := <-g.arrived; got != "queued" {
		t.Errorf("asked again, NSIP saw %s", got)
	}
}

// With three connections, ten different fetches from two callers put
// exactly three requests at NSIP at once, and each request that finishes
// lets exactly one more in.
func TestRequestsAtOnceAreBoundedByTurns(t *testing.T) {
	const conns, n = 3, 10
	r := newRig(t, standIn(t), 1, Config{MaxConcurrent: conns, CallTimeout: time.Minute})
	p := r.pool
	g := newGated()
	errs := make(chan error, n)
	for i := range n {
		key, who := fmt.Sprint("k", i), fmt.Sprint("c", i%2)
		go func() {
			_, _, err := p.Obtain(context.Background(), key, func() Request { return g.request(key, who) })
			errs <- err
		}()
	}
	for range conns {
		<-g.arrived
	}
	waitFor(t, "the rest to queue", func() bool { return p.Queued() == n-conns })
	for i := conns; i < n; i++ {
		if got := p.InFlight(); got != conns {
			t.Fatalf("%d requests in flight; want %d", got, conns)
		}
		select {
		case key := <-g.arrived:
			t.Fatalf("%s reached NSIP while %d requests were in flight", key, conns)
		default:
		}
		g.proceed <- struct{}{}
		<-g.arrived
	}
	for range conns {
		g.proceed <- struct{}{}
	}
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("a fetch failed: %v", err)
		}
	}
	if p.Requests() != n || p.InFlight() != 0 {
		t.Errorf("%d requests, %d in flight at the end; want %d and 0", p.Requests(), p.InFlight(), n)
	}
}

// A fetch that waits for a connection past its deadline is refused as
// busy, with the number of connections, and NSIP is not asked.
func TestBusyConnectionsRefuseAtTheDeadline(t *testing.T) {
	r := newRig(t, standIn(t), 1, Config{MaxConcurrent: 1, CallTimeout: 300 * time.Millisecond})
	p := r.pool
	hold := &blocked{release: make(chan struct{})}
	held := make(chan error, 1)
	go func() {
		_, _, err := p.Obtain(context.Background(), "held", func() Request { return hold.request("held", "a") })
		held <- err
	}()
	waitFor(t, "the one connection to be taken", func() bool { return hold.sent.Load() == 1 })
	other := &blocked{release: make(chan struct{})}
	close(other.release)
	_, _, err := p.Obtain(context.Background(), "late", func() Request { return other.request("late", "b") })
	var rl *RateLimited
	if !errors.As(err, &rl) || rl.RetryAfter != time.Second || rl.Error() != "rate limited: all 1 NSIP connections busy; clients are served in turn" {
		t.Errorf("queued past the deadline: %v; want rate_limited naming the one busy connection", err)
	}
	if other.sent.Load() != 0 {
		t.Errorf("the refused fetch asked NSIP %d times", other.sent.Load())
	}
	close(hold.release)
	<-held
}

// NSIP failing opens the breaker after BreakerFailures failures, each
// logged with the count; then the pool refuses without asking NSIP.
// Answers about the request (404) count for nothing.
func TestBreakerOpensOnNSIPFailures(t *testing.T) {
	up := standIn(t)
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	r := newRig(t, up, 1, Config{BreakerFailures: 2, BreakerCooldown: time.Minute})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	for i := range 2 {
		var ne *nsip.Error
		if _, _, err := r.obtain(ctx, ids[i]); !errors.As(err, &ne) || ne.Status != 503 {
			t.Fatalf("read %d through a 503: %v; want NSIP's 503", i, err)
		}
	}
	if _, _, err := r.obtain(ctx, ids[2]); !errors.Is(err, ErrBreakerOpen) {
		t.Fatalf("third read: %v; want the open breaker", err)
	}
	p := r.pool
	if got := up.Requests(nsiptest.EndpointDetails); got != 2 {
		t.Errorf("NSIP was asked %d times; want 2, none once the breaker opened", got)
	}
	if st, _ := p.Breaker(); st != "open" || !p.BreakerOpen() || p.RetryIn() <= 50*time.Second || p.RetryIn() > time.Minute {
		t.Errorf("breaker %s, open %v, retry in %v; want open for about a minute", st, p.BreakerOpen(), p.RetryIn())
	}
	counted := r.logs.Messages(t, "nsip failure counted by the circuit breaker")
	if len(counted) != 2 || counted[0]["consecutive_failures"] != 1.0 || counted[1]["consecutive_failures"] != 2.0 || counted[1]["opens_at"] != 2.0 {
		t.Errorf("counted failures logged: %v; want 1 of 2 then 2 of 2", counted)
	}
	if ch := r.logs.Messages(t, "nsip circuit breaker"); len(ch) != 1 || ch[0]["from"] != "closed" || ch[0]["to"] != "open" {
		t.Errorf("breaker changes logged: %v; want closed to open", ch)
	}

	up2 := standIn(t)
	r2 := newRig(t, up2, 1, Config{BreakerFailures: 1})
	for range 3 {
		if _, _, err := r2.obtain(ctx, "6402382024XXX999"); !errors.Is(err, nsip.ErrNotFound) {
			t.Fatalf("unknown animal: %v; want not found", err)
		}
	}
	if st, _ := r2.pool.Breaker(); st != "closed" || up2.Requests(nsiptest.EndpointDetails) != 3 {
		t.Errorf("after three 404s the breaker is %s and NSIP saw %d requests; want closed and 3", st, up2.Requests(nsiptest.EndpointDetails))
	}
}

// Each retry the client makes is a request like the first: it takes a
// rate-limit token and a breaker admission, and once the breaker opens
// no further retry goes out.
func TestRetriesTakeTokensAndAdmissions(t *testing.T) {
	up := standIn(t)
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 2})
	r := newRig(t, up, 3, Config{BreakerFailures: 5})
	id := up.Data().MostProgeny()
	a, _, err := r.obtain(context.Background(), id)
	if err != nil || lpnOf(t, a) != id {
		t.Fatalf("read through two 503s: %v", err)
	}
	if p := r.pool; p.Requests() != 3 || p.Tokens() != 3 || up.Requests(nsiptest.EndpointDetails) != 3 {
		t.Errorf("requests %d, tokens %d, at NSIP %d; want 3 each", p.Requests(), p.Tokens(), up.Requests(nsiptest.EndpointDetails))
	}
	if n := len(r.logs.Messages(t, "nsip failure counted by the circuit breaker")); n != 2 {
		t.Errorf("%d failures counted; want the two 503s", n)
	}

	// NSIP failing every request, three attempts per read and five
	// failures to open: the breaker opens during the second read, after
	// exactly five requests, and the third read fails fast.
	up2 := standIn(t)
	up2.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	r2 := newRig(t, up2, 3, Config{BreakerFailures: 5})
	ids := up2.Data().AnimalIDs()
	for i := range 2 {
		if _, _, err := r2.obtain(context.Background(), ids[i]); err == nil {
			t.Fatalf("read %d through endless 503s succeeded", i)
		}
	}
	if got := up2.Requests(nsiptest.EndpointDetails); got != 5 || !r2.pool.BreakerOpen() || r2.pool.Tokens() != 5 {
		t.Errorf("NSIP saw %d requests for %d tokens, breaker open %v; want 5, 5 and open", got, r2.pool.Tokens(), r2.pool.BreakerOpen())
	}
	if _, _, err := r2.obtain(context.Background(), ids[2]); !errors.Is(err, ErrBreakerOpen) || up2.Requests(nsiptest.EndpointDetails) != 5 {
		t.Errorf("third read: %v after %d requests; want the open breaker and no new request", err, up2.Requests(nsiptest.EndpointDetails))
	}
}

// A request that would wait for a rate-limit token past its deadline is
// refused at once with how long to wait, and NSIP is not asked. The second
// read's token is 100 s off, past its minute's deadline; the minute is for
// the first read, which a loaded machine can take seconds over.
func TestRateLimitRefusesAWaitPastTheDeadline(t *testing.T) {
	up := standIn(t)
	r := newRig(t, up, 1, Config{RateLimit: 0.01, RateBurst: 1, CallTimeout: time.Minute})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	start := time.Now()
	if _, _, err := r.obtain(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	_, _, err := r.obtain(ctx, ids[1])
	took := time.Since(start)
	// The wait is what is left of the 100 s the first token costs: at
	// least 100 s less the time both reads took, however long that was.
	var rl *RateLimited
	if !errors.As(err, &rl) || rl.RetryAfter < 100*time.Second-took-time.Millisecond || rl.Reason != "limit of 0.01 requests per second" {
		t.Fatalf("second read after %v: %v; want rate_limited for about 100 s", took, err)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 {
		t.Errorf("NSIP saw %d requests; want 1", got)
	}
	if ps, burst := r.pool.LocalLimit(); ps != 0.01 || burst != 1 {
		t.Errorf("local limit %g/%d; want 0.01/1", ps, burst)
	}
	if n := r.pool.TokensAt(time.Now()); n >= 1 {
		t.Errorf("%g tokens left now; want less than one", n)
	}
}

// A 429 pauses its endpoint for the Retry-After, capped at
// MaxUpstreamPause and logged when capped; other endpoints carry on.
func TestRetryAfterPausesItsEndpointCapped(t *testing.T) {
	up := standIn(t)
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: time.Hour, Times: 1})
	r := newRig(t, up, 1, Config{MaxUpstreamPause: 40 * time.Second})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	var ne *nsip.Error
	if _, _, err := r.obtain(ctx, ids[0]); !errors.As(err, &ne) || ne.Kind != nsip.KindRateLimited || ne.RetryAfter != 40*time.Second {
		t.Fatalf("read through a 429 asking an hour: %v; want NSIP's 429 capped to 40 s", err)
	}
	var rl *RateLimited
	if _, _, err := r.obtain(ctx, ids[1]); !errors.As(err, &rl) || rl.Reason != "NSIP asked us to wait" || rl.RetryAfter <= 30*time.Second || rl.RetryAfter > 40*time.Second {
		t.Fatalf("read during the pause: %v; want rate_limited for what is left of 40 s", err)
	}
	if got := up.Requests(nsiptest.EndpointDetails); got != 1 {
		t.Errorf("NSIP saw %d details requests; want 1", got)
	}
	ps := r.pool.Pauses(time.Now())
	if len(ps) != 1 || ps[0].Method != methodDetails || ps[0].AskedSeconds != 3600 || !ps[0].Capped || ps[0].RetryInSeconds < 30 || ps[0].RetryInSeconds > 40 {
		t.Errorf("pauses %+v; want details, asked 3600 s, capped, 30..40 s left", ps)
	}
	if w := r.logs.Messages(t, "nsip asked for a pause longer than the limit; pausing for the limit"); len(w) != 1 || w[0]["method"] != methodDetails {
		t.Errorf("cap warnings %v; want one naming the method", w)
	}
	if st, _ := r.pool.Breaker(); st != "closed" {
		t.Errorf("a 429 moved the breaker to %s", st)
	}
	lr := r.request(methodLineage, ids[1], "c")
	if _, src, err := r.pool.Obtain(ctx, lr.Key, func() Request { return lr }); err != nil || src != SourceMiss {
		t.Errorf("lineage during the details pause: %q, %v; want it fetched", src, err)
	}
}

// An answer in a shape the client cannot read is passed on as NSIP sent
// it, noted once per endpoint and shape (one warning), and counted.
func TestUnrecognizedAnswerIsPassedOnAndNoted(t *testing.T) {
	up := standIn(t)
	up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultWrongShape, Times: 2})
	r := newRig(t, up, 1, Config{})
	ids := up.Data().AnimalIDs()
	ctx := context.Background()
	var first *Answer
	for i := range 2 {
		a, src, err := r.obtain(ctx, ids[i])
		if err != nil || src != SourceMiss || a.Drift == nil || a.Value != nil || !json.Valid(a.Raw) {
			t.Fatalf("read %d of a wrong shape: %v, %v; want NSIP's JSON passed on with its drift", i, a, err)
		}
		first = a
	}
	if note := first.Note(); note != FormatNote(first.Drift) || !strings.HasPrefix(note, "NSIP's answer format changed: ") {
		t.Errorf("note %q", note)
	}
	snap := r.pool.Drift().Snapshot()
	if len(snap) != 1 || snap[0].Count != 2 || snap[0].Signature == "" || snap[0].Endpoint != nsip.EndpointName(first.Drift.Endpoint) {
		t.Errorf("drift record %+v; want one shape seen twice at the details endpoint", snap)
	}
	if w := r.logs.Messages(t, "NSIP answered in a shape this server does not recognize; passing it on as sent"); len(w) != 1 {
		t.Errorf("%d drift warnings; want 1 for one endpoint and shape", len(w))
	}
}

// Pauses keep the longest one asked, report it, and never shorten.
func TestPausesKeepTheLongest(t *testing.T) {
	var p Pauses
	now := time.Now()
	if got := p.Set("m", 10*time.Second, time.Minute, now); got != 10*time.Second {
		t.Errorf("Set 10 s = %v", got)
	}
	// A shorter Retry-After is at least a second, and the longer pause
	// already running stays.
	if got := p.Set("m", 200*time.Millisecond, time.Minute, now); got != time.Second || p.Left("m", now) != 10*time.Second {
		t.Errorf("a shorter pause during a longer one = %v, %v left; want 1 s and the 10 s kept", got, p.Left("m", now))
	}
	p.Hold("m", now.Add(5*time.Second), time.Hour)
	if left := p.Left("m", now); left != 10*time.Second {
		t.Errorf("after holding a shorter pause: %v left; want 10 s", left)
	}
	p.Hold("n", now.Add(90*time.Second), 2*time.Minute)
	h := p.Health(time.Minute, now)
	if len(h) != 2 || h[0] != (PauseHealth{Method: "m", RetryInSeconds: 10, AskedSeconds: 10}) ||
		h[1] != (PauseHealth{Method: "n", RetryInSeconds: 90, AskedSeconds: 120, Capped: true}) {
		t.Errorf("health %+v", h)
	}
	if p.Left("m", now.Add(11*time.Second)) != 0 || Seconds(1) != 1 || Seconds(1500*time.Millisecond) != 2 {
		t.Error("a pause outlived its time, or Seconds does not round up")
	}
}

// A request within its deadline waits for its rate-limit token rather
// than being refused.
func TestRateLimitWaitsWithinTheDeadline(t *testing.T) {
	up := standIn(t)
	r := newRig(t, up, 1, Config{RateLimit: 20, RateBurst: 1, CallTimeout: 10 * time.Second})
	ids := up.Data().AnimalIDs()
	for i := range 3 {
		if _, _, err := r.obtain(context.Background(), ids[i]); err != nil {
			t.Fatalf("request %d at 20 a second: %v", i, err)
		}
	}
	if r.pool.Tokens() != 3 || up.Requests(nsiptest.EndpointDetails) != 3 {
		t.Errorf("%d tokens, %d requests; want 3 each", r.pool.Tokens(), up.Requests(nsiptest.EndpointDetails))
	}
}
