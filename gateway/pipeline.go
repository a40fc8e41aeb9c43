package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/argcheck"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/elicit"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/session"
	"github.com/nsip-tools/nsip-mcp/gateway/structured"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// fullLinks adds the links to an answer's complete data to meta and
// returns them as resource links; an answer without data has none.
func (g *Gateway) fullLinks(ctx context.Context, o toolcall.Outcome, meta *toolcall.Meta) []mcp.Content {
	if o.Data.Build == nil {
		return nil
	}
	l := g.full.Offer(ctx, o.Data)
	fm := l.Meta()
	meta.Full = &fm
	return l.Content()
}

// call is every tool's call path: decode and validate the arguments once,
// then run the tool over the call's source of NSIP reads, render what it
// answers and log the call.
func (g *Gateway) call(ctx context.Context, d *toolDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	ctx = calllog.With(ctx)
	kept := g.memos[d.index].Get(req.Params.RawArguments)
	if res := g.answerAgain(ctx, d, req, kept, start); res != nil {
		return res
	}
	g.stats.Called(d.Name)
	c, kept, te := g.arguments(ctx, d, req, kept)
	if te != nil {
		g.finish(ctx, d.Def, logParams(req), start, toolcall.Failed(te))
		return te.Result()
	}
	o := d.run(ctx, c, &g.sources[d.index])
	if o.Params == "" {
		o.Params = logParams(req)
	}
	g.finish(ctx, d.Def, o.Params, start, o)
	res := g.render(ctx, d.Def, c, o)
	if o.From.Answer != nil && o.Err == nil && o.Data.Build == nil && req.Params.Task == nil {
		// Kept as rendered; mcp-go may set fields of the copy it is handed.
		keep := *res
		kept.Answer(&toolcall.Answered{From: o.From, Outcome: o, Result: &keep})
	}
	return res
}

// answerAgain answers a call whose argument text was read before (kept)
// and whose answer came from one cached answer the cache still holds:
// the same result, without reading and rendering it again, counted and
// logged like any call. It is nil for any other call, and for a task,
// whose result is read later.
func (g *Gateway) answerAgain(ctx context.Context, d *toolDef, req mcp.CallToolRequest, kept *toolcall.Kept, start time.Time) *mcp.CallToolResult {
	a := kept.Answered()
	if a == nil || req.Params.Task != nil || !g.pool.Holds(a.From.Key, a.From.Answer) {
		return nil
	}
	g.stats.Called(d.Name)
	g.finish(ctx, d.Def, a.Outcome.Params, start, a.Outcome)
	res := *a.Result
	return &res
}

// answerKept is a tool middleware, outside the session's record of running
// calls, the forms and the progress notes: a call answerAgain answers
// finishes at once and needs none of them. Without structured content
// (NSIP_STRUCTURED off) every call takes the handlers, which strip it.
func (g *Gateway) answerKept(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if g.cfg.NoStructured || argcheck.Rerouted(req) || req.Params.Task != nil {
			return next(ctx, req)
		}
		d := toolNamed(req.Params.Name)
		if d == nil || !g.offersToolset(d.Toolset) {
			return next(ctx, req)
		}
		kept := g.memos[d.index].Get(req.Params.RawArguments)
		if kept.Answered() == nil {
			return next(ctx, req)
		}
		start := time.Now()
		if g.log.Enabled(ctx, slog.LevelInfo) {
			ctx = calllog.With(ctx) // the call's ID, for its log line
		}
		if res := g.answerAgain(ctx, d, req, kept, start); res != nil {
			return res, nil
		}
		return next(ctx, req)
	}
}

