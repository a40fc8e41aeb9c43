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

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
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
func answerKind(a *upstream.Answer, d *toolDef) summarize.Kind {
	if a.Drift != nil {
		return summarize.KindGeneric
	}
	return d.kind
}

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
	structured  json.RawMessage // value encoded when the answer was cached (upstream.Answer.Structured)
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

func (g *Gateway) call(ctx context.Context, d *toolDef, req mcp.CallToolRequest) *mcp.CallToolResult {
	start := time.Now()
	sent, fe := param.Decode(req)
	ctx = calllog.With(ctx)
	g.stats.calls[d.name].Add(1)

	var args map[string]any
	var errs []param.FieldError
	if fe != nil {
		sent, errs = map[string]any{}, []param.FieldError{*fe}
	} else {
		args, errs = param.ValidateObject("", d.args.Specs, sent)
		if len(errs) == 0 && d.breedTraits {
			var fixed map[string]any
			if errs, fixed = g.checkBreedTraits(ctx, args); fixed != nil {
				sent = fixed // the error's example is then a call that works
			}
		}
	}
	if len(errs) > 0 && fe == nil {
		// A choice only the user can make may be asked for (gateway/elicit).
		if filled, te, asked := g.askMissing(ctx, d, sent, errs); te != nil {
			g.finish(ctx, d, logParams(req), start, outcome{err: te})
			return te.result()
		} else if asked {
			sent = filled
			args, errs = param.ValidateObject("", d.args.Specs, sent)
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
	if a := percentilesCall(d, args); a != nil {
		return g.runAnalysis(ctx, a, req, start, sent, args)
	}

	key := d.key(args)
	o := g.runKeyed(ctx, d, key, args)
	if te := g.checkEmptySearch(ctx, d, sent, args, o); te != nil {
		o = outcome{err: te}
	} else if o.err != nil && o.err.Code == CodeNotFound && d == traitRangesDef {
		if b, ok := args[d.subject].(int); ok {
			if te := g.unknownBreed(ctx, d.subject, b, param.Example(d.args.Specs, sent)); te != nil {
				o.err = te
			}
		}
	}
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
	return g.runKeyed(ctx, d, d.key(args), args)
}

// runKeyed is run for a caller that has built the cache key already.
// An answer asked to be shown in a view of its own (traits, max_tokens,
// skip) is fitted again from the cached upstream answer.
func (g *Gateway) runKeyed(ctx context.Context, d *toolDef, key string, args map[string]any) outcome {
	base, v := d.splitView(args)
	if d.composite {
		return g.runProfile(ctx, key, base, args, v)
	}
	ob, err := g.obtain(ctx, d, key, base)
	if err != nil {
		return outcome{err: g.mapError(d, args, err)}
	}
	o := outcome{res: ob.a.Res, source: ob.source, staleAge: ob.staleAge, staleReason: ob.staleReason, formatNote: ob.a.Note(), value: ob.a.Value, structured: ob.a.Structured}
	if o.res.Summarized || v.set() {
		o.data = g.cachedData([]string{key}, []uint64{ob.a.ID})
	}
	if v.set() {
		if o.res, err = g.fitView(ctx, answerKind(ob.a, d), d, args, v, ob.a.Value, ob.a.Raw); err != nil {
			return outcome{err: g.mapError(d, args, err)}
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

// obtain returns the answer for d and args, cached under key, from the
// upstream pool (the cache, a fetch already under way for the same key,
// another replica or a new fetch) or, when NSIP fails, from a stale cache
// entry.
func (g *Gateway) obtain(ctx context.Context, d *toolDef, key string, args map[string]any) (obtained, error) {
	a, source, err := g.pool.Obtain(ctx, key, func() upstream.Request { return g.lookup(ctx, d, key, args) })
	if err == nil {
		return obtained{a: a, source: source}, nil
	}
	if servesStale(err) {
		if e, ok := g.cache.Stale(key); ok {
			return obtained{
				a: e.Value.(*upstream.Answer), source: cacheStale,
				staleAge: g.cfg.Now().Sub(e.Stored), staleReason: g.mapError(d, args, err).Code,
			}, nil
		}
	}
	return obtained{}, err
}

// obtainFresh is obtain for an answer that must be NSIP's as of now: it is
// fetched whatever the cache holds (upstream.Pool.Fresh) and cached for
// the calls after it, and a failure is the caller's, with no stale copy in
// its place.
func (g *Gateway) obtainFresh(ctx context.Context, d *toolDef, key string, args map[string]any) (obtained, error) {
	a, err := g.pool.Fresh(ctx, g.lookup(ctx, d, key, args))
	if err != nil {
		return obtained{}, err
	}
	return obtained{a: a, source: cacheMiss}, nil
}

// lookup is what the pool needs to obtain the answer of tool d for args,
// cached under key: its fetch, bound only when one is made, and the checks
// and fit of what NSIP answers.
func (g *Gateway) lookup(ctx context.Context, d *toolDef, key string, args map[string]any) upstream.Request {
	return upstream.Request{
		Method: d.method, Key: key, Caller: string(caller.Client(ctx)),
		Bind: func() (upstream.Fetch, error) {
			request, err := bindFetch(d, key)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) (any, json.RawMessage, error) { return request(ctx, g.up) }, nil
		},
		Prepare: func(ctx context.Context, a *upstream.Answer) error {
			if a.Drift == nil {
				if err := wrongAnimal(d, args, a.Value); err != nil {
					return err
				}
			}
			var err error
			if a.Res, err = g.fit(ctx, answerKind(a, d), d, args, a.Value, a.Raw); err != nil {
				return err
			}
			g.noteIgnored(d, a.Res.Paging)
			return nil
		},
	}
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
		ids[i] = ob.a.ID
		if o.formatNote == "" {
			o.formatNote = ob.a.Note()
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
	g.cache.Set(key, &profileFit{parts: ids, res: res}, int64(len(res.Text)+len(key)+upstream.EntryOverhead), res.OriginalTokens)
	return res, nil
}

// profileKind is the summarizer a profile takes: the generic one when a
// part came in a shape the client could not read.
func profileKind(obs []obtained) summarize.Kind {
	for _, ob := range obs {
		if ob.a.Drift != nil {
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
		raw = append(append(raw, name...), obs[i].a.Raw...)
	}
	p.Raw = append(raw, '}')
	return p
}

// profileModel is a profile's parts as models, without its upstream JSON.
func profileModel(obs []obtained) *nsip.AnimalProfile {
	var p nsip.AnimalProfile
	p.Details, _ = obs[0].a.Value.(*nsip.AnimalDetails)
	p.Lineage, _ = obs[1].a.Value.(*nsip.Lineage)
	p.Progeny, _ = obs[2].a.Value.(*nsip.ProgenyPage)
	return &p
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
