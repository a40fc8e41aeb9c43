package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestIdenticalCallsReachTheUpstreamOnce(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	var texts []string
	for i, want := range []string{"miss", "hit", "hit"} {
		r := e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
		if r.meta["cache"] != want {
			t.Errorf("call %d: _meta.cache = %v, want %s", i+1, r.meta["cache"], want)
		}
		texts = append(texts, r.text)
	}
	if texts[0] != texts[1] || texts[1] != texts[2] {
		t.Error("a cached answer differs from the first")
	}
	if n := e.up.Requests(nsiptest.EndpointDetails); n != 1 {
		t.Errorf("upstream requests = %d, want 1", n)
	}
	s := e.gw.Health().Cache
	if s.Hits != 2 || s.Misses != 1 || s.Entries != 1 {
		t.Errorf("cache stats = %+v, want 2 hits, 1 miss, 1 entry", s)
	}
}

func TestConcurrentIdenticalCallsShareOneUpstreamRequest(t *testing.T) {
	e := newEnv(t)
	// Slow enough that all twenty calls arrive while the first is in flight.
	e.up.SetLatency(nsiptest.EndpointLineage, 300*time.Millisecond)
	id := e.up.Data().DeepPedigree()
	const n = 20
	texts := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			texts[i] = e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t).text
		}()
	}
	close(start)
	wg.Wait()
	if got := e.up.Requests(nsiptest.EndpointLineage); got != 1 {
		t.Errorf("upstream requests = %d, want 1", got)
	}
	for i := range texts {
		if texts[i] == "" || texts[i] != texts[0] {
			t.Fatalf("call %d got a different answer", i)
		}
	}
}

// callRaw sends a tools/call whose arguments are given as literal JSON, so
// that key order is what the test wrote.
func callRaw(t *testing.T, srv *server.MCPServer, id int, tool, argsJSON string) map[string]any {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, argsJSON)
	resp := srv.HandleMessage(context.Background(), json.RawMessage(msg))
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Error != nil {
		t.Fatalf("tools/call %s %s: %s", tool, argsJSON, b)
	}
	return out.Result
}

func TestArgumentOrderAndDefaultsShareACacheKey(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	progeny := []string{
		fmt.Sprintf(`{"lpn_id":%q}`, id),
		fmt.Sprintf(`{"page_size":10,"page":0,"lpn_id":%q}`, id),
		fmt.Sprintf(`{"page":0,"lpn_id":" %s "}`, id),
	}
	search := []string{
		`{}`,
		`{"page":0,"page_size":15,"reverse":false}`,
		`{"search_criteria":{},"reverse":false}`,
		`{"search_criteria":{"proven_only":false,"trait_ranges":{}}}`,
	}
	sorted := []string{
		`{"sorted_trait":"wwt","search_criteria":{"gender":"female","born_after":"2020-01-01"}}`,
		`{"search_criteria":{"born_after":"2020-01-01","gender":"Female"},"sorted_trait":"WWT","page":0}`,
	}
	for i, args := range progeny {
		callRaw(t, e.srv, i, "nsip_get_progeny", args)
	}
	for i, args := range search {
		callRaw(t, e.srv, 10+i, "nsip_search_animals", args)
	}
	for i, args := range sorted {
		callRaw(t, e.srv, 20+i, "nsip_search_animals", args)
	}
	if n := e.up.Requests(nsiptest.EndpointProgeny); n != 1 {
		t.Errorf("progeny requests = %d, want 1 for %d spellings of one call", n, len(progeny))
	}
	if n := e.up.Requests(nsiptest.EndpointSearch); n != 2 {
		t.Errorf("search requests = %d, want 2 (one per distinct search)", n)
	}
	if got := e.gw.Health().Cache.Entries; got != 3 {
		t.Errorf("cache entries = %d, want 3", got)
	}
}

