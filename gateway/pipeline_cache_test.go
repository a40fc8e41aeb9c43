package gateway

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// watchFits counts the gateway's calls into the summarizer. Every token the
// gateway counts is counted inside Summarizer.Fit, so no fits means no
// counting.
func watchFits(g *Gateway) *atomic.Int64 {
	var n atomic.Int64
	inner := g.fitFunc
	g.fitFunc = func(r summarize.Request) summarize.Result {
		n.Add(1)
		return inner(r)
	}
	return &n
}

// sameExceptCache reports how two replies' _meta differ, ignoring where the
// answer came from.
func sameExceptCache(a, b reply) string {
	for _, k := range []string{"tokens", "original_tokens", "summarized", "budget"} {
		if a.meta[k] != b.meta[k] {
			return fmt.Sprintf("_meta.%s %v vs %v", k, a.meta[k], b.meta[k])
		}
	}
	return ""
}

type cachedCall struct {
	name       string
	tool       string
	args       func(*env) map[string]any
	summarized bool
}

var cachedCalls = []cachedCall{
	{"pass-through", "nsip_get_animal", func(e *env) map[string]any {
		return map[string]any{"search_string": e.up.Data().MostProgeny()}
	}, false},
	{"generic", "nsip_list_breeds", func(*env) map[string]any { return nil }, false},
	{"search page of 100", "nsip_search_animals", func(*env) map[string]any {
		return map[string]any{"page_size": 100}
	}, true},
	{"progeny page of 100", "nsip_get_progeny", func(e *env) map[string]any {
		return map[string]any{"lpn_id": e.up.Data().MostProgeny(), "page_size": 100}
	}, true},
	{"deepest pedigree", "nsip_get_lineage", func(e *env) map[string]any {
		return map[string]any{"lpn_id": e.up.Data().DeepPedigree()}
	}, true},
	{"profile", "nsip_search_by_lpn", func(e *env) map[string]any {
		return map[string]any{"lpn_id": e.up.Data().MostProgeny()}
	}, true},
}

func TestHitsServeTheMissTextWithoutFitting(t *testing.T) {
	for _, c := range cachedCalls {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, withSmallBudget())
			fits := watchFits(e.gw)
			args := c.args(e)
			miss := e.call(c.tool, args).mustOK(t)
			if miss.meta["cache"] != "miss" || miss.meta["summarized"] != c.summarized || fits.Load() == 0 {
				t.Fatalf("first call: meta %v after %d fits, want a miss with summarized=%v", miss.meta, fits.Load(), c.summarized)
			}
			before := fits.Load()
			for i := range 3 {
				hit := e.call(c.tool, args).mustOK(t)
				if hit.meta["cache"] != "hit" {
					t.Errorf("call %d: cache = %v, want hit", i+2, hit.meta["cache"])
				}
				if hit.text != miss.text {
					t.Errorf("call %d: the hit's text differs from the miss's:\n%.200s\n%.200s", i+2, hit.text, miss.text)
				}
				if d := sameExceptCache(hit, miss); d != "" {
					t.Errorf("call %d: %s", i+2, d)
				}
			}
			if n := fits.Load() - before; n != 0 {
				t.Errorf("three hits fitted %d times, want 0", n)
			}
		})
	}
}

func TestStaleAnswersServeTheStoredFitMarkedStale(t *testing.T) {
	for _, c := range []struct {
		tool     string
		args     map[string]any
		endpoint string
	}{
		{"nsip_search_animals", map[string]any{"page_size": 100}, nsiptest.EndpointSearch},
		{"nsip_search_by_lpn", nil, nsiptest.EndpointProgeny},
	} {
		t.Run(c.tool, func(t *testing.T) {
			e := newEnv(t)
			if c.args == nil {
				c.args = map[string]any{"lpn_id": e.up.Data().MostProgeny()}
			}
			fits := watchFits(e.gw)
			fresh := e.call(c.tool, c.args).mustOK(t)
			before := fits.Load()
			e.clock.Advance(2 * time.Hour)
			e.up.SetFault(c.endpoint, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503})
			stale := e.call(c.tool, c.args).mustOK(t)
			if stale.meta["cache"] != "stale" || stale.meta["stale_reason"] != toolerr.CodeUpstreamError || stale.metaInt(t, "stale_age_seconds") != 7200 {
				t.Errorf("meta = %v, want a stale answer two hours old", stale.meta)
			}
			if stale.text != fresh.text || sameExceptCache(stale, fresh) != "" {
				t.Errorf("the stale answer differs from the fresh one: %s", sameExceptCache(stale, fresh))
			}
			// A stale answer is not fitted again. A profile's other two
			// parts were refetched, though: each of them is fitted, and so
			// is the profile over the new parts.
			want := int64(0)
			if c.tool == "nsip_search_by_lpn" {
				want = 3
			}
			if n := fits.Load() - before; n != want {
				t.Errorf("fits for the stale answer = %d, want %d", n, want)
			}
		})
	}
}

