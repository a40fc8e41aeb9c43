package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sony/gobreaker"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Where an answer came from, as reported in _meta.cache and the logs.
const (
	cacheHit   = "hit"
	cacheMiss  = "miss"
	cacheStale = "stale"
	// cacheShared is an answer another replica fetched, found in Redis.
	cacheShared = "shared"
)

// answer is what the cache keeps for one key: the upstream answer, which
// profiles are assembled from, and the result fitted from it once when it
// arrived. The budget is fixed per gateway and the key fixes the tool and
// its arguments, so the fit holds for every later hit, stale fallback and
// waiter on the same fetch; re-fitting a 100-row page on each hit cost
// milliseconds of CPU (see specs/benchmarks.md).
type answer struct {
	id    uint64 // tells a refetched answer from the one a profile was fitted on
	value any
	raw   json.RawMessage
	res   summarize.Result

	// structured is the structuredContent of a pass-through answer
	// (structured.go), encoded once when the answer is stored rather than
	// on every hit; nil when the copy is the fitted text or not made.
	structured json.RawMessage

	shared bool // loaded from the replicas' shared tier rather than fetched
	// drift is set when NSIP answered in a shape the client cannot read:
	// raw is then NSIP's JSON as sent and value is nil.
	drift *nsip.Error
}

// kind is the summarizer an answer of tool d takes: the generic one when
// its shape was not recognized.
func (a *answer) kind(d *toolDef) summarize.Kind {
	if a.drift != nil {
		return summarize.KindGeneric
	}
	return d.kind
}

// keepStructured encodes a's structured copy, once, before a is cached
// (so that the cache counts its bytes): a pass-through's is its model,
// which every hit would otherwise encode again. A summary's copy is its
// text, and an answer of an unrecognized shape has no model.
func (a *answer) keepStructured() {
	if a.value == nil || a.drift != nil || a.res.Summarized {
		return
	}
	if b, err := nsip.PlainJSON(a.value); err == nil {
		a.structured = b
	}
}

// note is what _meta says of the answer's shape, if anything.
func (a *answer) note() string {
	if a.drift == nil {
		return ""
	}
	return upstream.FormatNote(a.drift)
}

// size is the bytes an answer under key holds: the upstream JSON, the
// decoded model if it is kept (measured, see heapSize), and the fitted
// text. Undercounting lets the process outgrow the configured bound;
// TestCacheBytesTrackTheHeap and TestCacheBoundHoldsForHostileShapes keep
// the measure honest.
func (a *answer) size(key string) int64 {
	return upstream.HeapSize(a, map[uintptr]bool{}) + int64(len(key)) + entryOverhead
}

// entryOverhead covers the cache's bookkeeping and the fixed fields of an
// entry.
const entryOverhead = 256

// profileFit is an nsip_search_by_lpn result, cached under its own key and
// valid while its three parts are the answers it was assembled from. It
// holds their ids rather than the answers, so that evicting a part frees it.
type profileFit struct {
	parts [3]uint64
	res   summarize.Result
}

// outcome is one call's result before it is rendered.
type outcome struct {
	res         summarize.Result
	source      string // cacheHit, cacheMiss or cacheStale
	staleAge    time.Duration
	staleReason string
	formatNote  string // set when NSIP's answer was in an unrecognized shape
	err         *toolError
	upstream    map[string]any  // an analysis's lookups, as its _meta.upstream
	value       any             // the model of the answer res was fitted from, for structuredContent
	structured  json.RawMessage // value encoded when the answer was cached (answer.structured)
	data        full.Data       // what the answer was made from, for a summary's links
}

// fullLinks adds the links to an answer's complete data to meta and
// returns them as resource links; an answer without data has none.
func (g *Gateway) fullLinks(ctx context.Context, o outcome, meta map[string]any) []mcp.Content {
	if o.data.Build == nil {
		return nil
	}
	l := g.full.Offer(ctx, o.data)
	meta["full"] = l.Meta()
	return l.Content()
}