// arguments decodes and validates a call's arguments, unless they were
// read before (kept). A problem is the error the call answers with.
func (g *Gateway) arguments(ctx context.Context, d *toolDef, req mcp.CallToolRequest, kept *toolcall.Kept) (toolcall.Call, *toolcall.Kept, *toolerr.Error) {
	if kept != nil {
		return kept.Call, kept, nil
	}
	sent, fe := param.Decode(req)
	if fe != nil {
		return toolcall.Call{}, nil, g.invalidArgs(d, sent, []param.FieldError{*fe})
	}
	var read []string
	if breedText(sent, d.breedPaths) {
		var errs []param.FieldError
		if sent, read, errs = g.breeds().ReadNames(ctx, sent, d.breedPaths); len(errs) > 0 {
			return toolcall.Call{}, nil, g.invalidArgs(d, sent, errs)
		}
	}
	args, errs := d.Args.Validate(sent)
	clean := len(errs) == 0 // nothing asked of the user, nothing left to the run
	if len(errs) == 0 && d.breedTraits {
		// A trait in words the breed publishes under another code is that
		// code (argcheck.Breeds.ReadForBreed).
		if again, reads := g.breeds().ReadForBreed(ctx, sent, args); reads != nil {
			sent, read = again, append(read, reads...)
			args, errs = d.Args.Validate(sent)
		}
	}
	if len(errs) == 0 && d.breedTraits {
		if errs, fixes := g.checkBreedTraits(ctx, args); len(errs) > 0 {
			// The example is the call as validated with the breed's codes
			// in place of the unknown ones: a call that works.
			ex := d.example(args.Sent())
			ex.Apply(fixes...)
			return toolcall.Call{}, nil, g.withExample(toolerr.InvalidArgs(ex, errs))
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
			return toolcall.Call{}, nil, te
		}
		if asked {
			sent = filled
			args, errs = d.Args.Validate(sent)
		}
	}
	c := toolcall.Call{Sent: sent, Args: args}
	if len(errs) == 0 {
		c.Read = append(read, argcheck.Readings(sent, args)...)
		c.View = viewOf(&d.Args, args)
		errs = g.checkView(c)
	}
	if len(errs) > 0 {
		return toolcall.Call{}, nil, g.invalidArgs(d, sent, errs)
	}
	if te := g.checkStatus(ctx, d, args); te != nil {
		return toolcall.Call{}, nil, te
	}
	if read == nil && !d.breedTraits && !argcheck.NamesStatus(args) && clean {
		// Read from its text alone, so the same text reads the same.
		return c, g.memos[d.index].Put(req.Params.RawArguments, c), nil
	}
	return c, nil, nil
}

// breedText reports whether sent gives a breed ID at one of paths as
// text, a name or a number, which the breed list reads.
func breedText(sent param.Sent, paths []string) bool {
	for _, p := range paths {
		if v, _ := sent.Value(p); v != nil {
			if _, ok := v.(string); ok {
				return true
			}
		}
	}
	return false
}

// render is the result of a call of d that answered o: its text, the
// links to its complete data, and in _meta what the answer reports.
func (g *Gateway) render(ctx context.Context, d *tooldef.Def, c toolcall.Call, o toolcall.Outcome) *mcp.CallToolResult {
	if o.Err != nil {
		return o.Err.Result()
	}
	meta := toolcall.Meta{Cache: o.Cache, Upstream: o.Upstream, Paging: o.Res.Paging, Read: c.Read, Notes: append(traitNotes(c.View), argcheck.StatusNotes(c.Args)...), Format: o.FormatNote,
		Stale: o.Source == cacheStale, StaleAge: int(o.StaleAge.Seconds()), Why: o.StaleReason}
	budget := g.cfg.Budget
	if c.View.Budget > 0 {
		budget = c.View.Budget
	}
	var links []mcp.Content
	if o.PageLinks {
		links = features.ResourceLinks(o.Res)
	}
	links = append(links, g.fullLinks(ctx, o, &meta)...)
	return withStructured(toolcall.Fitted(o.Res, budget, &meta, links...), d, o)
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

// handler is the ToolHandlerFunc of tool d. It never returns a Go error:
// every failure a model can act on is an error result.
func (g *Gateway) handler(d *toolDef) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var res *mcp.CallToolResult
		session.Progress(ctx, req, g.cfg.ProgressInterval, g.log, func() { res = g.call(ctx, d, req) })
		return res, nil
	}
}

// Every tool declares an output schema and returns its answer a second
// time as structuredContent (gateway/structured); here are the tool
// table's parts of them.

// structuredOrNot is tools as served: with Config.NoStructured, without
// output schemas, and their results without structuredContent.
func (g *Gateway) structuredOrNot(tools []server.ServerTool) []server.ServerTool {
	if !g.cfg.NoStructured {
		return tools
	}
	return structured.Strip(tools)
}