func TestCallersSharingAFetchGetOneFit(t *testing.T) {
	e := newEnv(t)
	e.up.SetLatency(nsiptest.EndpointSearch, 200*time.Millisecond)
	fits := watchFits(e.gw)
	const n = 12
	text := concurrentCalls(t, e, n, "nsip_search_animals", map[string]any{"page_size": 100})()
	if got := e.up.Requests(nsiptest.EndpointSearch); got != 1 {
		t.Errorf("upstream requests = %d, want 1", got)
	}
	if got := fits.Load(); got != 1 {
		t.Errorf("fits = %d, want 1 shared by all %d callers", got, n)
	}
	if !strings.HasPrefix(text, `{"`) {
		t.Errorf("answer %.100q is not a JSON object", text)
	}
}

// concurrentCalls starts n identical calls at once. wait waits for them,
// checks that all got the same answer and returns it.
func concurrentCalls(t *testing.T, e *env, n int, tool string, args map[string]any) (wait func() string) {
	texts := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts[i] = e.call(tool, args).mustOK(t).text
		}()
	}
	return func() string {
		t.Helper()
		wg.Wait()
		for i := range texts {
			if texts[i] == "" || texts[i] != texts[0] {
				t.Fatalf("caller %d got %.100q, caller 0 %.100q", i, texts[i], texts[0])
			}
		}
		return texts[0]
	}
}

func TestCacheBytesCountTheFittedText(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_search_animals", map[string]any{"page_size": 100}).mustOK(t)
	key := cache.Key("search_animals", map[string]any{"page": 0, "page_size": 100, "reverse": false})
	entry, ok := e.gw.cache.Peek(key)
	if !ok {
		t.Fatalf("no entry under %s", key)
	}
	a := entry.Value.(*upstream.Answer)
	if a.Res.Text != r.text {
		t.Error("the cached fit is not the text the caller got")
	}
	if entry.Size < int64(len(a.Raw)+len(a.Res.Text)+len(key)) {
		t.Errorf("entry size %d does not cover %d bytes of JSON and %d of text", entry.Size, len(a.Raw), len(a.Res.Text))
	}
	if got := e.gw.Health().Cache.Bytes; got != entry.Size {
		t.Errorf("cache bytes = %d, want the one entry's %d", got, entry.Size)
	}

	// A profile adds its fitted text as one more entry on top of its parts.
	before := e.gw.Health().Cache
	id := e.up.Data().MostProgeny()
	p := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	pk := cache.Key("search_by_lpn", map[string]any{"lpn_id": id})
	pe, ok := e.gw.cache.Peek(pk)
	if !ok {
		t.Fatalf("no entry under %s", pk)
	}
	if pf := pe.Value.(*sharedFit); pf.res.Text != p.text || pe.Size < int64(len(p.text)+len(pk)) {
		t.Errorf("profile entry of %d bytes for %d bytes of text", pe.Size, len(p.text))
	}
	after := e.gw.Health().Cache
	var parts int64
	for _, k := range []string{
		cache.Key("get_animal_details", map[string]any{"search_string": id}),
		cache.Key("get_lineage", map[string]any{"lpn_id": id}),
		cache.Key("get_progeny", map[string]any{"lpn_id": id, "page": 0, "page_size": 10}),
	} {
		pe, ok := e.gw.cache.Peek(k)
		if !ok {
			t.Fatalf("no part under %s", k)
		}
		parts += pe.Size
	}
	if after.Entries != before.Entries+4 || after.Bytes-before.Bytes != parts+pe.Size {
		t.Errorf("cache went %+v -> %+v; want 4 more entries and %d more bytes", before, after, parts+pe.Size)
	}
}

