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

// outcome is one call's result before it is rendered.
type outcome struct {
	res         summarize.Result
	source      string // cacheHit, cacheMiss or cacheStale
	staleAge    time.Duration
	staleReason string
	formatNote  string // set when NSIP's answer was in an unrecognized shape
	err         *toolerr.Error
	upstream    *calllog.Reads  // an analysis's lookups, as its _meta.upstream
	value       any             // the model of the answer res was fitted from, for structuredContent
	structured  json.RawMessage // value encoded when the answer was cached (upstream.Answer.Structured)
	data        full.Data       // what the answer was made from, for a summary's links
}

// fullLinks adds the links to an answer's complete data to meta and
// returns them as resource links; an answer without data has none.
func (g *Gateway) fullLinks(ctx context.Context, o outcome, meta *resultMeta) []mcp.Content {
	if o.data.Build == nil {
		return nil
	}
	l := g.full.Offer(ctx, o.data)
	fm := l.Meta()
	meta.full = &fm
	return l.Content()
}

// cachedData is the complete data of the answers under keys, as the
// cache holds those very answers (ids) when the links are given: the
// store encodes it then and keeps it, so the link outlives the answer's
// eviction. Several parts are one profile.
func (g *Gateway) cachedData(keys []string, ids []uint64) full.Data {
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
		if len(as) == 1 {
			return full.FromAnswer(as[0].Value, as[0].Raw)()
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
		g.withProgress(ctx, req, func() { res = g.call(ctx, d, req) })
		return res, nil
	}
}

// A toolCall is one call's arguments once decoded and validated, as every
// step of the call path reads them.
type toolCall struct {
	// sent are the arguments as the caller sent them (or as the user
	// completed them when asked): an error's example starts from them.
	sent param.Sent
	// args are the validated arguments, the view's among them: read by
	// the summarizer and named by errors; the key is made of them less
	// the view's (lookup.Def.Read).
	args param.Valid
	// view is how the caller asked to see the answer.
	view view
}

// call is every tool's call path, lookups and analyses alike: decode and
// validate the arguments once, then run the analysis or the lookup, which
// fit the answer to the budget, add its structured copy and log the call.
func (g *Gateway) call(ctx context.Context, d *toolDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	ctx = calllog.With(ctx)
	g.stats.Called(d.Name)
	c, te := g.arguments(ctx, d, req)
	if te != nil {
		g.finish(ctx, d.Def, logParams(req), start, outcome{err: te})
		return te.Result()
	}
	if a := d.analysisOf(c); a != nil {
		return g.runAnalysis(ctx, a, req, start, c)
	}
	return g.lookupCall(ctx, d, start, c)
}

// arguments decodes and validates a call's arguments. A problem is the
// error the call answers with.
func (g *Gateway) arguments(ctx context.Context, d *toolDef, req mcp.CallToolRequest) (toolCall, *toolerr.Error) {
	sent, fe := param.Decode(req)
	if fe != nil {
		return toolCall{}, g.invalidArgs(d, sent, []param.FieldError{*fe})
	}
	args, errs := d.Args.Validate(sent)
	if len(errs) == 0 && d.lookup != nil && d.lookup.BreedTraits {
		if errs, fixes := g.checkBreedTraits(ctx, args); len(errs) > 0 {
			// The example is the call as validated with the breed's codes
			// in place of the unknown ones: a call that works.
			ex := d.example(args.Sent())
			ex.Apply(fixes...)
			return toolCall{}, g.withExample(toolerr.InvalidArgs(ex, errs))
		}
	}
	switch {
	case len(errs) == 0:
	case d.analysis != nil:
		if elicit.LeftToAsk(ctx, d.analysis.Def, sent, errs) {
			errs = nil // left to the analysis, which asks its user (gateway/elicit)
		}
	default:
		// A choice only the user can make may be asked for (gateway/elicit).
		filled, te, asked := g.askMissing(ctx, d, sent, errs)
		if te != nil {
			return toolCall{}, te
		}
		if asked {
			sent = filled
			args, errs = d.Args.Validate(sent)
		}
	}
	c := toolCall{sent: sent, args: args}
	if len(errs) == 0 {
		c.view = viewOf(&d.Args, args)
		errs = g.checkView(c)
	}
	if len(errs) > 0 {
		return toolCall{}, g.invalidArgs(d, sent, errs)
	}
	return c, nil
}

