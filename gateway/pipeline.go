package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/elicit"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Where an answer came from, as reported in _meta.cache and the logs.
const (
	cacheHit    = upstream.SourceHit
	cacheMiss   = upstream.SourceMiss
	cacheStale  = upstream.SourceStale
	cacheShared = upstream.SourceShared
)

// answerKind is the summarizer an answer of tool d takes: the generic one
// when its shape was not recognized.
func answerKind(a *upstream.Answer, d *lookup.Def) summarize.Kind {
	if a.Drift != nil {
		return summarize.KindGeneric
	}
	return d.Kind
}

// fullLinks adds the links to an answer's complete data to meta and
// returns them as resource links; an answer without data has none.
func (g *Gateway) fullLinks(ctx context.Context, o toolcall.Outcome, meta *resultMeta) []mcp.Content {
	if o.Data.Build == nil {
		return nil
	}
	l := g.full.Offer(ctx, o.Data)
	fm := l.Meta()
	meta.full = &fm
	return l.Content()
}

// cachedData is the complete data of the answers under keys, as the
// cache holds those very answers (ids) when the links are given: the
// store encodes it then and keeps it, so the link outlives the answer's
// eviction. join makes one answer of several.
func (g *Gateway) cachedData(keys []string, ids []uint64, join func([]*upstream.Answer) json.RawMessage) full.Data {
	d := full.Data{Ref: fmt.Sprint(keys, ids)}
	for _, k := range keys {
		if e, ok := g.cache.Peek(k); ok {
			if a, ok := e.Value.(*upstream.Answer); ok {
				d.Size += int64(len(a.Raw))
			}
		}
	}
	d.Build = func() (*full.Table, error) {
		as := make([]*upstream.Answer, len(keys))
		for i, k := range keys {
			e, ok := g.cache.Peek(k)
			if !ok {
				// An answer served stale while NSIP failed is the one
				// the summary was made from.
				if e, ok = g.cache.Stale(k); !ok {
					return nil, full.ErrGone
				}
			}
			a, ok := e.Value.(*upstream.Answer)
			if !ok || a.ID != ids[i] {
				return nil, full.ErrGone
			}
			as[i] = a
		}
		if join == nil {
			return full.FromAnswer(as[0].Value, as[0].Raw)()
		}
		return full.FromAnswer(nil, join(as))()
	}
	return d
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

// call is every tool's call path: decode and validate the arguments once,
// then run the tool over the call's source of NSIP reads, render what it
// answers and log the call.
func (g *Gateway) call(ctx context.Context, d *toolDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	ctx = calllog.With(ctx)
	g.stats.Called(d.Name)
	c, te := g.arguments(ctx, d, req)
	if te != nil {
		g.finish(ctx, d.Def, logParams(req), start, toolcall.Failed(te))
		return te.Result()
	}
	o := d.run(ctx, c, &callSource{g: g, tool: d})
	params := o.Params
	if params == "" {
		params = logParams(req)
	}
	g.finish(ctx, d.Def, params, start, o)
	return g.render(ctx, d.Def, c, o)
}

// arguments decodes and validates a call's arguments. A problem is the
// error the call answers with.
func (g *Gateway) arguments(ctx context.Context, d *toolDef, req mcp.CallToolRequest) (toolcall.Call, *toolerr.Error) {
	sent, fe := param.Decode(req)
	if fe != nil {
		return toolcall.Call{}, g.invalidArgs(d, sent, []param.FieldError{*fe})
	}
	args, errs := d.Args.Validate(sent)
	if len(errs) == 0 && d.breedTraits {
		if errs, fixes := g.checkBreedTraits(ctx, args); len(errs) > 0 {
			// The example is the call as validated with the breed's codes
			// in place of the unknown ones: a call that works.
			ex := d.example(args.Sent())
			ex.Apply(fixes...)
			return toolcall.Call{}, g.withExample(toolerr.InvalidArgs(ex, errs))
		}
	}
	switch {
	case len(errs) == 0:
	case d.asksInRun:
		if elicit.LeftToAsk(ctx, d.analysis.Def, sent, errs) {
			errs = nil // left to the run, which asks its user (gateway/elicit)
		}
	default:
		// A choice only the user can make may be asked for (gateway/elicit).
		filled, te, asked := g.askMissing(ctx, d, sent, errs)
		if te != nil {
			return toolcall.Call{}, te
		}
		if asked {
			sent = filled
			args, errs = d.Args.Validate(sent)
		}
	}
	c := toolcall.Call{Sent: sent, Args: args}
	if len(errs) == 0 {
		c.View = viewOf(&d.Args, args)
		errs = g.checkView(c)
	}
	if len(errs) > 0 {
		return toolcall.Call{}, g.invalidArgs(d, sent, errs)
	}
	return c, nil
}

// render is the result of a call of d that answered o: its text, the
// links to its complete data, and in _meta what the answer reports.
func (g *Gateway) render(ctx context.Context, d *tooldef.Def, c toolcall.Call, o toolcall.Outcome) *mcp.CallToolResult {
	if o.Err != nil {
		return o.Err.Result()
	}
	meta := resultMeta{cache: o.Cache, upstream: o.Upstream, paging: o.Res.Paging, notes: traitNotes(c.View), format: o.FormatNote,
		stale: o.Source == cacheStale, staleAge: int(o.StaleAge.Seconds()), why: o.StaleReason}
	budget := g.cfg.Budget
	if c.View.Budget > 0 {
		budget = c.View.Budget
	}
	var links []mcp.Content
	if o.PageLinks {
		links = features.ResourceLinks(o.Res)
	}
	links = append(links, g.fullLinks(ctx, o, &meta)...)
	return withStructured(fittedResult(o.Res, budget, &meta, links...), d, o)
}

// fittedResult is the result of a call whose answer was fitted into budget:
// its text, then more, and in _meta what every tool reports of the fit
// beside the caller's own entries in meta.
func fittedResult(res summarize.Result, budget int, meta *resultMeta, more ...mcp.Content) *mcp.CallToolResult {
	meta.fit, meta.budget = res, budget
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: meta.fields()}},
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