// cachedData is the complete data of the answers under keys, as long as
// the cache holds those very answers (ids): a link lives as long as the
// cached answer and holds no memory of its own. Several parts are one
// profile.
func (g *Gateway) cachedData(keys []string, ids []uint64) full.Data {
	d := full.Data{Ref: fmt.Sprint(keys, ids), Held: int64(len(keys) * 64)}
	for _, k := range keys {
		d.Held += int64(len(k))
		if e, ok := g.cache.Peek(k); ok {
			if a, ok := e.Value.(*answer); ok {
				d.Size += int64(len(a.raw))
			}
		}
	}
	d.Build = func() (*full.Table, error) {
		as := make([]*answer, len(keys))
		for i, k := range keys {
			e, ok := g.cache.Peek(k)
			if !ok {
				// An answer served stale while NSIP failed is still the
				// one linked, until its link expires.
				if e, ok = g.cache.Stale(k); !ok {
					return nil, full.ErrGone
				}
			}
			a, ok := e.Value.(*answer)
			if !ok || a.id != ids[i] {
				return nil, full.ErrGone
			}
			as[i] = a
		}
		if len(as) == 1 {
			return full.FromAnswer(as[0].value, as[0].raw)()
		}
		obs := make([]obtained, len(as))
		for i, a := range as {
			obs[i].a = a
		}
		return full.FromAnswer(nil, assembleProfile(obs).Raw)()
	}
	return d
}

// handler is the ToolHandlerFunc of tool d. It never returns a Go error:
// every failure a model can act on is an error result.
func (g *Gateway) handler(d *toolDef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var res *mcp.CallToolResult
		// Decoded once, for the choice of route and for the call.
		sent, fe := param.Decode(req)
		if a := percentilesCall(d, sent); a != nil {
			g.withProgress(ctx, req, func() { res = g.analyze(ctx, a, req) })
			return res, nil
		}
		g.withProgress(ctx, req, func() { res = g.callDecoded(ctx, d, req, sent, fe) })
		return res, nil
	}
}

func (g *Gateway) call(ctx context.Context, d *toolDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	sent, fe := param.Decode(req)
	return g.callDecoded(ctx, d, req, sent, fe)
}

// callDecoded is call with req's arguments decoded already (param.Decode).
func (g *Gateway) callDecoded(ctx context.Context, d *toolDef, req mcp.CallToolRequest, sent map[string]any, fe *param.FieldError) *mcp.CallToolResult {
	start := time.Now()
	ctx, _ = withCall(ctx)
	g.stats.calls[d.name].Add(1)

	var args map[string]any
	var errs []param.FieldError
	if fe != nil {
		sent, errs = map[string]any{}, []param.FieldError{*fe}
	} else {
		args, errs = param.ValidateObject("", d.params, sent)
		if len(errs) == 0 && d.breedTraits {
			var fixed map[string]any
			if errs, fixed = g.checkBreedTraits(ctx, args); fixed != nil {
				sent = fixed // the error's example is then a call that works
			}
		}
	}
	if len(errs) > 0 && fe == nil {
		// A choice only the user can make may be asked for (elicit.go).
		if filled, te, asked := g.askMissing(ctx, d, sent, errs); te != nil {
			g.finish(ctx, d, logParams(req), start, outcome{err: te})
			return te.result()
		} else if asked {
			sent = filled
			args, errs = param.ValidateObject("", d.params, sent)
		}
	}
	if len(errs) == 0 {
		errs = g.checkView(args)
	}
	if len(errs) > 0 {
		te := invalidArgs(d, sent, errs)
		g.fixViewExample(te.Example)
		g.finish(ctx, d, logParams(req), start, outcome{err: te})
		return te.result()
	}

	key := viewKey(d, args)
	o := g.runKeyed(ctx, d, key, args)
	g.finish(ctx, d, key[len(d.method)+1:], start, o)
	if o.err != nil {
		return o.err.result()
	}
	// Room for every member fittedResult and a plain hit add.
	meta := make(map[string]any, 8)
	meta["cache"] = o.source
	budget := g.cfg.Budget
	if n, ok := args[argMaxTokens].(int); ok {
		budget = n
	}
	pagingMeta(meta, o.res.Paging)
	if notes := traitNotes(args); len(notes) > 0 {
		meta["notes"] = notes
	}
	if o.source == cacheStale {
		meta["stale_age_seconds"] = int(o.staleAge.Seconds())
		meta["stale_reason"] = o.staleReason
	}
	if o.formatNote != "" {
		meta["shape_recognized"] = false
		meta["format_note"] = o.formatNote
	}
	var links []mcp.Content
	if o.res.Summarized {
		links = g.fullLinks(ctx, o, meta)
	}
	return withStructured(fittedResult(o.res, budget, meta, append(features.ResourceLinks(o.res), links...)...), d, o)
}

