package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/source"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

// Reading NSIP through the cache and the upstream pool, and fitting what
// it answers to the budget: the steps below every tool's run.

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
	if ob.Source == upstream.SourceHit {
		o.From = toolcall.Held{Key: r.Key, Answer: ob.A}
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
// its place. NSIP's answer to a fresh read sent within window stands for
// now, reported as cached: it was not asked of NSIP for this call.
func (g *Gateway) obtainFresh(window time.Duration) source.Obtain {
	return func(ctx context.Context, r lookup.Read) (toolcall.Obtained, error) {
		a, source, err := g.pool.Fresh(ctx, g.lookup(ctx, r), window)
		return toolcall.Obtained{A: a, Source: source}, err
	}
}

// lookup is what the pool needs to obtain the answer of r: its fetch,
// bound only when one is made, and the checks and fit of what NSIP
// answers, fitted as the default view is (the one the cache holds).
func (g *Gateway) lookup(ctx context.Context, r lookup.Read) upstream.Request {
	return upstream.Request{
		Method: r.Def.Method, Key: r.Key, Caller: string(caller.Client(ctx)), Sent: sentOf(ctx),
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

// nsip are NSIP's reads through the cache and the upstream pool, as the
// server's own checks and lists make them.
func (g *Gateway) nsip() source.Reads { return source.Reads{Obtain: g.obtain, Fresh: g.obtainFresh(0)} }

// readList is one of NSIP's lists read through the cache, the breaker and
// the rate limit. A completion or a check is a convenience: when NSIP
// cannot answer, it has nothing rather than fail.
func readList[T any](ctx context.Context, g *Gateway, read func(source.Reads, context.Context) (*T, error)) (*T, bool) {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.CallTimeout)
	defer cancel()
	v, err := read(g.nsip(), ctx)
	if err != nil {
		g.log.Debug("completion without upstream data", "list", fmt.Sprintf("%T", v), "error", err.Error())
		return nil, false
	}
	return v, v != nil
}

// probe asks for the last-update date through the pipeline, for Ready.
func (g *Gateway) probe(ctx context.Context) error {
	var stale string
	reads := source.Reads{Obtain: func(ctx context.Context, r lookup.Read) (toolcall.Obtained, error) {
		ob, err := g.obtain(ctx, r)
		if err == nil && ob.Source == cacheStale {
			stale = ob.StaleReason
		}
		return ob, err
	}}
	switch _, err := reads.LastUpdate(ctx, false); {
	case err != nil:
		return errors.New(g.mapAbout(toolerr.About{}, param.Sent{}, err).Problem)
	case stale != "":
		return fmt.Errorf("NSIP is failing (%s); only stale answers are available", stale)
	}
	return nil
}

// Ready reports whether NSIP can be reached. An upstream success within
// ReadyMaxAge is enough; otherwise it asks for the last-update date through
// the pipeline (so a cached answer counts, and the breaker and rate limit
// apply). The error says why the gateway is not ready, or, as a
// *DegradedError, why it serves without the replicas' shared state.
func (g *Gateway) Ready(ctx context.Context) error {
	r := g.reporter()
	r.Probe = g.probe
	return r.Ready(ctx)
}