func TestCacheEntriesExpireAfterTheTTL(t *testing.T) {
	e := newEnv(t)
	args := map[string]any{"breed_id": 640}
	e.call("nsip_get_trait_ranges", args).mustOK(t)
	e.clock.Advance(59 * time.Minute)
	if r := e.call("nsip_get_trait_ranges", args).mustOK(t); r.meta["cache"] != "hit" {
		t.Errorf("after 59 min: cache = %v, want hit", r.meta["cache"])
	}
	e.clock.Advance(2 * time.Minute)
	if r := e.call("nsip_get_trait_ranges", args).mustOK(t); r.meta["cache"] != "miss" {
		t.Errorf("after 61 min: cache = %v, want miss", r.meta["cache"])
	}
	if n := e.up.Requests(nsiptest.EndpointTraitRanges); n != 2 {
		t.Errorf("upstream requests = %d, want 2 (first call and after expiry)", n)
	}
}

// openBreaker makes NSIP's details endpoint fail for five calls in a row,
// which open the breaker.
func openBreaker(t *testing.T, e *env) {
	t.Helper()
	e.up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	ids := e.up.Data().AnimalIDs()
	for i := range 5 {
		b := e.call("nsip_get_animal", map[string]any{"search_string": ids[i]}).errorBody(t)
		if b.Code != toolerr.CodeUpstreamError {
			t.Fatalf("failure %d: code = %s, want upstream_error (%s)", i+1, b.Code, b.Problem)
		}
	}
}

func TestBreakerOpensAndServesStale(t *testing.T) {
	// Everything below happens while the breaker is open: a cooldown of
	// minutes outlasts it on any machine.
	e := newEnv(t, withConfig(func(c *Config) { c.BreakerCooldown = 10 * time.Minute }))
	data := e.up.Data()
	cached := data.MostProgeny()
	fresh := e.call("nsip_get_animal", map[string]any{"search_string": cached}).mustOK(t)
	e.clock.Advance(2 * time.Hour) // expired, still within the stale window

	e.up.ResetCounts()
	openBreaker(t, e)
	if st := e.gw.Health().Breaker.State; st != "open" {
		t.Fatalf("breaker = %s after 5 failures, want open", st)
	}

	// Open: no request leaves, and the answer says when to come back.
	ids := data.AnimalIDs()
	b := e.call("nsip_get_animal", map[string]any{"search_string": ids[6]}).errorBody(t)
	if b.Code != toolerr.CodeUpstreamUnavailable || b.RetryInSeconds < 1 || !strings.Contains(b.Problem, "retry in") {
		t.Errorf("while open: %+v, want upstream_unavailable with retry_in_seconds", b)
	}
	// The expired answer is served, marked stale.
	r := e.call("nsip_get_animal", map[string]any{"search_string": cached}).mustOK(t)
	if r.meta["cache"] != "stale" || r.meta["stale_reason"] != toolerr.CodeUpstreamUnavailable || r.metaInt(t, "stale_age_seconds") != 7200 {
		t.Errorf("stale _meta = %v", r.meta)
	}
	if r.text != fresh.text {
		t.Error("stale answer differs from the original")
	}
	if n := e.up.Requests(nsiptest.EndpointDetails); n != 5 {
		t.Errorf("upstream requests = %d, want 5: nothing may be sent while open", n)
	}
	if h := e.gw.Health(); h.Cache.StaleServed != 1 || h.Breaker.RetryInSeconds < 1 {
		t.Errorf("health = %+v", h)
	}
	if err := e.gw.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("Ready while open = %v, want unavailable", err)
	}
}