// pass takes the lookup r of call c through cache, singleflight,
// breaker, rate limit and client, and returns the answer fitted into the
// budget. An answer asked to be shown in a view of its own (traits,
// max_tokens, skip) is fitted again from the cached upstream answer.
func (g *Gateway) pass(ctx context.Context, r lookup.Read, c toolcall.Call) toolcall.Outcome {
	d := r.Def
	params := r.Key[len(d.Method)+1:]
	ob, err := g.obtain(ctx, r)
	if err != nil {
		return toolcall.Outcome{Err: g.mapError(&d.Def, c.Args, err), Params: params}
	}
	o := toolcall.Outcome{Res: ob.A.Res, Source: ob.Source, Cache: ob.Source, StaleAge: ob.StaleAge, StaleReason: ob.StaleReason,
		FormatNote: ob.A.Note(), Value: ob.A.Value, Structured: ob.A.Structured, PageLinks: true, Params: params}
	if c.View.Set() {
		if o.Res, err = g.fit(ctx, answerKind(ob.A, d), d.Name, c, ob.A.Value, ob.A.Raw); err != nil {
			return toolcall.Outcome{Err: g.mapError(&d.Def, c.Args, err), Params: params}
		}
		o.Structured = nil // the copy kept is of the cached answer, not of this view of it
	}
	if o.Res.Summarized {
		o.Data = g.cachedData([]string{r.Key}, []uint64{ob.A.ID}, nil)
	}
	return o
}

// obtain returns the answer of the lookup r from the upstream pool (the
// cache, a fetch already under way for the same key, another replica or
// a new fetch) or, when NSIP fails, from a stale cache entry.
func (g *Gateway) obtain(ctx context.Context, r lookup.Read) (toolcall.Obtained, error) {
	a, source, err := g.pool.Obtain(ctx, r.Key, func() upstream.Request { return g.lookup(ctx, r) })
	if err == nil {
		return toolcall.Obtained{A: a, Source: source}, nil
	}
	if toolerr.ServesStale(err) {
		if e, ok := g.cache.Stale(r.Key); ok {
			return toolcall.Obtained{
				A: e.Value.(*upstream.Answer), Source: cacheStale,
				StaleAge: g.cfg.Now().Sub(e.Stored), StaleReason: g.mapError(&r.Def.Def, r.Args, err).Code,
			}, nil
		}
	}
	return toolcall.Obtained{}, err
}

// obtainFresh is obtain for an answer that must be NSIP's as of now: it is
// fetched whatever the cache holds (upstream.Pool.Fresh) and cached for
// the calls after it, and a failure is the caller's, with no stale copy in
// its place.
func (g *Gateway) obtainFresh(ctx context.Context, r lookup.Read) (toolcall.Obtained, error) {
	a, err := g.pool.Fresh(ctx, g.lookup(ctx, r))
	if err != nil {
		return toolcall.Obtained{}, err
	}
	return toolcall.Obtained{A: a, Source: cacheMiss}, nil
}

