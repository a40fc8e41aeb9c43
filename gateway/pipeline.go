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
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Where an answer came from, as reported in _meta.cache and the logs.
const (
	cacheHit   = "hit"
	cacheMiss  = "miss"
	cacheStale = "stale"
)

// answer is what the cache keeps: the upstream answer, not its rendering.
// Profiles are assembled from cached parts, stale fallbacks are fitted like
// fresh ones, and fitting on each hit costs far less than the request it
// saves (see specs/benchmarks.md).
type answer struct {
	value any
	raw   json.RawMessage
}

// outcome is one call's result before it is rendered.
type outcome struct {
	res         summarize.Result
	source      string // cacheHit, cacheMiss or cacheStale
	staleAge    time.Duration
	staleReason string
	err         *toolError
}

// handler is the ToolHandlerFunc of tool d. It never returns a Go error:
// every failure a model can act on is an error result.
func (g *Gateway) handler(d *toolDef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var res *mcp.CallToolResult
		g.withProgress(ctx, req, func() { res = g.call(ctx, d, req) })
		return res, nil
	}
}

func (g *Gateway) call(ctx context.Context, d *toolDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	g.stats.calls[d.name].Add(1)

	sent, fe := decodeArguments(req)
	var args map[string]any
	var errs []fieldError
	if fe != nil {
		sent, errs = map[string]any{}, []fieldError{*fe}
	} else {
		args, errs = validateObject("", d.params, sent)
	}
	if len(errs) > 0 {
		te := invalidArgs(d, sent, errs)
		g.finish(ctx, d, logParams(req), start, outcome{err: te})
		return te.result()
	}

	o := g.run(ctx, d, args)
	g.finish(ctx, d, cache.Key(d.method, args)[len(d.method)+1:], start, o)
	if o.err != nil {
		return o.err.result()
	}
	meta := map[string]any{
		"tokens":          o.res.Tokens,
		"original_tokens": o.res.OriginalTokens,
		"summarized":      o.res.Summarized,
		"cache":           o.source,
		"budget":          g.cfg.Budget,
	}
	if o.source == cacheStale {
		meta["stale_age_seconds"] = int(o.staleAge.Seconds())
		meta["stale_reason"] = o.staleReason
	}
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: meta}},
		Content: []mcp.Content{mcp.NewTextContent(o.res.Text)},
	}
}