func TestBreakerClosesAfterATrialPastItsCooldown(t *testing.T) {
	// Nothing is checked while the breaker is open, so its cooldown may be
	// short: the test only waits for it to pass.
	e := newEnv(t, withConfig(func(c *Config) { c.BreakerCooldown = 100 * time.Millisecond }))
	openBreaker(t, e)
	e.up.ClearFaults()

	// After the cooldown a trial request goes through and closes the breaker.
	waitFor(t, "the breaker's cooldown to pass", func() bool { return e.gw.Health().Breaker.State != "open" })
	id := e.up.Data().AnimalIDs()[7]
	r := e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	if r.meta["cache"] != "miss" {
		t.Errorf("after recovery: cache = %v", r.meta["cache"])
	}
	if st := e.gw.Health().Breaker.State; st != "closed" {
		t.Errorf("breaker = %s after a successful trial, want closed", st)
	}
	if n := e.up.Requests(nsiptest.EndpointDetails); n != 6 {
		t.Errorf("upstream requests = %d, want 5 failures and the trial", n)
	}
	// The breaker did open, and closed only through its trial.
	var changes []string
	for _, l := range e.logs.Records(t) {
		if l["msg"] == "nsip circuit breaker" {
			changes = append(changes, fmt.Sprint(l["from"], "->", l["to"]))
		}
	}
	if got, want := strings.Join(changes, " "), "closed->open open->half-open half-open->closed"; got != want {
		t.Errorf("breaker went %s, want %s", got, want)
	}
}

func TestClientErrorsDoNotOpenTheBreaker(t *testing.T) {
	e := newEnv(t)
	for i := range 8 {
		b := e.call("nsip_get_animal", map[string]any{"search_string": fmt.Sprintf("NOSUCH%04d", i)}).errorBody(t)
		if b.Code != toolerr.CodeNotFound {
			t.Fatalf("code = %s, want not_found", b.Code)
		}
	}
	if st := e.gw.Health().Breaker.State; st != "closed" {
		t.Errorf("breaker = %s after 8 not-found answers, want closed", st)
	}
}

func TestNotFoundNamesWhatWasLookedUp(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		tool  string
		args  map[string]any
		field string
		next  string
	}{
		{"nsip_get_animal", map[string]any{"search_string": "6409992099ZZZ999"}, "search_string", "nsip_search_animals"},
		{"nsip_get_lineage", map[string]any{"lpn_id": "6409992099ZZZ999"}, "lpn_id", "nsip_search_animals"},
		{"nsip_get_progeny", map[string]any{"lpn_id": "6409992099ZZZ999"}, "lpn_id", "nsip_search_animals"},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": "6409992099ZZZ999"}, "lpn_id", "nsip_search_animals"},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 12345}, "breed_id", "nsip_list_breeds"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			b := e.call(tt.tool, tt.args).errorBody(t)
			want := fmt.Sprint(tt.args[tt.field])
			if b.Code != toolerr.CodeNotFound || b.Field != tt.field || fmt.Sprint(b.Value) != want {
				t.Errorf("error = %+v, want not_found on %s=%s", b, tt.field, want)
			}
			if !strings.Contains(b.Problem, want) || !strings.Contains(b.Next, tt.next) {
				t.Errorf("problem %q / next %q should name %s and suggest %s", b.Problem, b.Next, want, tt.next)
			}
		})
	}
}

func TestUpstreamFailuresMapToCodes(t *testing.T) {
	tests := []struct {
		name  string
		fault nsiptest.Fault
		code  string
		// timeout, when set, is the call's deadline: a hang is waited out,
		// so it gets a short one. The other rows keep newEnv's long one,
		// since a loaded machine can take longer than a short one to
		// answer at all.
		timeout time.Duration
	}{
		{"html error page on 200", nsiptest.Fault{Kind: nsiptest.FaultHTML200}, toolerr.CodeUnexpectedResponse, 0},
		{"connection reset", nsiptest.Fault{Kind: nsiptest.FaultReset}, toolerr.CodeUpstreamError, 0},
		{"hang past the deadline", nsiptest.Fault{Kind: nsiptest.FaultHang}, toolerr.CodeTimeout, 300 * time.Millisecond},
		{"bad gateway page", nsiptest.Fault{Kind: nsiptest.FaultStatusHTML, Status: 502}, toolerr.CodeUpstreamError, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withConfig(func(c *Config) {
				if tt.timeout > 0 {
					c.CallTimeout = tt.timeout
				}
			}))
			e.up.SetFault(nsiptest.EndpointBreedGroups, tt.fault)
			b := e.call("nsip_list_breeds", nil).errorBody(t)
			if b.Code != tt.code {
				t.Errorf("code = %s, want %s (%s)", b.Code, tt.code, b.Problem)
			}
			if b.Problem == "" || b.Next == "" {
				t.Errorf("error lacks a problem or next step: %+v", b)
			}
			if got := e.gw.Health().ErrorsByCode[tt.code]; got != 1 {
				t.Errorf("errors_by_code[%s] = %d, want 1", tt.code, got)
			}
		})
	}
}