// fittedResult is the result of a call whose answer was fitted into budget:
// its text, then more, and in _meta what every tool reports of the fit
// beside the caller's own entries in meta.
func fittedResult(res summarize.Result, budget int, meta map[string]any, more ...mcp.Content) *mcp.CallToolResult {
	meta["tokens"] = res.Tokens
	meta["original_tokens"] = res.OriginalTokens
	meta["summarized"] = res.Summarized
	meta["budget"] = budget
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: meta}},
		Content: append([]mcp.Content{mcp.NewTextContent(res.Text)}, more...),
	}
}

// logParams renders the caller's raw arguments for a log line, bounded.
func logParams(req mcp.CallToolRequest) string {
	s := string(req.Params.RawArguments)
	if s == "" {
		s = param.JSONText(req.Params.Arguments)
	}
	const limit = 256
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// run takes validated arguments through cache, singleflight, breaker, rate
// limit and client, and returns the answer fitted into the budget.
func (g *Gateway) run(ctx context.Context, d *toolDef, args map[string]any) outcome {
	return g.runKeyed(ctx, d, viewKey(d, args), args)
}

// viewKey is the cache key of a call: its tool and the arguments that go
// to NSIP, without those that only choose how the answer is shown.
func viewKey(d *toolDef, args map[string]any) string {
	base, _ := splitView(args)
	return cache.Key(d.method, base)
}

// runKeyed is run for a caller that has built the cache key already.
// An answer asked to be shown in a view of its own (traits, max_tokens,
// skip) is fitted again from the cached upstream answer.
func (g *Gateway) runKeyed(ctx context.Context, d *toolDef, key string, args map[string]any) outcome {
	base, v := splitView(args)
	if d.composite {
		return g.runProfile(ctx, key, base, args, v)
	}
	ob, err := g.obtain(ctx, d, key, base)
	if err != nil {
		return outcome{err: g.mapError(d, args, err)}
	}
	o := outcome{res: ob.a.res, source: ob.source, staleAge: ob.staleAge, staleReason: ob.staleReason, formatNote: ob.a.note(), value: ob.a.value, structured: ob.a.structured}
	if o.res.Summarized || v.set() {
		o.data = g.cachedData([]string{key}, []uint64{ob.a.id})
	}
	if v.set() {
		if o.res, err = g.fitView(ctx, ob.a.kind(d), d, args, v, ob.a.value, ob.a.raw); err != nil {
			return outcome{err: g.mapError(d, args, err)}
		}
	}
	return o
}

// obtained is an upstream answer and how it was come by.
type obtained struct {
	a           *answer
	source      string
	staleAge    time.Duration
	staleReason string
}

// obtain returns the answer for d and args, cached under key, from the
// cache, from a fetch already under way for the same key, from a new fetch,
// or, when NSIP fails, from a stale cache entry.
func (g *Gateway) obtain(ctx context.Context, d *toolDef, key string, args map[string]any) (obtained, error) {
	if e, ok := g.cache.Get(key); ok {
		return obtained{a: e.Value.(*answer), source: cacheHit}, nil
	}
	a, err := g.share(ctx, d, key, args)
	if err == nil {
		if a.shared {
			return obtained{a: a, source: cacheShared}, nil
		}
		return obtained{a: a, source: cacheMiss}, nil
	}
	if servesStale(err) {
		if e, ok := g.cache.Stale(key); ok {
			return obtained{
				a: e.Value.(*answer), source: cacheStale,
				staleAge: g.cfg.Now().Sub(e.Stored), staleReason: g.mapError(d, args, err).Code,
			}, nil
		}
	}
	return obtained{}, err
}

// runProfile answers nsip_search_by_lpn from the same three cache entries
// that nsip_get_animal, nsip_get_lineage and nsip_get_progeny (first page of
// nsip.ProfilePageSize) use, fetching only the parts not cached, at the same
// time. The text is what the client's ByLPN would give:
// {"details":…,"lineage":…,"progeny":…} with each member the upstream body.
// The fitted profile is cached under key and reused while the parts are
// unchanged, as fitting one means counting thousands of tokens.
func (g *Gateway) runProfile(ctx context.Context, key string, args, full map[string]any, v view) outcome {
	// Read with a check rather than decoded from the key as a fetch's
	// arguments are: this runs on every call, hits included.
	id, ok := args["lpn_id"].(string)
	if !ok {
		return outcome{err: g.mapError(searchByLPNDef, args, argsMismatch("lpn_id", fmt.Errorf("lpn_id is %T", args["lpn_id"])))}
	}
	parts := []struct {
		d    *toolDef
		args map[string]any
	}{
		{animalDef, map[string]any{"search_string": id}},
		{lineageDef, map[string]any{"lpn_id": id}},
		{progenyDef, map[string]any{"lpn_id": id, "page": 0, "page_size": nsip.ProfilePageSize}},
	}
	obs := make([]obtained, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs[i], errs[i] = g.obtain(ctx, p.d, cache.Key(p.d.method, p.args), p.args)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return outcome{err: g.mapError(searchByLPNDef, args, err)}
	}
	o := outcome{source: cacheHit, value: profileModel(obs)}
	var ids [3]uint64
	for i, ob := range obs {
		ids[i] = ob.a.id
		if o.formatNote == "" {
			o.formatNote = ob.a.note()
		}
		switch {
		case ob.source == cacheStale:
			o.source = cacheStale
			o.staleAge = max(o.staleAge, ob.staleAge)
			if o.staleReason == "" {
				o.staleReason = ob.staleReason
			}
		case ob.source == cacheMiss && (o.source == cacheHit || o.source == cacheShared):
			o.source = cacheMiss
		case ob.source == cacheShared && o.source == cacheHit:
			o.source = cacheShared
		}
	}
	o.data = g.cachedData([]string{cache.Key(animalDef.method, parts[0].args), cache.Key(lineageDef.method, parts[1].args), cache.Key(progenyDef.method, parts[2].args)}, ids[:])
	if v.set() {
		// A view of its own is fitted for this call alone.
		p := assembleProfile(obs)
		res, err := g.fitView(ctx, profileKind(obs), searchByLPNDef, full, v, p, p.Raw)
		if err != nil {
			return outcome{err: g.mapError(searchByLPNDef, full, err)}
		}
		o.res = res
		return o
	}
	if e, ok := g.cache.Recall(key); ok {
		if pf, ok := e.Value.(*profileFit); ok && pf.parts == ids {
			o.res = pf.res
			return o
		}
	}
	// Callers asking for the same profile over the same parts share one fit.
	flightKey := fmt.Sprintf("%s#%d,%d,%d", key, ids[0], ids[1], ids[2])
	ch := g.flight.DoChan(flightKey, func() (any, error) { return g.fitProfile(key, args, ids, obs) })
	g.fitWaiters.Add(1)
	defer g.fitWaiters.Add(-1)
	select {
	case r := <-ch:
		if r.Err != nil {
			return outcome{err: g.mapError(searchByLPNDef, args, r.Err)}
		}
		o.res = r.Val.(summarize.Result)
		return o
	case <-ctx.Done():
		// Every part is in hand: only the fit was outstanding.
		return outcome{err: g.mapError(searchByLPNDef, args, fmt.Errorf("%w: %w", errFitWait, ctx.Err()))}
	}
}

// fitProfile assembles the profile from its parts, fits it and caches the
// fit under key. Like fetch, it runs on its own deadline.
func (g *Gateway) fitProfile(key string, args map[string]any, ids [3]uint64, obs []obtained) (any, error) {
	p := assembleProfile(obs)
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
	defer cancel()
	res, err := g.fit(ctx, profileKind(obs), searchByLPNDef, args, p, p.Raw)
	if err != nil {
		return nil, err
	}
	// The profile's JSON is not kept, only its fitted text.
	g.cache.Set(key, &profileFit{parts: ids, res: res}, int64(len(res.Text)+len(key)+entryOverhead), res.OriginalTokens)
	return res, nil
}

// profileKind is the summarizer a profile takes: the generic one when a
// part came in a shape the client could not read.
func profileKind(obs []obtained) summarize.Kind {
	for _, ob := range obs {
		if ob.a.drift != nil {
			return summarize.KindGeneric
		}
	}
	return searchByLPNDef.kind
}

// assembleProfile puts a profile together from its three parts.
func assembleProfile(obs []obtained) *nsip.AnimalProfile {
	p := profileModel(obs)
	var raw []byte
	for i, name := range []string{`{"details":`, `,"lineage":`, `,"progeny":`} {
		raw = append(append(raw, name...), obs[i].a.raw...)
	}
	p.Raw = append(raw, '}')
	return p
}

// profileModel is a profile's parts as models, without its upstream JSON.
func profileModel(obs []obtained) *nsip.AnimalProfile {
	var p nsip.AnimalProfile
	p.Details, _ = obs[0].a.value.(*nsip.AnimalDetails)
	p.Lineage, _ = obs[1].a.value.(*nsip.Lineage)
	p.Progeny, _ = obs[2].a.value.(*nsip.ProgenyPage)
	return &p
}

// fetch is the single upstream round trip behind one cache key, and the fit
// of its answer. It runs on its own deadline, so one caller giving up does
// not fail the others; its requests are logged under the call of caller,
// which started it. It waits for session's turn until queue ends, when
// every caller has given up.
func (g *Gateway) fetch(caller, queue context.Context, session, key string, d *toolDef, args map[string]any) (any, error) {
	if e, ok := g.cache.Peek(key); ok { // filled while this call was queueing
		return e.Value.(*answer), nil
	}
	request, err := bindFetch(d, key)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(metrics.WithEndpoint(detachCall(caller), d.method), g.cfg.CallTimeout)
	defer cancel()
	// Another replica's answer, its breaker's news and the right to fetch
	// for all of them, in one round trip to Redis (shared.go).
	lease, got, err := g.claimFetch(ctx, key)
	if got != nil {
		return got, nil
	}
	defer g.unlock(key, lease)
	if err != nil {
		return nil, err
	}
	if g.breaker.State() == gobreaker.StateOpen {
		return nil, errBreakerOpen // fail fast, without spending rate-limit tokens
	}
	if err := g.paused(d); err != nil {
		return nil, err
	}
	turnDone, err := g.turn(ctx, queue, session, key)
	if err != nil {
		return nil, err
	}
	release, err := g.acquire(ctx, d.method)
	if err != nil {
		turnDone()
		return nil, err
	}
	admitted, err := g.breaker.Allow()
	if err != nil {
		release()
		turnDone()
		return nil, errBreakerOpen
	}
	// Every retry the client makes takes a token and a breaker admission
	// of its own, as this first request did (retrygate.go).
	attempts := &attemptBounds{g: g, method: d.method, done: admitted, sent: time.Now()}
	defer func() {
		if attempts.done != nil {
			// Only a panic leaves a request unjudged: a failure, as
			// gobreaker's Execute counted one, so that a half-open breaker
			// is not left waiting for a verdict.
			attempts.done(false)
		}
	}()
	g.stats.upstream.Add(1)
	value, raw, err := request(nsip.WithRetryGate(ctx, attempts.retry), g.up)
	var a *answer
	switch ne := upstream.Unrecognized(err); {
	case ne != nil:
		// NSIP answered; the client could not read it. Pass it on.
		a, err = &answer{id: g.answerIDs.Add(1), raw: ne.Body, drift: ne}, nil
	case err != nil && !attempts.retried:
		err = g.blame(ctx, attempts.sent, err)
	default:
		a = &answer{id: g.answerIDs.Add(1), value: value, raw: raw}
	}
	attempts.settle(err)
	release()
	turnDone()
	if err != nil {
		g.noteThrottle(d, err)
		return nil, err
	}
	g.stats.lastSuccess.Store(time.Now().UnixNano())
	if a.drift != nil {
		g.noteDrift(a.drift)
	} else if err := wrongAnimal(d, args, a.value); err != nil {
		return nil, err
	}
	// Waiting for a fit slot counts against the fetch's deadline like
	// waiting for NSIP does; an answer that cannot be fitted in time is
	// dropped rather than held while the queue drains.
	if a.res, err = g.fit(ctx, a.kind(d), d, args, a.value, a.raw); err != nil {
		return nil, err
	}
	g.noteIgnored(d, a.res.Paging)
	a.keepStructured()
	g.cache.Set(key, a, a.size(key), a.res.OriginalTokens)
	lease.done = g.toShared(ctx, key, lease.token, a)
	return a, nil
}

// fit applies the token budget to an upstream answer. Fitting is CPU work,
// so at most GOMAXPROCS fits run at once and a burst of large answers waits
// its turn rather than every fit slowing every other; the wait ends, with
// ctx's error, if ctx is done first.
func (g *Gateway) fit(ctx context.Context, kind summarize.Kind, d *toolDef, args map[string]any, value any, raw json.RawMessage) (summarize.Result, error) {
	return g.fitRequest(ctx, summarize.Request{
		Kind:   kind,
		Value:  value,
		Raw:    raw,
		Tool:   d.name,
		Args:   args,
		Budget: g.cfg.Budget,
	})
}

// fitRequest runs one fit when a fit slot is free.
func (g *Gateway) fitRequest(ctx context.Context, req summarize.Request) (summarize.Result, error) {
	if err := g.fitSlots.Acquire(ctx, 1); err != nil {
		return summarize.Result{}, fmt.Errorf("%w: %w", errFitWait, err)
	}
	defer g.fitSlots.Release(1)
	deadline, _ := ctx.Deadline()
	req.Deadline = deadline
	res := g.fitFunc(req)
	if ctx.Err() != nil || (!deadline.IsZero() && !time.Now().Before(deadline)) {
		// The fit stopped counting at the deadline: its result is not the
		// answer's, and is neither served nor cached.
		return summarize.Result{}, fmt.Errorf("%w: %w", errFitWait, context.DeadlineExceeded)
	}
	return res, nil
}

// acquire waits for a rate-limit token for one upstream request to method
// and counts the request in flight; the caller holds a turn, which is its
// connection (fair.go). When the wait would outlast ctx's deadline it
// refuses at once with how long to wait instead.
func (g *Gateway) acquire(ctx context.Context, method string) (release func(), err error) {
	if err := g.takeToken(ctx, method); err != nil {
		return nil, err
	}
	// The connection itself is the turn the caller holds (fair.go).
	g.inFlight.Add(1)
	return func() { g.inFlight.Add(-1) }, nil
}

// takeToken waits for one rate-limit token, the shared one and the local
// one, for a request to method; a wait that would outlast ctx's deadline
// is refused at once with how long to wait instead.
func (g *Gateway) takeToken(ctx context.Context, method string) error {
	start := time.Now()
	if err := g.sharedTurn(ctx, method); err != nil {
		return err
	}
	now := time.Now()
	r := g.limiter.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
			r.CancelAt(now)
			return &rateLimitError{retryAfter: wait, reason: fmt.Sprintf("limit of %g requests per second", g.cfg.RateLimit)}
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			r.Cancel()
			return ctx.Err()
		}
	}
	g.tokens.Add(1)
	g.cfg.Metrics.RateLimitWait(method, time.Since(start))
	return nil
}

