package gateway

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The clocks of the fault tests: the shapes of the production policy
// (three attempts with backoff, a per-attempt timeout inside a per-call
// deadline, a breaker with a cooldown).
//
// A row that is not about time gets patient bounds, far longer than a
// healthy request takes even on a loaded machine, so that no healthy call
// times out and counts as a failure. A row about time (a hang, a very slow
// answer) waits out its deadline a few times, so faultDeadline is seconds,
// not minutes: as long as the row can afford, and every healthy call of the
// row has all of it.
//
// A breaker that opens in the matrix stays open for openCooldown, far
// longer than the checks of the open breaker take; that it closes again is
// checked on a gateway of its own, which cools down in trialCooldown and
// has nothing to do before the trial but wait for it.
const (
	patientAttempt       = 10 * time.Second
	patientCall          = 30 * time.Second
	faultDeadline        = 2500 * time.Millisecond
	openCooldown         = time.Minute
	trialCooldown        = 300 * time.Millisecond
	faultBreakerFailures = 4 // above one call's three attempts: one faulted call alone leaves the breaker closed
	faultMaxBody         = 1 << 20
	// throttlePause is the Retry-After of the 429 row: NSIP's pause still
	// runs, for minutes, when the checks that rely on it are made. The
	// repeated 429s are asked for with a pause of a second instead, each
	// waited out.
	throttlePause = 2 * time.Minute
)

// faultClocks are the bounds of one fault environment.
type faultClocks struct {
	attempt  time.Duration // one request to NSIP (nsip.WithTimeout)
	call     time.Duration // one fetch, its retries included (Config.CallTimeout)
	cooldown time.Duration // Config.BreakerCooldown
	failures uint32        // Config.BreakerFailures
}

// patient are the clocks of a test that is not about time.
var patient = faultClocks{attempt: patientAttempt, call: patientCall, cooldown: openCooldown, failures: faultBreakerFailures}

// newFaultEnv is newEnv with the real client's retries switched back on and
// the clocks c.
func newFaultEnv(t *testing.T, c faultClocks) *env {
	t.Helper()
	return newEnv(t, func(cfg *Config, o *[]nsip.Option) {
		cfg.CallTimeout = c.call
		cfg.BreakerCooldown = c.cooldown
		cfg.BreakerFailures = c.failures
		*o = append(*o,
			nsip.WithTimeout(c.attempt),
			// Every Retry-After these tests send is longer than the client
			// waits out within a call (MaxRetryAfter): each 429 comes back
			// at once, for the gateway to pause the endpoint.
			nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: 40 * time.Millisecond, MaxRetryAfter: 500 * time.Millisecond}),
			nsip.WithMaxBodyBytes(faultMaxBody),
		)
	})
}