func TestCachedSummarizedHitAllocatesLikeAPassThrough(t *testing.T) {
	e := newEnv(t)
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_search_animals"
	req.Params.Arguments = map[string]any{"page_size": 100}
	h := e.gw.handler(defByName(t, req.Params.Name))
	ctx := context.Background()
	if res, _ := h(ctx, req); res.IsError || res.Meta.AdditionalFields["summarized"] != true {
		t.Fatalf("warm-up: %+v", res)
	}
	// Re-fitting the page took about 42,000 allocations per hit.
	if n := testing.AllocsPerRun(20, func() { _, _ = h(ctx, req) }); n > 500 {
		t.Errorf("a cached summarized hit makes %v allocations, want at most 500", n)
	}
}

// blockFits makes every fit wait for release, counting those waiting.
func blockFits(g *Gateway) (active *atomic.Int64, peak *atomic.Int64, release func()) {
	active, peak = new(atomic.Int64), new(atomic.Int64)
	gate := make(chan struct{})
	inner := g.fitFunc
	g.fitFunc = func(r summarize.Request) summarize.Result {
		n := active.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-gate
		active.Add(-1)
		return inner(r)
	}
	var once sync.Once
	return active, peak, func() { once.Do(func() { close(gate) }) }
}

// occupyFitSlots fills every fit slot with calls for other animals, held
// until free is called; free also waits for those calls to finish. A call
// held past its deadline ends in timeout, as its fit then stops counting.
func occupyFitSlots(t *testing.T, e *env) (free func()) {
	t.Helper()
	limit := runtime.GOMAXPROCS(0)
	active, _, release := blockFits(e.gw)
	ids := e.up.Data().AnimalIDs()
	var wg sync.WaitGroup
	for i := range limit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := e.call("nsip_get_animal", map[string]any{"search_string": ids[len(ids)-1-i]}); r.isError {
				if b := r.errorBody(t); b.Code != toolerr.CodeTimeout {
					t.Errorf("a call holding a fit slot: %+v, want an answer or timeout", b)
				}
			}
		}()
	}
	var once sync.Once
	free = func() { once.Do(func() { release(); wg.Wait() }) }
	t.Cleanup(free)
	waitFor(t, "the fit slots to fill", func() bool { return active.Load() == int64(limit) })
	return free
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestFitsRunAtMostGOMAXPROCSAtOnce(t *testing.T) {
	e := newEnv(t, withSmallBudget(), withConfig(func(c *Config) { c.MaxConcurrentUpstream = 64 }))
	limit := runtime.GOMAXPROCS(0)
	active, peak, release := blockFits(e.gw)
	defer release()
	ids := e.up.Data().AnimalIDs()
	calls := 3 * limit
	var wg sync.WaitGroup
	texts := make([]string, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts[i] = e.call("nsip_get_animal", map[string]any{"search_string": ids[i]}).mustOK(t).text
		}()
	}
	// Once NSIP has answered every call, all of them want a fit; only limit
	// may be fitting.
	waitFor(t, "every upstream request", func() bool { return e.up.Requests(nsiptest.EndpointDetails) == calls })
	waitFor(t, "the fit slots to fill", func() bool { return active.Load() >= int64(limit) })
	time.Sleep(20 * time.Millisecond) // a fit let through past the bound would show by now
	if n := active.Load(); n != int64(limit) {
		t.Errorf("%d fits running with %d answers waiting, want %d", n, calls, limit)
	}
	release()
	wg.Wait()
	if p := peak.Load(); p != int64(limit) {
		t.Errorf("at most %d fits ran at once, want %d", p, limit)
	}
	for i, text := range texts {
		if !strings.Contains(text, ids[i]) {
			t.Errorf("call %d: answer %.100q is not about %s", i, text, ids[i])
		}
	}
}

