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

// answer is what the cache keeps: the upstream answer, not its rendering,
// so that each hit is fitted afresh (the rendering depends on the budget).
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
// limit and client.
func (g *Gateway) run(ctx context.Context, d *toolDef, args map[string]any) outcome {
	key := cache.Key(d.method, args)
	if e, ok := g.cache.Get(key); ok {
		return g.fromEntry(d, args, e, cacheHit)
	}
	ch := g.flight.DoChan(key, func() (any, error) { return g.fetch(key, d, args) })
	var err error
	select {
	case r := <-ch:
		if r.Err == nil {
			return outcome{res: r.Val.(summarize.Result), source: cacheMiss}
		}
		err = r.Err
	case <-ctx.Done():
		// The shared fetch carries on and fills the cache for the next call.
		err = ctx.Err()
	}
	te := g.mapError(d, args, err)
	if servesStale(err) {
		if e, ok := g.cache.Stale(key); ok {
			o := g.fromEntry(d, args, e, cacheStale)
			o.staleAge = g.cfg.Now().Sub(e.Stored)
			o.staleReason = te.Code
			return o
		}
	}
	return outcome{err: te}
}

// fromEntry fits a cached answer into the budget.
func (g *Gateway) fromEntry(d *toolDef, args map[string]any, e cache.Entry, source string) outcome {
	return outcome{res: g.fit(d, args, e.Value.(*answer), e.Tokens), source: source}
}

// fetch is the single upstream round trip behind one cache key. It runs on
// its own deadline, so one caller giving up does not fail the others.
func (g *Gateway) fetch(key string, d *toolDef, args map[string]any) (any, error) {
	if e, ok := g.cache.Peek(key); ok { // filled while this call was queueing
		return g.fit(d, args, e.Value.(*answer), e.Tokens), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
	defer cancel()

	if g.breaker.State() == gobreaker.StateOpen {
		return nil, errBreakerOpen // fail fast, without spending rate-limit tokens
	}
	release, err := g.acquire(ctx, d.cost)
	if err != nil {
		return nil, err
	}
	v, err := g.breaker.Execute(func() (any, error) {
		g.stats.upstream.Add(int64(d.cost))
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
	return res, nil
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

// acquire waits for rate-limit tokens and a concurrency slot for cost
// upstream requests. When the wait would outlast ctx's deadline it refuses at
// once with how long to wait instead.
func (g *Gateway) acquire(ctx context.Context, cost int) (release func(), err error) {
	now := time.Now()
	if until := time.Unix(0, g.backoffUntil.Load()); now.Before(until) {
		return nil, &rateLimitError{retryAfter: until.Sub(now), reason: "NSIP asked us to wait"}
	}
	r := g.limiter.ReserveN(now, min(cost, g.cfg.RateBurst))
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
	slots := int64(min(cost, g.cfg.MaxConcurrentUpstream))
	if err := g.slots.Acquire(ctx, slots); err != nil {
		return nil, &rateLimitError{retryAfter: time.Second, reason: fmt.Sprintf("all %d NSIP connections busy", g.cfg.MaxConcurrentUpstream)}
	}
	g.inFlight.Add(int64(cost))
	return func() {
		g.inFlight.Add(-int64(cost))
		g.slots.Release(slots)
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