func TestUpstream429GivesRetryAfterAndPausesRequests(t *testing.T) {
	e := newEnv(t)
	e.up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 30 * time.Second, Times: 1})
	ids := e.up.Data().AnimalIDs()
	start := time.Now()
	b := e.call("nsip_get_animal", map[string]any{"search_string": ids[0]}).errorBody(t)
	if b.Code != toolerr.CodeRateLimited || b.RetryAfterSeconds != 30 || b.Capacity == nil {
		t.Fatalf("429: %+v, want rate_limited, retry_after_seconds 30, remaining capacity", b)
	}
	// NSIP asked for a pause: the next call is refused locally, told to
	// wait out what is left of the 30 s. The pause began after start and
	// the refusal came before now, so what is left is at least 30 s less
	// the time both calls took, however long a loaded machine made that.
	b = e.call("nsip_get_animal", map[string]any{"search_string": ids[1]}).errorBody(t)
	least := upstream.Seconds(30*time.Second - time.Since(start))
	if b.Code != toolerr.CodeRateLimited || b.RetryAfterSeconds < least || b.RetryAfterSeconds > 30 || b.Capacity == nil {
		t.Errorf("during the pause: %+v, want rate_limited, retry_after_seconds %d..30, remaining capacity", b, least)
	}
	if n := e.up.Requests(nsiptest.EndpointDetails); n != 1 {
		t.Errorf("upstream requests = %d, want 1", n)
	}
	if st := e.gw.Health().Breaker.State; st != "closed" {
		t.Errorf("a 429 opened the breaker (%s)", st)
	}
}

func TestLocalRateLimitRefusesWithRetryAfter(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) {
		// One request, then one every 100 s: the next token is further
		// off than the 30 s deadline however long the first call takes
		// on a loaded machine, short of 70 s, so the second is refused.
		c.RateLimit, c.RateBurst = 0.01, 1
		c.CallTimeout = 30 * time.Second
	}))
	start := time.Now()
	e.call("nsip_get_statuses", nil).mustOK(t)
	b := e.call("nsip_list_breeds", nil).errorBody(t)
	// The token was taken after start and the next one reserved before
	// now, so the wait is at most 100 s and at least 100 s less the time
	// both calls took.
	least := upstream.Seconds(100*time.Second - time.Since(start))
	if b.Code != toolerr.CodeRateLimited || b.RetryAfterSeconds < least || b.RetryAfterSeconds > 100 {
		t.Errorf("error = %+v, want rate_limited with retry_after_seconds %d..100", b, least)
	}
	if b.Capacity == nil || b.Capacity.LimitPerSecond != 0.01 || b.Capacity.Burst != 1 || b.Capacity.TokensAvailable >= 1 {
		t.Errorf("remaining capacity = %+v", b.Capacity)
	}
	if n := e.up.TotalRequests(); n != 1 {
		t.Errorf("upstream requests = %d, want 1", n)
	}
	// Cached answers need no capacity.
	if r := e.call("nsip_get_statuses", nil).mustOK(t); r.meta["cache"] != "hit" {
		t.Errorf("cached call: %v", r.meta)
	}
}

func TestRateLimitWaitsWhenTheDeadlineAllows(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.RateLimit, c.RateBurst = 20, 1 }))
	start := time.Now()
	e.call("nsip_get_statuses", nil).mustOK(t)
	e.call("nsip_list_breeds", nil).mustOK(t)
	e.call("nsip_get_last_update", nil).mustOK(t)
	// Three requests at 20/s with burst 1 take at least 100 ms.
	if d := time.Since(start); d < 90*time.Millisecond {
		t.Errorf("three requests in %v: the limiter did not pace them", d)
	}
}

