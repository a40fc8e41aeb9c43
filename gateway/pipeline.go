package gateway

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/elicit"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

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