// withStructured adds the structured copy of a successful lookup answer to
// res: the copy kept with a cached answer, or one written now from its
// text or, for a bare list, its model (structured.Copy).
func withStructured(res *mcp.CallToolResult, d *tooldef.Def, o toolcall.Outcome) *mcp.CallToolResult {
	if o.Structured != nil {
		res.RawStructuredContent = o.Structured // kept when cached, or an analysis's own JSON
		return res
	}
	var model any
	if o.FormatNote == "" {
		model = o.Value
	}
	if b := structured.Copy(d.Kind, o.Res.Text, o.Res.IsObject(), model); b != nil {
		res.RawStructuredContent = b
	}
	return res
}

// callSource is one call's way to NSIP, as its tool's run reads through it
// (lookup.Source): the cache, the upstream pool behind it, the fit to the
// budget, and the wording of errors under the tool's name.
type callSource struct {
	g    *Gateway
	tool *toolDef
}

var _ lookup.Source = (*callSource)(nil)

func (s *callSource) Pass(ctx context.Context, r lookup.Read, c toolcall.Call) toolcall.Outcome {
	return s.g.pass(ctx, r, c)
}

func (s *callSource) Obtain(ctx context.Context, r lookup.Read) (toolcall.Obtained, error) {
	return s.g.obtain(ctx, r)
}

func (s *callSource) Fit(ctx context.Context, kind summarize.Kind, c toolcall.Call, value any, raw json.RawMessage) (summarize.Result, error) {
	return s.g.fit(ctx, kind, s.tool.Name, c, value, raw)
}

func (s *callSource) Data(keys []string, ids []uint64, join func([]*upstream.Answer) json.RawMessage) full.Data {
	return s.g.cachedData(keys, ids, join)
}

func (s *callSource) MapError(args param.Valid, err error) *toolerr.Error {
	return s.g.mapError(s.tool.Def, args, err)
}

func (s *callSource) UnknownBreed(ctx context.Context, field string, breed int, example *param.Call) *toolerr.Error {
	return s.g.unknownBreed(ctx, field, breed, example)
}

// Analyze runs the tool's analysis; a tool without one has no call that
// asks for it.
func (s *callSource) Analyze(ctx context.Context, c toolcall.Call) toolcall.Outcome {
	if s.tool.analysis == nil {
		return toolcall.Failed(&toolerr.Error{Code: toolerr.CodeUpstreamError, Problem: "internal: " + s.tool.Name + " has no analysis to run"})
	}
	return s.g.runAnalysis(ctx, s.tool.analysis, c)
}

// sharedFit is a fit made from several cached answers (an
// nsip_search_by_lpn profile), cached under its own key and valid while
// those are the answers it was made from. It holds their ids rather than
// the answers, so that evicting one frees it.
type sharedFit struct {
	ids []uint64
	res summarize.Result
}

// FitOnce returns the fit cached under key while ids are the answers it
// was made from; otherwise callers asking for the same fit over the same
// answers share one, made on its own deadline as a fetch is, and cached.
func (s *callSource) FitOnce(ctx context.Context, key string, ids []uint64, fit func(context.Context) (summarize.Result, error)) (summarize.Result, error) {
	g := s.g
	if e, ok := g.cache.Recall(key); ok {
		if sf, ok := e.Value.(*sharedFit); ok && slices.Equal(sf.ids, ids) {
			return sf.res, nil
		}
	}
	ch := g.flight.DoChan(fmt.Sprint(key, "#", ids), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
		defer cancel()
		res, err := fit(ctx)
		if err != nil {
			return nil, err
		}
		// The answers' JSON is not kept, only the fitted text.
		g.cache.Set(key, &sharedFit{ids: ids, res: res}, int64(len(res.Text)+len(key)+upstream.EntryOverhead), res.OriginalTokens)
		return res, nil
	})
	g.fitWaiters.Add(1)
	defer g.fitWaiters.Add(-1)
	select {
	case r := <-ch:
		if r.Err != nil {
			return summarize.Result{}, r.Err
		}
		return r.Val.(summarize.Result), nil
	case <-ctx.Done():
		// Every answer is in hand: only the fit was outstanding.
		return summarize.Result{}, fmt.Errorf("%w: %w", toolerr.ErrFitWait, ctx.Err())
	}
}