func TestAProfileWaitingForAFitHonoursItsContext(t *testing.T) {
	e := newEnv(t, withSmallBudget(), withConfig(func(c *Config) { c.MaxConcurrentUpstream = 64 }))
	id := e.up.Data().MostProgeny()
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t)
	e.call("nsip_get_progeny", map[string]any{"lpn_id": id}).mustOK(t)

	free := occupyFitSlots(t, e)

	// The profile's parts are cached; only its fit has to wait, and the
	// caller gives up while it waits.
	ctx, cancel := context.WithCancel(context.Background())
	req := mcp.CallToolRequest{}
	req.Params.Name = "nsip_search_by_lpn"
	req.Params.Arguments = map[string]any{"lpn_id": id}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := e.gw.handler(toolOf(lookup.SearchByLPN))(ctx, req)
		done <- res
	}()
	waitFor(t, "the profile to wait for its fit", func() bool { return e.gw.fitWaiters.Load() == 1 })
	cancel()
	select {
	case res := <-done:
		tc, _ := mcp.AsTextContent(res.Content[0])
		if !res.IsError || !strings.Contains(tc.Text, `"code":"`+toolerr.CodeCanceled+`"`) || !strings.Contains(tc.Text, "waited to be summarized") {
			t.Errorf("cancelled profile = %s", tc.Text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled call kept waiting for a fit slot")
	}
	free()
	r := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if r.meta["cache"] != "hit" || r.meta["summarized"] != true {
		t.Errorf("profile after the slots freed: meta %v", r.meta)
	}
}

func TestProfileIsFittedAgainWhenAPartChanges(t *testing.T) {
	e := newEnv(t)
	fits := watchFits(e.gw)
	id := e.up.Data().MostProgeny()
	first := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	// Refetching the details (past the TTL) gives a new answer, so the
	// stored profile no longer describes the parts and is not used.
	e.clock.Advance(2 * time.Hour)
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t)
	e.call("nsip_get_progeny", map[string]any{"lpn_id": id}).mustOK(t)
	before := fits.Load()
	second := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if n := fits.Load() - before; n != 1 || second.meta["cache"] != "hit" {
		t.Errorf("profile over refreshed parts: %d fits, cache %v; want 1 fit of cached parts", n, second.meta["cache"])
	}
	if second.text != first.text {
		t.Error("the same upstream data gave a different profile")
	}
	third := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t)
	if n := fits.Load() - before; n != 1 || third.text != first.text {
		t.Errorf("the refitted profile was not reused: %d fits", n)
	}
}

func TestAnAnswerWaitingPastTheDeadlineForAFitIsATimeout(t *testing.T) {
	// The lineage call below waits out this deadline once. Every other
	// call must beat it: those filling the fit slots must reach their
	// fits, NSIP must answer the lineage call, and the last call must be
	// fetched and fitted, each of which a loaded machine can stretch well
	// past a fraction of a second.
	const callTimeout = 5 * time.Second
	e := newEnv(t, withConfig(func(c *Config) { c.CallTimeout = callTimeout; c.MaxConcurrentUpstream = 64 }))
	free := occupyFitSlots(t, e)
	id := e.up.Data().MostProgeny()
	b := e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).errorBody(t)
	if b.Code != toolerr.CodeTimeout || !strings.Contains(b.Problem, "NSIP answered") || !strings.Contains(b.Problem, "("+callTimeout.String()+")") {
		t.Errorf("error = %+v, want %s saying NSIP answered and naming the %s deadline", b, toolerr.CodeTimeout, callTimeout)
	}
	if n := e.up.Requests(nsiptest.EndpointLineage); n != 1 {
		t.Errorf("lineage requests = %d, want 1: NSIP answered, the fit did not start", n)
	}
	free()
	// The unfitted answer was not cached: the next call asks NSIP again.
	if r := e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t); r.meta["cache"] != "miss" {
		t.Errorf("after the timeout: cache = %v, want miss", r.meta["cache"])
	}
}

func TestConcurrentProfilesOverTheSamePartsShareOneFit(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	e.call("nsip_get_animal", map[string]any{"search_string": id}).mustOK(t)
	e.call("nsip_get_lineage", map[string]any{"lpn_id": id}).mustOK(t)
	e.call("nsip_get_progeny", map[string]any{"lpn_id": id}).mustOK(t)
	fits := watchFits(e.gw)
	// Hold the first fit until every caller has arrived.
	active, _, release := blockFits(e.gw)
	const n = 8
	wait := concurrentCalls(t, e, n, "nsip_search_by_lpn", map[string]any{"lpn_id": id})
	// Release the fit only once every caller waits on it: a caller that
	// arrived later would find the fitted profile cached and prove nothing.
	waitFor(t, "every caller to wait on the shared fit", func() bool { return e.gw.fitWaiters.Load() == n })
	if a := active.Load(); a != 1 {
		t.Errorf("%d fits running for %d callers of one profile, want 1", a, n)
	}
	release()
	text := wait()
	if got := fits.Load(); got != 1 {
		t.Errorf("%d callers fitted the profile %d times, want once", n, got)
	}
	if r := e.call("nsip_search_by_lpn", map[string]any{"lpn_id": id}).mustOK(t); r.text != text || fits.Load() != 1 {
		t.Errorf("a later call fitted again: %d fits in all", fits.Load())
	}
}