// logParams renders the caller's raw arguments for a log line, bounded.
func logParams(req mcp.CallToolRequest) string {
	s := string(req.Params.RawArguments)
	if s == "" {
		s = jsonText(req.Params.Arguments)
	}
	const limit = 256
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// run takes validated arguments through cache, singleflight, breaker, rate
// limit and client, and fits the answer into the budget.
func (g *Gateway) run(ctx context.Context, d *toolDef, args map[string]any) outcome {
	if d.composite {
		return g.runProfile(ctx, args)
	}
	ob, err := g.obtain(ctx, d, args)
	if err != nil {
		return outcome{err: g.mapError(d, args, err)}
	}
	o := outcome{source: ob.source, staleAge: ob.staleAge, staleReason: ob.staleReason}
	if ob.res != nil {
		o.res = *ob.res
	} else {
		o.res = g.fit(d, args, ob.a, ob.tokens)
	}
	return o
}

// obtained is an upstream answer and how it was come by.
type obtained struct {
	a           *answer
	tokens      int               // of the upstream answer; 0 if not yet counted
	res         *summarize.Result // already fitted by the shared fetch, or nil
	source      string
	staleAge    time.Duration
	staleReason string
}

// shared is what one upstream fetch hands to everyone waiting on it.
type shared struct {
	a   *answer
	res summarize.Result
}

// obtain returns the answer for d and args from the cache, from a fetch
// already under way for the same key, from a new fetch, or, when NSIP
// fails, from a stale cache entry.
func (g *Gateway) obtain(ctx context.Context, d *toolDef, args map[string]any) (obtained, error) {
	key := cache.Key(d.method, args)
	if e, ok := g.cache.Get(key); ok {
		return obtained{a: e.Value.(*answer), tokens: e.Tokens, source: cacheHit}, nil
	}
	ch := g.flight.DoChan(key, func() (any, error) { return g.fetch(key, d, args) })
	var err error
	select {
	case r := <-ch:
		if r.Err == nil {
			f := r.Val.(*shared)
			return obtained{a: f.a, tokens: f.res.OriginalTokens, res: &f.res, source: cacheMiss}, nil
		}
		err = r.Err
	case <-ctx.Done():
		// The shared fetch carries on and fills the cache for the next call.
		err = ctx.Err()
	}
	if servesStale(err) {
		if e, ok := g.cache.Stale(key); ok {
			return obtained{
				a: e.Value.(*answer), tokens: e.Tokens, source: cacheStale,
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
func (g *Gateway) runProfile(ctx context.Context, args map[string]any) outcome {
	id := args["lpn_id"].(string)
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
			obs[i], errs[i] = g.obtain(ctx, p.d, p.args)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return outcome{err: g.mapError(searchByLPNDef, args, err)}
	}
	o := outcome{source: cacheHit}
	var p nsip.AnimalProfile
	p.Details, _ = obs[0].a.value.(*nsip.AnimalDetails)
	p.Lineage, _ = obs[1].a.value.(*nsip.Lineage)
	p.Progeny, _ = obs[2].a.value.(*nsip.ProgenyPage)
	var raw []byte
	for i, name := range []string{`{"details":`, `,"lineage":`, `,"progeny":`} {
		raw = append(append(raw, name...), obs[i].a.raw...)
		switch {
		case obs[i].source == cacheStale:
			o.source = cacheStale
			o.staleAge = max(o.staleAge, obs[i].staleAge)
			if o.staleReason == "" {
				o.staleReason = obs[i].staleReason
			}
		case obs[i].source == cacheMiss && o.source == cacheHit:
			o.source = cacheMiss
		}
	}
	p.Raw = append(raw, '}')
	o.res = g.fit(searchByLPNDef, args, &answer{value: &p, raw: p.Raw}, 0)
	return o
}

// fetch is the single upstream round trip behind one cache key. It runs on
// its own deadline, so one caller giving up does not fail the others.
func (g *Gateway) fetch(key string, d *toolDef, args map[string]any) (any, error) {
	if e, ok := g.cache.Peek(key); ok { // filled while this call was queueing
		a := e.Value.(*answer)
		return &shared{a: a, res: g.fit(d, args, a, e.Tokens)}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
	defer cancel()

	if g.breaker.State() == gobreaker.StateOpen {
		return nil, errBreakerOpen // fail fast, without spending rate-limit tokens
	}
	release, err := g.acquire(ctx)
	if err != nil {
		return nil, err
	}
	v, err := g.breaker.Execute(func() (any, error) {
		g.stats.upstream.Add(1)
		value, raw, err := d.fetch(ctx, g.up, args)
		if err != nil {
			return nil, err
		}
		return &answer{value: value, raw: raw}, nil
	})
	release()
	if err != nil {
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			return nil, errBreakerOpen
		}
		g.noteThrottle(err)
		return nil, err
	}
	g.stats.lastSuccess.Store(time.Now().UnixNano())
	a := v.(*answer)
	res := g.fit(d, args, a, 0)
	// The decoded model costs about as much memory as its JSON again.
	g.cache.Set(key, a, int64(2*len(a.raw)+len(key)+256), res.OriginalTokens)
	return &shared{a: a, res: res}, nil
}

// fit applies the token budget to an upstream answer.
func (g *Gateway) fit(d *toolDef, args map[string]any, a *answer, tokens int) summarize.Result {
	return g.sum.Fit(summarize.Request{
		Kind:           d.kind,
		Value:          a.value,
		Raw:            a.raw,
		OriginalTokens: tokens,
		Tool:           d.name,
		Args:           args,
		Budget:         g.cfg.Budget,
	})
}

// noteThrottle makes every call wait out a 429's Retry-After, so that NSIP
// sees no further requests until then.
func (g *Gateway) noteThrottle(err error) {
	var ne *nsip.Error
	if errors.As(err, &ne) && ne.Kind == nsip.KindRateLimited {
		wait := max(ne.RetryAfter, time.Second)
		g.backoffUntil.Store(time.Now().Add(wait).UnixNano())
	}
}

// acquire waits for a rate-limit token and a concurrency slot for one
// upstream request. When the wait would outlast ctx's deadline it refuses at
// once with how long to wait instead.
func (g *Gateway) acquire(ctx context.Context) (release func(), err error) {
	now := time.Now()
	if until := time.Unix(0, g.backoffUntil.Load()); now.Before(until) {
		return nil, &rateLimitError{retryAfter: until.Sub(now), reason: "NSIP asked us to wait"}
	}
	r := g.limiter.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
			r.CancelAt(now)
			return nil, &rateLimitError{retryAfter: wait, reason: fmt.Sprintf("limit of %g requests per second", g.cfg.RateLimit)}
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			r.Cancel()
			return nil, ctx.Err()
		}
	}
	if err := g.slots.Acquire(ctx, 1); err != nil {
		return nil, &rateLimitError{retryAfter: time.Second, reason: fmt.Sprintf("all %d NSIP connections busy", g.cfg.MaxConcurrentUpstream)}
	}
	g.inFlight.Add(1)
	return func() {
		g.inFlight.Add(-1)
		g.slots.Release(1)
	}, nil
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
	if o.err != nil {
		status, level = o.err.Code, slog.LevelWarn
		if o.err.Code == CodeInvalidArgument || o.err.Code == CodeNotFound {
			level = slog.LevelInfo // the caller's mistake, not the server's
		}
		g.stats.errors[o.err.Code].Add(1)
	} else if o.res.Summarized {
		g.stats.summarized(o.res.Tokens, o.res.OriginalTokens)
	}
	attrs := []slog.Attr{
		slog.String("tool", d.name),
		slog.String("method", d.method),
		slog.String("params", params),
		slog.String("status", status),
		slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
	}
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