func TestProfileCostsThreeRequestsOfCapacity(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) {
		// The next token is 1,000 s away, past the 60 s deadline however
		// long the profile takes on a loaded machine, short of 940 s, so
		// a fourth request is refused at once; the deadline itself leaves
		// room for the profile's three fits.
		c.RateLimit, c.RateBurst = 0.001, 3
		c.CallTimeout = time.Minute
	}))
	id := e.up.Data().MostProgeny()
	e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if b := e.call("nsip_get_statuses", nil).errorBody(t); b.Code != toolerr.CodeRateLimited {
		t.Errorf("after a profile the burst of 3 should be spent: %+v", b)
	}
	if h := e.gw.Health(); h.UpstreamRequests != 3 {
		t.Errorf("upstream requests = %d, want 3", h.UpstreamRequests)
	}
}

// heldUpstream is a gatedUpstream that holds NSIP's last-update and
// status reads too, and lets them all go at once.
type heldUpstream struct {
	*gatedUpstream
	once sync.Once
}

// holdUpstream makes e's gateway ask NSIP through a heldUpstream.
func holdUpstream(t *testing.T, e *env) *heldUpstream {
	h := &heldUpstream{gatedUpstream: newGate(e.gw.up)}
	e.gw.up = h
	t.Cleanup(h.let)
	return h
}

// let lets every held request, and every later one, go on to NSIP.
func (h *heldUpstream) let() { h.once.Do(func() { close(h.proceed) }) }

func (h *heldUpstream) DateLastUpdated(ctx context.Context) (*nsip.LastUpdate, error) {
	if err := h.hold(ctx, "last-update"); err != nil {
		return nil, err
	}
	return h.Upstream.DateLastUpdated(ctx)
}

func (h *heldUpstream) Statuses(ctx context.Context) (*nsip.Statuses, error) {
	if err := h.hold(ctx, "statuses"); err != nil {
		return nil, err
	}
	return h.Upstream.Statuses(ctx)
}