// lookup is what the pool needs to obtain the answer of r: its fetch,
// bound only when one is made, and the checks and fit of what NSIP
// answers, fitted as the default view is (the one the cache holds).
func (g *Gateway) lookup(ctx context.Context, r lookup.Read) upstream.Request {
	return upstream.Request{
		Method: r.Def.Method, Key: r.Key, Caller: string(caller.Client(ctx)),
		Bind: func() (upstream.Fetch, error) {
			request, err := r.Def.Bind(r.Key)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) (any, json.RawMessage, error) { return request(ctx, g.up) }, nil
		},
		Prepare: func(ctx context.Context, a *upstream.Answer) error {
			if a.Drift == nil {
				if err := lookup.WrongAnimal(r.Args, a.Value); err != nil {
					return err
				}
			}
			var err error
			if a.Res, err = g.fit(ctx, answerKind(a, r.Def), r.Def.Name, toolcall.Call{Args: r.Args}, a.Value, a.Raw); err != nil {
				return err
			}
			g.noteIgnored(r.Def, a.Res.Paging)
			return nil
		},
	}
}

// fit applies the token budget to an answer of tool for call c, in the
// view c asked for (none: the default fit, which the cache holds). Fitting
// is CPU work, so at most GOMAXPROCS fits run at once and a burst of large
// answers waits its turn rather than every fit slowing every other; the
// wait ends, with ctx's error, if ctx is done first.
func (g *Gateway) fit(ctx context.Context, kind summarize.Kind, tool string, c toolcall.Call, value any, raw json.RawMessage) (summarize.Result, error) {
	req := summarize.Request{
		Kind: kind, Value: value, Raw: raw, Tool: tool, Args: c.Args.Members(),
		Budget: g.cfg.Budget, Traits: c.View.Traits, Skip: c.View.Skip,
	}
	if c.View.Budget > 0 {
		req.Budget, req.Requested = c.View.Budget, true
	}
	return g.fitRequest(ctx, req)
}

// fitRequest runs one fit when a fit slot is free.
func (g *Gateway) fitRequest(ctx context.Context, req summarize.Request) (summarize.Result, error) {
	if err := g.fitSlots.Acquire(ctx, 1); err != nil {
		return summarize.Result{}, fmt.Errorf("%w: %w", toolerr.ErrFitWait, err)
	}
	defer g.fitSlots.Release(1)
	deadline, _ := ctx.Deadline()
	req.Deadline = deadline
	res := g.fitFunc(req)
	if ctx.Err() != nil || (!deadline.IsZero() && !time.Now().Before(deadline)) {
		// The fit stopped counting at the deadline: its result is not the
		// answer's, and is neither served nor cached.
		return summarize.Result{}, fmt.Errorf("%w: %w", toolerr.ErrFitWait, context.DeadlineExceeded)
	}
	return res, nil
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
func (g *Gateway) finish(ctx context.Context, d *tooldef.Def, params string, start time.Time, o toolcall.Outcome) {
	status, level := "ok", slog.LevelInfo
	if o.Err != nil && o.Err.Input != nil {
		status = codeInputRequired // not an error: the call is made again with the answer
	} else if o.Err != nil {
		status, level = o.Err.Code, slog.LevelWarn
		if o.Err.Code == toolerr.CodeInvalidArgument || o.Err.Code == toolerr.CodeNotFound {
			level = slog.LevelInfo // the caller's mistake, not the server's
		}
		g.stats.Failed(o.Err.Code)
	} else if o.Res.Summarized {
		g.stats.Summarized(o.Res.Tokens, o.Res.OriginalTokens)
	}
	g.cfg.Metrics.ToolCall(d.Name, status, o.Source, time.Since(start))
	if !g.log.Enabled(ctx, level) {
		return // the line's attributes are not built for nothing
	}
	attrs := []slog.Attr{
		slog.String("tool", d.Name),
		slog.String("method", d.Method),
		slog.String("params", params),
		slog.String("status", status),
		slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
	}
	attrs = append(attrs, calllog.Attrs(ctx, o.Reads)...)
	if o.Err == nil {
		attrs = append(attrs,
			slog.String("cache", o.Source),
			slog.Int("tokens", o.Res.Tokens),
			slog.Int("original_tokens", o.Res.OriginalTokens),
			slog.Bool("summarized", o.Res.Summarized),
		)
	} else {
		attrs = append(attrs, slog.String("error", o.Err.Problem))
		if o.Err.Field != "" {
			attrs = append(attrs, slog.String("field", o.Err.Field))
		}
	}
	g.log.LogAttrs(ctx, level, "tool call", attrs...)
}