// withProgress runs work, and while it runs past each ProgressInterval sends
// the caller a notifications/progress, if the request asked for progress.
// All notifications are sent before withProgress returns, hence before the
// result.
func (g *Gateway) withProgress(ctx context.Context, req mcp.CallToolRequest, work func()) {
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	srv := server.ServerFromContext(ctx)
	if token == nil || srv == nil {
		work()
		return
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		t := time.NewTicker(g.cfg.ProgressInterval)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-t.C:
				err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token,
					"progress":      n,
					"message":       fmt.Sprintf("waiting for NSIP: %.0f s so far", time.Since(start).Seconds()),
				})
				if err != nil {
					g.log.Debug("progress notification not sent", slog.String("error", err.Error()))
				}
			}
		}
	}()
	work()
	close(stop)
	wg.Wait()
}

// finish counts and logs one call.
func (g *Gateway) finish(ctx context.Context, d *toolDef, params string, start time.Time, o outcome) {
	status, level := "ok", slog.LevelInfo
	if o.err != nil && o.err.input != nil {
		status = codeInputRequired // not an error: the call is made again with the answer
	} else if o.err != nil {
		status, level = o.err.Code, slog.LevelWarn
		if o.err.Code == CodeInvalidArgument || o.err.Code == CodeNotFound {
			level = slog.LevelInfo // the caller's mistake, not the server's
		}
		g.stats.errors[o.err.Code].Add(1)
	} else if o.res.Summarized {
		g.stats.summarized(o.res.Tokens, o.res.OriginalTokens)
	}
	g.cfg.Metrics.ToolCall(d.name, status, o.source, time.Since(start))
	if !g.log.Enabled(ctx, level) {
		return // the line's attributes are not built for nothing
	}
	attrs := []slog.Attr{
		slog.String("tool", d.name),
		slog.String("method", d.method),
		slog.String("params", params),
		slog.String("status", status),
		slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
	}
	attrs = append(attrs, g.callAttrs(ctx, o)...)
	if o.err == nil {
		attrs = append(attrs,
			slog.String("cache", o.source),
			slog.Int("tokens", o.res.Tokens),
			slog.Int("original_tokens", o.res.OriginalTokens),
			slog.Bool("summarized", o.res.Summarized),
		)
	} else {
		attrs = append(attrs, slog.String("error", o.err.Problem))
		if o.err.Field != "" {
			attrs = append(attrs, slog.String("field", o.err.Field))
		}
	}
	g.log.LogAttrs(ctx, level, "tool call", attrs...)
}