func TestProgressNotificationsPrecedeTheResult(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.ProgressInterval = 40 * time.Millisecond }))
	held := holdUpstream(t, e)

	session := server.NewInProcessSession("progress-test", nil)
	if err := e.srv.RegisterSession(context.Background(), session); err != nil {
		t.Fatal(err)
	}
	session.Initialize()
	ctx := e.srv.WithContext(context.Background(), session)

	// NSIP answers only once the call has reported progress three times,
	// however long a loaded machine takes to send them; if they never
	// come, it answers after a minute and the count below says so.
	ended := t.Context().Done()
	go func() {
		defer held.let()
		for deadline := time.Now().Add(time.Minute); len(session.ClientNotifications()) < 3 && time.Now().Before(deadline); {
			select {
			case <-ended:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nsip_get_last_update","arguments":{},"_meta":{"progressToken":"tok-1"}}}`
	resp := e.srv.HandleMessage(ctx, json.RawMessage(msg))
	if _, ok := resp.(mcp.JSONRPCResponse); !ok {
		t.Fatalf("response = %#v", resp)
	}
	var got []mcp.JSONRPCNotification
	for len(session.ClientNotifications()) > 0 {
		got = append(got, <-session.ClientNotifications())
	}
	if len(got) < 3 {
		t.Fatalf("%d progress notifications queued before the result; want at least the 3 sent while NSIP was held", len(got))
	}
	for i, n := range got {
		f := n.Params.AdditionalFields
		if n.Method != "notifications/progress" || f["progressToken"] != "tok-1" || f["progress"] != i+1 {
			t.Errorf("notification %d = %s %v", i, n.Method, f)
		}
	}

	// Without a token nothing is sent.
	e.up.SetLatency(nsiptest.EndpointStatuses, 200*time.Millisecond)
	msg = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nsip_get_statuses","arguments":{}}}`
	e.srv.HandleMessage(ctx, json.RawMessage(msg))
	if n := len(session.ClientNotifications()); n != 0 {
		t.Errorf("%d notifications without a progress token", n)
	}
}

// deadlineAt is a caller's context whose deadline passes when the test
// closes passed, rather than at an instant a loaded machine may reach
// before the call is even sent.
type deadlineAt struct {
	context.Context
	passed chan struct{}
}

func (c deadlineAt) Done() <-chan struct{} { return c.passed }

func (c deadlineAt) Err() error {
	select {
	case <-c.passed:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestCallerGivingUpDoesNotCancelTheSharedFetch(t *testing.T) {
	e := newEnv(t)
	held := holdUpstream(t, e)
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_get_statuses"
	ctx := deadlineAt{Context: context.Background(), passed: make(chan struct{})}
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	gaveUp := make(chan outcome, 1)
	go func() {
		res, err := e.client.CallTool(ctx, req)
		gaveUp <- outcome{res, err}
	}()
	// The caller's deadline passes while its request is with NSIP.
	select {
	case <-held.arrived:
	case <-time.After(time.Minute):
		t.Fatal("the call's request never reached NSIP")
	}
	close(ctx.passed)
	o := <-gaveUp
	if o.err == nil {
		body := o.res.Content[0].(mcp.TextContent).Text
		if !o.res.IsError || !strings.Contains(body, toolerr.CodeTimeout) {
			t.Fatalf("impatient caller got %s", body)
		}
	}
	// The fetch finishes for the next caller, who gets it from the cache.
	held.let()
	deadline := time.Now().Add(30 * time.Second)
	for e.gw.Health().Cache.Entries == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the fetch the caller gave up on did not fill the cache")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := e.call("nsip_get_statuses", nil).mustOK(t); r.meta["cache"] != "hit" {
		t.Errorf("second caller: cache = %v, want hit", r.meta["cache"])
	}
	if n := e.up.Requests(nsiptest.EndpointStatuses); n != 1 {
		t.Errorf("upstream requests = %d, want 1", n)
	}
}

func TestOneLogLinePerCall(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	e.call("nsip_search_animals", map[string]any{"page_size": 100}).mustOK(t)
	e.call("nsip_get_progeny", map[string]any{"lpn_id": "bad!"})
	var calls []map[string]any
	for _, l := range e.logs.Records(t) {
		if l["msg"] == "tool call" {
			calls = append(calls, l)
		}
	}
	if len(calls) != 4 {
		t.Fatalf("%d tool call log lines, want 4", len(calls))
	}
	first := calls[0]
	wantParams := fmt.Sprintf(`{"search_string":%q}`, id)
	if first["tool"] != "nsip_get_animal" || first["method"] != "get_animal_details" || first["params"] != wantParams ||
		first["status"] != "ok" || first["cache"] != "miss" || first["summarized"] != false {
		t.Errorf("first line = %v", first)
	}
	if _, ok := first["latency_ms"].(float64); !ok {
		t.Errorf("latency_ms missing: %v", first)
	}
	if first["tokens"] != first["original_tokens"] || first["tokens"].(float64) <= 0 {
		t.Errorf("token counts = %v / %v", first["tokens"], first["original_tokens"])
	}
	if calls[1]["cache"] != "hit" {
		t.Errorf("second line cache = %v", calls[1]["cache"])
	}
	if calls[2]["summarized"] != true || calls[2]["tokens"].(float64) >= calls[2]["original_tokens"].(float64) {
		t.Errorf("summarized line = %v", calls[2])
	}
	if calls[3]["status"] != toolerr.CodeInvalidArgument || calls[3]["field"] != "lpn_id" {
		t.Errorf("invalid call line = %v", calls[3])
	}
}

func TestHealthCountsCallsErrorsAndSummaries(t *testing.T) {
	e := newEnv(t)
	if h := e.gw.Health(); h.LastUpstreamSuccess != nil || h.Cache.HitRate != 0 || len(h.CallsByTool) != len(wantTools) {
		t.Errorf("fresh health = %+v", h)
	}
	e.call("nsip_get_statuses", nil).mustOK(t)
	e.call("nsip_get_statuses", nil).mustOK(t)
	e.call("nsip_search_animals", map[string]any{"page_size": 100}).mustOK(t)
	e.call("nsip_get_lineage", map[string]any{"lpn_id": "x"})
	h := e.gw.Health()
	if h.CallsByTool["nsip_get_statuses"] != 2 || h.CallsByTool["nsip_search_animals"] != 1 || h.CallsByTool["nsip_get_lineage"] != 1 {
		t.Errorf("calls = %v", h.CallsByTool)
	}
	if h.ErrorsByCode[toolerr.CodeInvalidArgument] != 1 || h.UpstreamRequests != 2 {
		t.Errorf("errors = %v, upstream = %d", h.ErrorsByCode, h.UpstreamRequests)
	}
	if h.Summarizations != 1 || h.MeanReduction < 0.7 || h.MeanReduction >= 1 {
		t.Errorf("summarizations = %d, mean reduction = %v", h.Summarizations, h.MeanReduction)
	}
	if h.Cache.HitRate < 0.33 || h.Cache.HitRate > 0.34 {
		t.Errorf("hit rate = %v, want 1/3", h.Cache.HitRate)
	}
	if h.LastUpstreamSuccess == nil || time.Since(*h.LastUpstreamSuccess) > time.Minute {
		t.Errorf("last upstream success = %v", h.LastUpstreamSuccess)
	}
	if h.Breaker.State != "closed" || h.RateLimit.LimitPerSecond != 1000 || h.RateLimit.MaxConcurrent != 4 {
		t.Errorf("breaker/rate = %+v / %+v", h.Breaker, h.RateLimit)
	}
	b, err := json.Marshal(h)
	if err != nil || !strings.Contains(string(b), `"hit_rate"`) || !strings.Contains(string(b), `"calls_by_tool"`) {
		t.Errorf("health JSON = %s (%v)", b, err)
	}
}

func TestReady(t *testing.T) {
	e := newEnv(t)
	if err := e.gw.Ready(context.Background()); err != nil {
		t.Fatalf("Ready with a healthy upstream: %v", err)
	}
	if n := e.up.Requests(nsiptest.EndpointLastUpdated); n != 1 {
		t.Errorf("probe requests = %d, want 1", n)
	}
	// A recent success is enough: no second request.
	if err := e.gw.Ready(context.Background()); err != nil || e.up.TotalRequests() != 1 {
		t.Errorf("second probe: %v, %d requests", err, e.up.TotalRequests())
	}
	if got := e.gw.Health().CallsByTool["nsip_get_last_update"]; got != 0 {
		t.Errorf("probes counted as tool calls: %d", got)
	}
}

func TestReadyReportsWhyNot(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.ReadyMaxAge = time.Nanosecond }))
	e.up.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500})
	if err := e.gw.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "NSIP") {
		t.Errorf("Ready with a failing upstream = %v", err)
	}
	// With an answer cached earlier, failing probes say only stale data is left.
	e.up.ClearFaults()
	e.call("nsip_get_last_update", nil).mustOK(t)
	e.clock.Advance(2 * time.Hour)
	e.up.SetFault(nsiptest.EndpointLastUpdated, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500})
	time.Sleep(time.Millisecond)
	if err := e.gw.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("Ready with only stale data = %v", err)
	}
}