// lookupCall answers a lookup from the cache or NSIP.
func (g *Gateway) lookupCall(ctx context.Context, d *toolDef, start time.Time, c toolCall) *mcp.CallToolResult {
	r := d.lookup.Read(c.args)
	o := g.runKeyed(ctx, r, c)
	if te := g.checkEmptySearch(ctx, d.lookup, c, o); te != nil {
		o = outcome{err: te}
	} else if o.err != nil && o.err.Code == toolerr.CodeNotFound && d.lookup == lookup.TraitRanges {
		if b, ok := c.args.Int(d.Subject); ok {
			if te := g.unknownBreed(ctx, d.Subject, b, param.Example(d.Args.Specs, c.sent)); te != nil {
				o.err = te
			}
		}
	}
	g.finish(ctx, d.Def, r.Key[len(d.Method)+1:], start, o)
	if o.err != nil {
		return o.err.Result()
	}
	meta := resultMeta{cache: o.source, paging: o.res.Paging, notes: traitNotes(c.view), format: o.formatNote,
		stale: o.source == cacheStale, staleAge: int(o.staleAge.Seconds()), why: o.staleReason}
	budget := g.cfg.Budget
	if c.view.budget > 0 {
		budget = c.view.budget
	}
	var links []mcp.Content
	if o.res.Summarized {
		links = g.fullLinks(ctx, o, &meta)
	}
	return withStructured(fittedResult(o.res, budget, &meta, append(features.ResourceLinks(o.res), links...)...), d.Def, o)
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

// runKeyed takes the lookup r of call c through cache, singleflight,
// breaker, rate limit and client, and returns the answer fitted into the
// budget. An answer asked to be shown in a view of its own (traits,
// max_tokens, skip) is fitted again from the cached upstream answer.
func (g *Gateway) runKeyed(ctx context.Context, r lookup.Read, c toolCall) outcome {
	d := r.Def
	if d.Composite {
		return g.runProfile(ctx, r, c)
	}
	ob, err := g.obtain(ctx, r)
	if err != nil {
		return outcome{err: g.mapError(&d.Def, c.args, err)}
	}
	o := outcome{res: ob.a.Res, source: ob.source, staleAge: ob.staleAge, staleReason: ob.staleReason, formatNote: ob.a.Note(), value: ob.a.Value, structured: ob.a.Structured}
	if o.res.Summarized || c.view.set() {
		o.data = g.cachedData([]string{r.Key}, []uint64{ob.a.ID})
	}
	if c.view.set() {
		if o.res, err = g.fit(ctx, answerKind(ob.a, d), d.Name, c, ob.a.Value, ob.a.Raw); err != nil {
			return outcome{err: g.mapError(&d.Def, c.args, err)}
		}
		o.structured = nil // the copy kept is of the cached answer, not of this view of it
	}
	return o
}

// obtained is an upstream answer and how it was come by.
type obtained struct {
	a           *upstream.Answer
	source      string
	staleAge    time.Duration
	staleReason string
}

// obtain returns the answer of the lookup r from the upstream pool (the
// cache, a fetch already under way for the same key, another replica or
// a new fetch) or, when NSIP fails, from a stale cache entry.
func (g *Gateway) obtain(ctx context.Context, r lookup.Read) (obtained, error) {
	a, source, err := g.pool.Obtain(ctx, r.Key, func() upstream.Request { return g.lookup(ctx, r) })
	if err == nil {
		return obtained{a: a, source: source}, nil
	}
	if toolerr.ServesStale(err) {
		if e, ok := g.cache.Stale(r.Key); ok {
			return obtained{
				a: e.Value.(*upstream.Answer), source: cacheStale,
				staleAge: g.cfg.Now().Sub(e.Stored), staleReason: g.mapError(&r.Def.Def, r.Args, err).Code,
			}, nil
		}
	}
	return obtained{}, err
}

// obtainFresh is obtain for an answer that must be NSIP's as of now: it is
// fetched whatever the cache holds (upstream.Pool.Fresh) and cached for
// the calls after it, and a failure is the caller's, with no stale copy in
// its place.
func (g *Gateway) obtainFresh(ctx context.Context, r lookup.Read) (obtained, error) {
	a, err := g.pool.Fresh(ctx, g.lookup(ctx, r))
	if err != nil {
		return obtained{}, err
	}
	return obtained{a: a, source: cacheMiss}, nil
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
			if a.Res, err = g.fit(ctx, answerKind(a, r.Def), r.Def.Name, toolCall{args: r.Args}, a.Value, a.Raw); err != nil {
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
func (g *Gateway) fit(ctx context.Context, kind summarize.Kind, tool string, c toolCall, value any, raw json.RawMessage) (summarize.Result, error) {
	req := summarize.Request{
		Kind: kind, Value: value, Raw: raw, Tool: tool, Args: c.args.Members(),
		Budget: g.cfg.Budget, Traits: c.view.traits, Skip: c.view.skip,
	}
	if c.view.budget > 0 {
		req.Budget, req.Requested = c.view.budget, true
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
func (g *Gateway) finish(ctx context.Context, d *tooldef.Def, params string, start time.Time, o outcome) {
	status, level := "ok", slog.LevelInfo
	if o.err != nil && o.err.Input != nil {
		status = codeInputRequired // not an error: the call is made again with the answer
	} else if o.err != nil {
		status, level = o.err.Code, slog.LevelWarn
		if o.err.Code == toolerr.CodeInvalidArgument || o.err.Code == toolerr.CodeNotFound {
			level = slog.LevelInfo // the caller's mistake, not the server's
		}
		g.stats.Failed(o.err.Code)
	} else if o.res.Summarized {
		g.stats.Summarized(o.res.Tokens, o.res.OriginalTokens)
	}
	g.cfg.Metrics.ToolCall(d.Name, status, o.source, time.Since(start))
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
	attrs = append(attrs, calllog.Attrs(ctx, o.upstream)...)
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