// noLeaks fails the test if any goroutine it started outlives it. Called
// first, before the test starts anything, its check runs after every other
// cleanup. The connections those cleanups close end their goroutines a
// moment later, and a loaded machine can take longer than goleak's own
// half second of retries to run them to their end, so a goroutine counts
// as leaked only if it is still there after leakWait.
func noLeaks(t *testing.T) {
	t.Helper()
	before := goleak.IgnoreCurrent() // the goroutines running now, not at the check
	t.Cleanup(func() {
		deadline := time.Now().Add(leakWait)
		for {
			err := goleak.Find(before)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Error(err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// leakWait is how long the goroutines a test started have to end once it
// is over.
const leakWait = 30 * time.Second

// faultCall is one call into a fault. Its bound is proven by what it
// answers, not by a clock: a call that did not stop at its deadline would
// have waited out the slow answer and succeeded, or hung on the hanging one
// until the test binary's own timeout.
func faultCall(t *testing.T, e *env, tool string, args map[string]any) reply {
	t.Helper()
	return e.call(tool, args)
}

// faultRow is one way NSIP misbehaves and what a caller must see.
type faultRow struct {
	name    string
	fault   nsiptest.Fault
	code    string // error code of a call that meets the fault
	problem string // fragment the problem must contain
	// deadline, for a row about time, is the call's time limit, which the
	// fault outlasts; zero gives the patient clocks.
	deadline time.Duration
	// throttle: the fault is NSIP asking for a pause. It must not open the
	// breaker; instead every upstream request waits out the pause.
	throttle bool
}

// clocks are the row's bounds, with the breaker's cooldown and the
// failures that open it. In a row about time the per-attempt limit is
// longer than the call's, so that it is always the call's deadline that
// ends the stuck request, and the error names it: were it shorter, which
// of the two ended the last attempt would depend on how soon the machine
// got round to the retries. An attempt stuck and retried within the call
// is TestShortFaultsAreAbsorbed's.
func (row faultRow) clocks(cooldown time.Duration, failures uint32) faultClocks {
	c := faultClocks{attempt: patientAttempt, call: patientCall, cooldown: cooldown, failures: failures}
	if row.deadline > 0 {
		c.call = row.deadline
	}
	return c
}

var faultMatrix = []faultRow{
	{name: "500 burst", fault: nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500},
		code: toolerr.CodeUpstreamError, problem: "HTTP 500"},
	{name: "503 HTML page", fault: nsiptest.Fault{Kind: nsiptest.FaultStatusHTML, Status: 503},
		code: toolerr.CodeUpstreamError, problem: "HTTP 503"},
	{name: "200 HTML page", fault: nsiptest.Fault{Kind: nsiptest.FaultHTML200},
		code: toolerr.CodeUnexpectedResponse, problem: "not the expected JSON"},
	{name: "truncated JSON", fault: nsiptest.Fault{Kind: nsiptest.FaultTruncated},
		code: toolerr.CodeUnexpectedResponse, problem: "not the expected JSON"},
	// JSON in a shape the client does not know is not a fault but drift:
	// served as sent (TestDriftIsServedWarnedAndReported).
	{name: "connection reset", fault: nsiptest.Fault{Kind: nsiptest.FaultReset},
		code: toolerr.CodeUpstreamError, problem: "could not connect to NSIP"},
	{name: "hang past the deadline", fault: nsiptest.Fault{Kind: nsiptest.FaultHang}, deadline: faultDeadline,
		code: toolerr.CodeTimeout, problem: "did not answer within " + faultDeadline.String()},
	{name: "429 with Retry-After", fault: nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: throttlePause},
		code: toolerr.CodeRateLimited, problem: fmt.Sprintf("retry after %d s", int(throttlePause/time.Second)), throttle: true},
	// An answer a minute away: the stand-in holds it until the client
	// gives up.
	{name: "very slow", fault: nsiptest.Fault{Latency: time.Minute}, deadline: faultDeadline,
		code: toolerr.CodeTimeout, problem: "did not answer within " + faultDeadline.String()},
	{name: "oversize body", fault: nsiptest.Fault{Kind: nsiptest.FaultOversize, Bytes: 2 * faultMaxBody},
		code: toolerr.CodeUnexpectedResponse, problem: "larger than the 1048576-byte limit"},
}

// TestFaultMatrix drives nsip_get_animal into each upstream fault through
// the whole pipeline and checks what the model and other sessions see:
// a bounded, explicit error result (or the stale answer, marked), other
// endpoints still served, the breaker opening and closing again, and normal
// answers once NSIP is healthy, all without a restart.
func TestFaultMatrix(t *testing.T) {
	for _, row := range faultMatrix {
		t.Run(row.name, func(t *testing.T) { runFaultRow(t, row) })
	}
}

func runFaultRow(t *testing.T, row faultRow) {
	noLeaks(t)
	e := newFaultEnv(t, row.clocks(openCooldown, faultBreakerFailures))
	d := e.up.Data()
	ids := d.AnimalIDs()
	breeds := d.BreedIDs()
	primed := ids[0]
	other := connect(t, e.srv) // a second session, as another assistant would open

	// Answers fetched while NSIP was healthy, now past their TTL.
	fresh := e.call("nsip_get_animal", map[string]any{"search_string": primed}).mustOK(t)
	callTool(t, other, "nsip_get_statuses", nil).mustOK(t)
	e.clock.Advance(2 * time.Hour)
	callTool(t, other, "nsip_get_statuses", nil).mustOK(t) // refetched: fresh again for the other session
	e.up.SetFault(nsiptest.EndpointDetails, row.fault)

	// 1. One call meets the fault while the other session asks for something
	// else; that one is served at once, even while the faulted call hangs.
	faulted := make(chan reply, 1)
	go func() { faulted <- faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": ids[1]}) }()
	waitRequests(t, e.up, nsiptest.EndpointDetails, 1)
	r := callTool(t, other, "nsip_get_trait_ranges", map[string]any{"breed_id": breeds[0]})
	switch {
	case row.throttle:
		// A 429 pauses only the endpoint that sent it: the other session
		// still reaches other endpoints, and its cached answers.
		checkFaultError(t, row, <-faulted)
		callTool(t, other, "nsip_get_trait_ranges", map[string]any{"breed_id": breeds[1]}).mustOK(t)
		if hit := callTool(t, other, "nsip_get_statuses", nil).mustOK(t); hit.meta["cache"] != cacheHit {
			t.Errorf("cached answer during the pause: cache = %v, want hit", hit.meta["cache"])
		}
	default:
		r.mustOK(t)
		select {
		case got := <-faulted:
			if row.fault.Kind == nsiptest.FaultHang || row.fault.Latency > 0 {
				t.Errorf("the other session waited for the stuck call (%.80s)", got.text)
			}
			checkFaultError(t, row, got)
		default:
			checkFaultError(t, row, <-faulted)
		}
	}

	if row.throttle {
		checkThrottlePause(t, e, fresh, ids)
		checkRepeatedThrottles(t)
		return
	}

	// 2. A success elsewhere resets the breaker's count; now only failing
	// calls follow. The first one asks for the expired answer, which is
	// served stale and says why. The faulted call's fetch may go on for the
	// cache after the call has answered, its retries included: those
	// requests are not the ones counted below, and a failure of theirs
	// after the success would count, so the success comes once no fetch is
	// under way.
	waitNoFetch(t, e)
	callTool(t, other, "nsip_get_trait_ranges", map[string]any{"breed_id": breeds[2]}).mustOK(t)
	detailsBefore := e.gw.Health().UpstreamRequests
	if row.deadline > 0 {
		openedAtOnce(t, e, row, fresh, append([]string{primed}, ids[2:1+faultBreakerFailures]...))
	} else {
		checkStale(t, row, fresh, faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": primed}))
		// Each request counts, retries included: a fault that is retried
		// opens the breaker within one call, one that is not within three.
		for i := 2; e.gw.Health().Breaker.State != "open" && i < 1+faultBreakerFailures; i++ {
			r := faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": ids[i]})
			if e.gw.Health().Breaker.State == "open" {
				// Opened by one of this call's requests: the call answers
				// with the last request's failure, whichever attempt it was.
				if b := r.errorBody(t); b.Code != row.code {
					t.Errorf("call that opened the breaker: code %s, want %s", b.Code, row.code)
				}
				break
			}
			checkFaultError(t, row, r)
		}
	}
	if h := e.gw.Health().Breaker; h.State != "open" || h.RetryInSeconds < 1 {
		t.Fatalf("breaker after %d failures in a row: %+v, want open with retry_in_seconds", faultBreakerFailures, h)
	}
	// Counted by the gateway: Go's transport resends a GET once by itself
	// when a reused connection turns out dead, which NSIP sees too.
	if n := e.gw.Health().UpstreamRequests - detailsBefore; n != faultBreakerFailures {
		t.Errorf("%d failed requests went to NSIP before the breaker opened, want %d", n, faultBreakerFailures)
	}

	// 3. Open: nothing reaches NSIP, every endpoint fails fast with when to
	// come back, and cached answers are still served.
	before := e.up.TotalRequests()
	b := e.call("nsip_get_lineage", map[string]any{"lpn_id": ids[10]}).errorBody(t)
	if b.Code != toolerr.CodeUpstreamUnavailable || b.RetryInSeconds < 1 || !strings.Contains(b.Problem, "retry in") {
		t.Errorf("call while open: %+v, want upstream_unavailable with retry_in_seconds", b)
	}
	if hit := callTool(t, other, "nsip_get_statuses", nil).mustOK(t); hit.meta["cache"] != cacheHit {
		t.Errorf("cached answer while open: cache = %v, want hit", hit.meta["cache"])
	}
	st := e.call("nsip_get_animal", map[string]any{"search_string": primed}).mustOK(t)
	if st.meta["cache"] != cacheStale || st.meta["stale_reason"] != toolerr.CodeUpstreamUnavailable {
		t.Errorf("expired answer while open: _meta = %v, want stale because upstream_unavailable", st.meta)
	}
	if n := e.up.TotalRequests() - before; n != 0 {
		t.Errorf("%d requests reached NSIP while the breaker was open, want 0", n)
	}

	checkRecovery(t, row)
}

// checkStale checks the expired answer asked for during the fault: served
// stale, saying why, as it was fetched while NSIP was healthy.
func checkStale(t *testing.T, row faultRow, fresh, st reply) {
	t.Helper()
	if st.meta["cache"] != cacheStale || st.meta["stale_reason"] != row.code || st.metaInt(t, "stale_age_seconds") != 7200 {
		t.Errorf("expired answer during the fault: _meta = %v, want cache stale, stale_reason %s, age 7200", st.meta, row.code)
	}
	if st.text != fresh.text {
		t.Error("the stale answer differs from the one fetched while healthy")
	}
}

// openedAtOnce is step 2 of a row about time: the calls that open the
// breaker, the expired answer (ids[0]) first among them, are made together
// rather than each waiting out the deadline in turn. Each makes one
// request, which fails only at the call's deadline, and the breaker opens
// only at the failure of the last of them, so none of them can find it
// open: all are sent, and all answer with the fault. They are no more than
// the gateway's connections (MaxConcurrentUpstream, 4), so none waits for
// a turn either.
func openedAtOnce(t *testing.T, e *env, row faultRow, fresh reply, ids []string) {
	t.Helper()
	replies := make([]reply, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { replies[i] = faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": id}) })
	}
	wg.Wait()
	checkStale(t, row, fresh, replies[0].mustOK(t))
	for _, r := range replies[1:] {
		checkFaultError(t, row, r)
	}
}

// checkRecovery is step 4 of a row: NSIP recovers, and after the cooldown
// the trial request closes the breaker and answers are fresh again, in the
// same process. It runs on a gateway of its own, whose breaker opens at
// the row's first failure and cools down at once (trialCooldown).
func checkRecovery(t *testing.T, row faultRow) {
	t.Helper()
	e := newFaultEnv(t, row.clocks(trialCooldown, 1))
	ids := e.up.Data().AnimalIDs()
	primed := ids[0]
	fresh := e.call("nsip_get_animal", map[string]any{"search_string": primed}).mustOK(t)
	e.clock.Advance(2 * time.Hour) // so that a failed trial is served stale
	e.up.SetFault(nsiptest.EndpointDetails, row.fault)
	if b := faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": ids[1]}).errorBody(t); b.Code != row.code {
		t.Errorf("call that opened the breaker: code %s, want %s", b.Code, row.code)
	}
	// Open, or half-open already if the cooldown has passed: either way it
	// opened.
	if h := e.gw.Health().Breaker; h.State == "closed" {
		t.Fatalf("breaker after a failure that opens it: %+v, want open", h)
	}
	// A faulted fetch still going on for the cache would take the
	// breaker's one trial, so the faults end once none is under way.
	waitNoFetch(t, e)
	e.up.ClearFaults()
	again := recovered(t, e, primed)
	if again.meta["cache"] != cacheMiss || again.text != fresh.text {
		t.Errorf("after recovery: cache = %v, want a fresh answer equal to the first", again.meta["cache"])
	}
	if h := e.gw.Health().Breaker; h.State != "closed" || h.ConsecutiveFailures != 0 {
		t.Errorf("breaker after a successful trial: %+v, want closed", h)
	}
	e.call("nsip_get_lineage", map[string]any{"lpn_id": ids[10]}).mustOK(t)
}

// checkFaultError checks the error result a faulted call must give.
func checkFaultError(t *testing.T, row faultRow, r reply) {
	t.Helper()
	b := r.errorBody(t)
	t.Logf("%s: %s", row.name, r.text)
	if b.Code != row.code {
		t.Errorf("code = %s, want %s (problem %q)", b.Code, row.code, b.Problem)
	}
	if !strings.Contains(b.Problem, row.problem) {
		t.Errorf("problem %q does not say %q", b.Problem, row.problem)
	}
	if b.Next == "" {
		t.Errorf("error %+v has no next step", b)
	}
}

// checkThrottlePause covers the 429 row's pause: while it runs, the
// endpoint's expired answers are served stale and no request leaves.
func checkThrottlePause(t *testing.T, e *env, fresh reply, ids []string) {
	t.Helper()
	before := e.up.TotalRequests()
	st := e.call("nsip_get_animal", map[string]any{"search_string": ids[0]}).mustOK(t)
	if st.meta["cache"] != cacheStale || st.meta["stale_reason"] != toolerr.CodeRateLimited || st.text != fresh.text {
		t.Errorf("expired answer during the pause: _meta = %v, want stale because rate_limited", st.meta)
	}
	if n := e.up.TotalRequests() - before; n != 0 {
		t.Errorf("%d requests reached NSIP during the pause it asked for, want 0", n)
	}
	// The pause held those back, not its end: it still runs, as NSIP
	// asked.
	p := e.gw.Health().UpstreamPauses
	if len(p) != 1 || p[0].Method != "get_animal_details" || p[0].AskedSeconds != int64(throttlePause/time.Second) || p[0].RetryInSeconds < 1 {
		t.Errorf("upstream_pauses = %+v, want the details endpoint's pause of %s still running", p, throttlePause)
	}
}

// checkRepeatedThrottles covers the rest of the 429 row, on a gateway of
// its own where NSIP asks for a pause of a second each time: the breaker
// stays closed however often NSIP says 429, and after the pause calls
// succeed. Each pause is waited out; nothing has to happen within one.
func checkRepeatedThrottles(t *testing.T) {
	t.Helper()
	e := newFaultEnv(t, patient)
	ids := e.up.Data().AnimalIDs()
	e.up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: time.Second})
	for i := range faultBreakerFailures {
		waitPause(t, e)
		b := faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": ids[2+i]}).errorBody(t)
		if b.Code != toolerr.CodeRateLimited || b.RetryAfterSeconds != 1 || b.Capacity == nil {
			t.Errorf("429 number %d: %+v, want rate_limited, retry_after_seconds 1 and the remaining capacity", i+1, b)
		}
	}
	if h := e.gw.Health().Breaker; h.State != "closed" || h.ConsecutiveFailures != 0 {
		t.Errorf("breaker after repeated 429s: %+v, want closed: a throttle is not an outage", h)
	}
	e.up.ClearFaults()
	waitPause(t, e)
	if r := e.call("nsip_get_animal", map[string]any{"search_string": ids[0]}).mustOK(t); r.meta["cache"] != cacheMiss {
		t.Errorf("after the pause: cache = %v, want a fresh answer", r.meta["cache"])
	}
}

// waitRequests waits until the stand-in has received n requests on endpoint.
func waitRequests(t *testing.T, up *nsiptest.Server, endpoint string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for up.Requests(endpoint) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the stand-in saw %d requests on %s, want %d", up.Requests(endpoint), endpoint, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitNoFetch waits until no NSIP fetch is under way.
func waitNoFetch(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for e.gw.Health().RateLimit.InFlight > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d NSIP fetches still under way after a minute", e.gw.Health().RateLimit.InFlight)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recovered is the answer for the animal id once NSIP, its faults ended,
// is asked again: after each cooldown one trial goes out. A trial that a
// loaded machine makes slower than the call's time limit fails like a
// fault and opens the breaker for another cooldown, which says nothing of
// recovery; a breaker that lets no trial succeed in five fails the test.
func recovered(t *testing.T, e *env, id string) reply {
	t.Helper()
	var r reply
	for range 5 {
		waitBreakerCooldown(t, e)
		if r = e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t); r.meta["cache"] != cacheStale {
			return r
		}
		t.Logf("trial after the cooldown served stale (%v); the breaker is %s", r.meta["stale_reason"], e.gw.Health().Breaker.State)
	}
	return r
}

// waitBreakerCooldown sleeps until the open breaker lets a trial through.
func waitBreakerCooldown(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for e.gw.Health().Breaker.State == "open" {
		if time.Now().After(deadline) {
			t.Fatal("the breaker stayed open past its cooldown")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitPause sleeps until the pause a 429 asked for has passed.
func waitPause(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for len(e.gw.Health().UpstreamPauses) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the 429 pause did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestShortFaultsAreAbsorbed: trouble that the client's retries outlast
// never reaches the model, and answers that are slow but within the
// deadline are served, not cut off.
func TestShortFaultsAreAbsorbed(t *testing.T) {
	tests := []struct {
		name     string
		fault    nsiptest.Fault
		requests int
		// attempt, for a row about time, is the client's limit on one
		// request; zero gives the patient clocks. The call's limit is
		// always patient: it is the retries within it that are tested.
		attempt time.Duration
	}{
		{"two 500s", nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500, Times: 2}, 3, 0},
		{"a 503 page", nsiptest.Fault{Kind: nsiptest.FaultStatusHTML, Status: 503, Times: 1}, 2, 0},
		{"a reset", nsiptest.Fault{Kind: nsiptest.FaultReset, Times: 1}, 2, 0},
		// The stuck attempt is given up after two seconds, and the retry
		// has as long: far more than a healthy request takes, and a loaded
		// machine that takes longer still has the third attempt.
		{"one attempt stuck", nsiptest.Fault{Kind: nsiptest.FaultHang, Times: 1}, 2, 2 * time.Second},
		{"slow within the deadline", nsiptest.Fault{Latency: 100 * time.Millisecond}, 1, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			c := patient
			if tt.attempt > 0 {
				c.attempt = tt.attempt
			}
			e := newFaultEnv(t, c)
			id := e.up.Data().AnimalIDs()[3]
			want := e.upstreamBody("GET", "details/getAnimalDetails?searchString="+id, "")
			e.up.SetFault(nsiptest.EndpointDetails, tt.fault)
			r := faultCall(t, e, "nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
			if r.text != want || r.meta["cache"] != cacheMiss {
				t.Errorf("answer after %s: cache %v, text %.120s; want the upstream answer", tt.name, r.meta["cache"], r.text)
			}
			if n := e.up.Requests(nsiptest.EndpointDetails); n < tt.requests {
				t.Errorf("the stand-in saw %d requests, want at least %d", n, tt.requests)
			}
			if h := e.gw.Health(); h.Breaker.ConsecutiveFailures != 0 || h.ErrorsByCode[toolerr.CodeUpstreamError] != 0 {
				t.Errorf("a fault absorbed by retries left a trace: %+v", h.Breaker)
			}
		})
	}
}

// deadlineUpstream records the deadline of the context each request gets.
type deadlineUpstream struct {
	stubUpstream
	deadline chan time.Time
}

func (d *deadlineUpstream) BreedGroups(ctx context.Context) (*nsip.BreedGroups, error) {
	dl, _ := ctx.Deadline() // zero when there is none
	d.deadline <- dl
	return nil, &nsip.Error{Kind: nsip.KindUpstream, Status: 502}
}

// TestDefaultDeadlineIsThirtySeconds: with the default configuration every
// upstream fetch runs under a deadline of at most 30 s from the call, so no
// tool call can wait on NSIP longer than that.
func TestDefaultDeadlineIsThirtySeconds(t *testing.T) {
	up := &deadlineUpstream{deadline: make(chan time.Time, 1)}
	sum, _ := summarizer(t)
	gw, err := New(up, sum, Config{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, gw.NewMCPServer("deadline", "0"))
	start := time.Now()
	b := callTool(t, c, "nsip_list_breeds", nil).errorBody(t)
	took := time.Since(start)
	dl := <-up.deadline
	if dl.IsZero() {
		t.Fatal("the upstream request carried no deadline")
	}
	if got := dl.Sub(start); got > 30*time.Second+took || got < 29*time.Second {
		t.Errorf("upstream deadline %v after the call began, want 30 s", got)
	}
	if b.Code != toolerr.CodeUpstreamError || !strings.Contains(b.Problem, "HTTP 502") {
		t.Errorf("error = %+v, want upstream_error naming HTTP 502", b)
	}
}