func TestSummarizedAnswersAreCachedAsUpstreamAnswers(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.Budget = 300 }))
	id := e.up.Data().MostProgeny()
	first := e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	second := e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	if first.meta["summarized"] != true || second.meta["cache"] != "hit" {
		t.Fatalf("meta = %v / %v", first.meta, second.meta)
	}
	if first.text != second.text || first.metaInt(t, "original_tokens") != second.metaInt(t, "original_tokens") {
		t.Error("a hit renders differently from the miss")
	}
	if first.metaInt(t, "tokens") > 300 {
		t.Errorf("tokens = %d over a budget of 300", first.metaInt(t, "tokens"))
	}
	// What is cached is the upstream answer with its full token count.
	key := "get_animal_details:" + fmt.Sprintf(`{"search_string":%q}`, id)
	entry, ok := e.gw.cache.Peek(key)
	if !ok {
		t.Fatalf("no cache entry under %s", key)
	}
	a := entry.Value.(*upstream.Answer)
	if _, ok := a.Value.(*nsip.AnimalDetails); !ok || entry.Tokens != first.metaInt(t, "original_tokens") || !json.Valid(a.Raw) {
		t.Errorf("cached %T with %d tokens", a.Value, entry.Tokens)
	}
}

func TestProfileSharesTheCacheWithItsParts(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().NoProgeny()
	q := url.QueryEscape(id)
	want := `{"details":` + e.upstreamBody("GET", nsiptest.EndpointDetails+"?searchString="+q, "") +
		`,"lineage":` + e.upstreamBody("GET", nsiptest.EndpointLineage+"?lpnId="+q, "") +
		`,"progeny":` + e.upstreamBody("GET", nsiptest.EndpointProgeny+"?lpnId="+q+"&page=0&pageSize=10", "") + `}`

	first := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if first.text != want || first.meta["cache"] != "miss" || first.meta["summarized"] != false {
		t.Errorf("profile = %.300s (meta %v)\nwant %.300s", first.text, first.meta, want)
	}
	if n := e.up.TotalRequests(); n != 3 {
		t.Errorf("upstream requests = %d, want 3", n)
	}
	// Each part is now cached for the single tools, and the other way round.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"nsip_get_animal", map[string]any{"search_string": id}},
		{"nsip_get_lineage", map[string]any{"lpn_id": id}},
		{"nsip_get_progeny", map[string]any{"lpn_id": id}},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": id}},
	} {
		if r := e.call(c.tool, c.args).mustOK(t); r.meta["cache"] != "hit" {
			t.Errorf("%s after the profile: cache = %v, want hit", c.tool, r.meta["cache"])
		}
	}
	if n := e.up.TotalRequests(); n != 3 {
		t.Errorf("upstream requests = %d, want still 3", n)
	}
}

func TestProfileFetchesOnlyMissingParts(t *testing.T) {
	e := newEnv(t, withSmallBudget())
	id := e.up.Data().MostProgeny()
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t)
	r := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if r.meta["cache"] != "miss" || r.meta["summarized"] != true {
		t.Errorf("meta = %v, want a summarized miss", r.meta)
	}
	for ep, want := range map[string]int{nsiptest.EndpointDetails: 1, nsiptest.EndpointLineage: 1, nsiptest.EndpointProgeny: 1} {
		if n := e.up.Requests(ep); n != want {
			t.Errorf("%s requests = %d, want %d", ep, n, want)
		}
	}
}

func TestProfileErrorsAndStaleParts(t *testing.T) {
	e := newEnv(t)
	b := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": "6409992099ZZZ999"}).errorBody(t)
	if b.Code != toolerr.CodeNotFound || b.Field != "lpn_id" || !strings.Contains(b.Problem, "animal with LPN ID") {
		t.Errorf("missing animal: %+v", b)
	}

	id := e.up.Data().NoProgeny()
	e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	e.clock.Advance(3 * time.Hour)
	e.up.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
	r := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if r.meta["cache"] != "stale" || r.meta["stale_reason"] != toolerr.CodeUpstreamError || r.metaInt(t, "stale_age_seconds") != 3*3600 {
		t.Errorf("meta = %v, want stale details behind a fresh lineage and progeny", r.meta)
	}
	if e.up.Requests(nsiptest.EndpointLineage) != 3 || e.up.Requests(nsiptest.EndpointProgeny) != 3 { // missing animal, first profile, refresh
		t.Errorf("lineage %d / progeny %d requests", e.up.Requests(nsiptest.EndpointLineage), e.up.Requests(nsiptest.EndpointProgeny))
	}
}
