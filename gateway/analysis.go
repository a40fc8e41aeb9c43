package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/finite"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/structured"
	"github.com/nsip-tools/nsip-mcp/gateway/tasks"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// An analysisEntry is an analysis as the gateway serves it: its definition
// and the tool entry the call path logs, fits and maps errors under. Each
// answer it reads goes through the same path as the lookups (cache,
// collapse, breaker, rate limit), the number it may read is capped per call,
// and the result is fitted into the token budget like theirs.
type analysisEntry struct {
	*analysis.Def
	tool *toolDef
}

// analysisDefs are the analyses served as tools of their own, in the order
// tools/list shows them. Each lives in its own package under analysis;
// this list is where they meet.
var analysisDefs = []*analysis.Def{mating.CheckMating, compare.Compare, rank.Rank, flock.FlockSummary, plan.PlanMatings}

// analyses are the analysis tools, in the order tools/list shows them.
var analyses = func() []*analysisEntry {
	out := make([]*analysisEntry, len(analysisDefs))
	for i, d := range analysisDefs {
		out[i] = &analysisEntry{Def: d, tool: &toolDef{Def: &d.Def}}
		out[i].tool.analysis = out[i]
	}
	return out
}()

func (g *Gateway) analysisTool(a *analysisEntry) server.ServerTool {
	st := g.serverTool(a.tool)
	st.Tool.RawOutputSchema = structured.Analysis(a.Def)
	// Long analyses may be run as MCP tasks (protocol 2025-11-25): the
	// client gets a task at once, polls it, and may cancel it; the task is
	// its creator's alone (gateway/tasks).
	st.Tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	st.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t, err := tasks.Of(req)
		if err != nil {
			return (&toolerr.Error{Code: toolerr.CodeInvalidArgument, Field: "task", Problem: err.Error()}).Result(), nil
		}
		if t != nil {
			// The task's own context: the creating request's ends as soon
			// as the task is returned, tasks/cancel, the task's expiry and
			// shutdown end this one, and the analysis's next lookup stops.
			var done func()
			ctx, done = g.tasks.Start(ctx, t)
			defer done()
			defer g.cfg.Metrics.TaskStarted(a.Name)()
		}
		var res *mcp.CallToolResult
		g.withProgress(ctx, req, func() { res = g.call(ctx, a.tool, req) })
		return res, nil
	}
	return st
}

// lookups is one analysis call's access to NSIP, its analysis.Source:
// every lookup goes through the gateway's call path and is counted against
// the tool's ceiling.
type lookups struct {
	g       *Gateway
	def     *analysisEntry
	call    toolCall
	slots   chan struct{} // lookups under way at once
	mu      sync.Mutex
	lookups int
	fetched int
	stale   int
	// The call's time limit (AnalysisTimeout, by default CallTimeout as
	// for every call): no lookup
	// starts once the gateway's clock (Config.Now) reaches soft, and
	// lookups under way are abandoned at hard, the same instant on the
	// wall clock; either way the analysis meets analysis.ErrTimeLimit and
	// answers with what it has read.
	soft     time.Time
	hard     time.Time
	timedOut bool
	ignored  finite.Ignored // absurd values the models left out
	// checked is the last answer overBudget encoded and fitted, which the
	// answer usually is: analyze then reuses the fit rather than counting
	// its tokens again.
	checked struct {
		body []byte
		res  summarize.Result
	}
}

// parallel is how many lookups one analysis has under way at once: as
// many as NSIP connections (NSIP_MAX_CONCURRENT), which the upstream pool
// shares fairly with other calls and paces by the rate limit.
func (g *Gateway) analysisParallel() int { return max(1, g.cfg.MaxConcurrentUpstream) }

// Parallel tells the analysis how many of its lookups may be under way at
// once, so that it starts no more independent ones than run.
func (r *lookups) Parallel() int { return cap(r.slots) }

// TimeLeft is how long the call may still start lookups, by which an
// analysis judges whether a long read fits (a breed's pass).
func (r *lookups) TimeLeft() time.Duration { return r.soft.Sub(r.g.cfg.Now()) }

// RateLimit is the upstream's rate limit, which a breed pass's pages wait
// for however fast NSIP answers.
func (r *lookups) RateLimit() (perSecond float64, burst int) {
	return r.g.cfg.RateLimit, r.g.cfg.RateBurst
}

// get reads one upstream answer through the pipeline, as tool d would
// with the typed arguments a, d's own argument struct: lookup.Def.Keyed
// validates them as d's own calls are, so that they share its cache
// entries.
func (r *lookups) get(ctx context.Context, d *lookup.Def, a any) (any, error) {
	rd, err := d.Keyed(a)
	if err != nil {
		return nil, err
	}
	return r.read(ctx, func(ctx context.Context) (obtained, error) { return r.g.obtain(ctx, rd) })
}

// getFresh is get for an answer that must be NSIP's as of now rather
// than the cache's (obtainFresh); it counts as one lookup like any other.
func (r *lookups) getFresh(ctx context.Context, d *lookup.Def, a any) (any, error) {
	rd, err := d.Keyed(a)
	if err != nil {
		return nil, err
	}
	return r.read(ctx, func(lctx context.Context) (obtained, error) {
		// A fresh read has no cached answer to fall back on: past a share
		// of the call's time the analysis goes on without it (unproven,
		// and saying so) rather than spend all its time on one request.
		limit := r.g.cfg.AnalysisTimeout / freshShare
		fctx, cancel := context.WithTimeout(lctx, limit)
		defer cancel()
		ob, err := r.g.obtainFresh(fctx, rd)
		if err != nil && fctx.Err() != nil && lctx.Err() == nil {
			return ob, fmt.Errorf("NSIP did not answer within %s, the share of the call's time a fresh read may take: %w", limit, context.DeadlineExceeded)
		}
		return ob, err
	})
}

// freshShare is the part of an analysis's time (one in freshShare) that a
// fresh read may take.
const freshShare = 4

// read is one lookup of the call, made by obtain: counted against the
// tool's ceiling, within the call's time limit, in one of its slots, and
// counted as fetched, cached or stale by where the answer came from.
func (r *lookups) read(ctx context.Context, obtain func(context.Context) (obtained, error)) (any, error) {
	r.mu.Lock()
	if !r.g.cfg.Now().Before(r.soft) {
		r.timedOut = true
		r.mu.Unlock()
		return nil, analysis.ErrTimeLimit
	}
	if r.lookups >= r.def.Ceiling {
		r.mu.Unlock()
		return nil, analysis.ErrCeiling
	}
	r.lookups++
	r.mu.Unlock()
	lctx, cancel := context.WithDeadline(ctx, r.hard)
	defer cancel()
	timeUp := func() (any, error) {
		r.mu.Lock()
		r.timedOut = true
		r.lookups-- // not read
		r.mu.Unlock()
		return nil, analysis.ErrTimeLimit
	}
	// A plan may want hundreds of answers; asking for them all at once
	// would queue each behind the rest at the rate limit until they time
	// out, so an analysis keeps a few in flight and the others wait here.
	select {
	case r.slots <- struct{}{}:
	case <-lctx.Done():
		if ctx.Err() == nil {
			return timeUp()
		}
		return nil, ctx.Err()
	}
	if !r.g.cfg.Now().Before(r.soft) {
		// The time passed while this lookup waited for its slot.
		<-r.slots
		return timeUp()
	}
	if err := ctx.Err(); err != nil {
		// The call ended (a task cancelled) as the slot came free: a
		// select with both ready may pick either, and NSIP is asked
		// nothing more for a call that has ended.
		<-r.slots
		r.mu.Lock()
		r.lookups--
		r.mu.Unlock()
		return nil, err
	}
	ob, err := obtain(lctx)
	<-r.slots
	if err != nil && lctx.Err() != nil && ctx.Err() == nil {
		// The fetch goes on for the cache; this call has no time left.
		return timeUp()
	}
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	switch ob.source {
	case cacheMiss:
		r.fetched++
	case cacheStale:
		r.stale++
	}
	r.mu.Unlock()
	return ob.a.Value, nil
}

// OverBudget reports whether answer v would be summarized: analyses check
// before answering and shorten themselves in ways that keep their meaning.
func (r *lookups) OverBudget(ctx context.Context, v any) bool {
	text, err := nsip.PlainJSON(v)
	if err != nil {
		return false
	}
	res, err := r.fit(ctx, text)
	if err != nil {
		return false
	}
	r.mu.Lock()
	r.checked.body, r.checked.res = text, res
	r.mu.Unlock()
	return res.Summarized
}

// fitted is the fit of body, from OverBudget when it fitted the same bytes.
func (r *lookups) fitted(ctx context.Context, body []byte) (summarize.Result, error) {
	r.mu.Lock()
	same := r.checked.body != nil && bytes.Equal(r.checked.body, body)
	res := r.checked.res
	r.mu.Unlock()
	if same {
		return res, nil
	}
	return r.fit(ctx, body)
}

// fit fits an analysis's answer to the call's budget: max_tokens where
// sent, as the lookups' views are fitted.
func (r *lookups) fit(ctx context.Context, text []byte) (summarize.Result, error) {
	return r.g.fit(ctx, r.def.tool.Kind, r.def.Name, r.call, nil, text)
}

// Budgets are the budget the call's answer is fitted to (max_tokens, or
// the server's default) and the largest max_tokens allowed.
func (r *lookups) Budgets() (now, limit int) {
	if r.call.view.budget > 0 {
		return r.call.view.budget, r.g.cfg.MaxBudget
	}
	return r.g.cfg.Budget, r.g.cfg.MaxBudget
}

// Upstream says what the call read, for the answer's "computed" block.
func (r *lookups) Upstream() analysis.Upstream {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := analysis.Upstream{Lookups: r.lookups, Fetched: r.fetched, Cached: r.lookups - r.fetched - r.stale, Ceiling: r.def.Ceiling,
		TimeLimitSeconds: int(r.g.cfg.AnalysisTimeout.Seconds()), Stale: r.stale, TimeLimitReached: r.timedOut}
	if u.Cached > 0 {
		u.CachedNote = analysis.CachedNote(u.Cached, r.g.cfg.CacheTTL)
	}
	return u
}

// reads is what the call read as the call path logs it.
func (r *lookups) reads() *calllog.Reads {
	u := r.Upstream()
	return &calllog.Reads{Lookups: u.Lookups, Fetched: u.Fetched, Cached: u.Cached, Stale: u.Stale}
}

// The Source's reads: each is the lookup tool's own, with its typed
// arguments, so a user's call of the tool and an analysis's read of the
// same thing share one cache entry.

func (r *lookups) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	d, err := lookup.ReadAs[nsip.AnimalDetails](ctx, r.get, lookup.Animal, lookup.DetailsArgs{SearchString: id})
	if err == nil {
		r.ignored.Note(d.Ignored)
	}
	return d, err
}

func (r *lookups) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	return lookup.ReadAs[nsip.Lineage](ctx, r.get, lookup.Lineage, lookup.LPNArgs{LPNID: id})
}

// Search reads a page under the evaluation the query names, if any: a
// page cached under an earlier evaluation is then not read under a later
// one (lookup.SearchArgs.Evaluation).
func (r *lookups) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	p, err := lookup.ReadAs[nsip.SearchResults](ctx, r.get, lookup.SearchAnimals, lookup.SearchArgsOf(q.SearchParams, q.Evaluation))
	if err == nil {
		r.ignored.Note(p.Ignored)
	}
	return p, err
}

func (r *lookups) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	p, err := lookup.ReadAs[nsip.ProgenyPage](ctx, r.get, lookup.Progeny, lookup.ProgenyArgs{LPNID: id, Page: page, PageSize: size})
	if err == nil {
		r.ignored.Note(p.Ignored)
	}
	return p, err
}

func (r *lookups) TraitRanges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	return lookup.ReadAs[nsip.TraitRanges](ctx, r.get, lookup.TraitRanges, lookup.BreedArgs{BreedID: breed})
}

// LastUpdate is NSIP's last-update date; fresh reads it from NSIP now,
// since a date cached before a new evaluation would vouch for pages of the
// new one, and with no stale copy should NSIP fail. A fresh answer is
// cached for nsip_get_last_update all the same.
func (r *lookups) LastUpdate(ctx context.Context, fresh bool) (*nsip.LastUpdate, error) {
	if fresh {
		return lookup.ReadAs[nsip.LastUpdate](ctx, r.getFresh, lookup.LastUpdate, lookup.NoArgs{})
	}
	return lookup.ReadAs[nsip.LastUpdate](ctx, r.get, lookup.LastUpdate, lookup.NoArgs{})
}

// Ask puts an analysis's form to the user.
func (r *lookups) Ask(ctx context.Context, f analysis.Form) (analysis.Answers, bool, error) {
	answers, te, asked := r.g.ask(ctx, r.def.tool, f)
	if te != nil {
		return analysis.Answers{}, asked, &answeredError{te}
	}
	return answers, asked, nil
}

// ErrorCode is the code a lineage lookup failing with err is answered with.
func (r *lookups) ErrorCode(err error) string {
	return r.g.mapError(&lookup.Lineage.Def, param.Valid{}, err).Code
}

// runAnalysis runs analysis a on a call's validated arguments args (sent:
// as the caller sent them), counted and timed from start.
func (g *Gateway) runAnalysis(ctx context.Context, a *analysisEntry, req mcp.CallToolRequest, start time.Time, c toolCall) *mcp.CallToolResult {
	// Lookups stop at nine tenths of the limit, leaving the rest for the
	// computation and the fit.
	lookupTime := g.cfg.AnalysisTimeout * 9 / 10
	r := &lookups{g: g, def: a, call: c, slots: make(chan struct{}, g.analysisParallel()),
		soft: g.cfg.Now().Add(lookupTime), hard: time.Now().Add(lookupTime)}
	v, err := analysis.Run(ctx, a.Def, r, g.log, c.sent, c.args)
	var o outcome
	if err != nil {
		o.err = g.analysisError(a, c.sent, err)
		if b, ok := c.args.Int("breed_id"); ok && o.err.Code == toolerr.CodeNotFound && o.err.Field == "breed_id" {
			if te := g.unknownBreed(ctx, "breed_id", b, a.Example(c.sent)); te != nil {
				o.err = te
			}
		}
	} else {
		v, table := full.Split(v)
		body, merr := finite.Encode(r.ignored.AddTo(v))
		if merr != nil {
			o.err = &toolerr.Error{Code: toolerr.CodeUpstreamError, Problem: "the analysis could not be encoded: " + merr.Error()}
		} else if o.res, merr = r.fitted(ctx, body); merr != nil {
			o.err = g.mapError(a.tool.Def, c.args, merr)
		}
		o.data = analysisData(table, body, o.res.Summarized)
	}
	o.source, o.upstream = cacheHit, r.reads()
	if o.upstream.Fetched > 0 {
		o.source = cacheMiss
	}
	g.finish(ctx, a.tool.Def, logParams(req), start, o)
	if o.err != nil {
		return o.err.Result()
	}
	budget, _ := r.Budgets()
	up := r.Upstream()
	meta := resultMeta{upstream: &up}
	links := g.fullLinks(ctx, o, &meta)
	res := fittedResult(o.res, budget, &meta, links...)
	// The text is the answer's JSON, or its summary: the structured copy
	// is the same bytes (gateway/structured).
	res.RawStructuredContent = json.RawMessage(o.res.Text)
	return res
}

// analysisData is what an analysis's answer was made from: the rows it
// read, when it gives them, else, when the answer itself had to be
// summarized, the answer whole.
func analysisData(t *full.Table, body []byte, summarized bool) full.Data {
	switch {
	case t != nil:
		return full.Data{Size: t.Size(), Build: func() (*full.Table, error) { return t, nil }}
	case summarized:
		return full.Data{Size: int64(len(body)), Build: full.FromAnswer(nil, body)}
	}
	return full.Data{}
}

// analysisError is what the model sees of a failed analysis: the answer
// to a form already rendered, the analysis's own failures, or NSIP's.
func (g *Gateway) analysisError(a *analysisEntry, sent param.Sent, err error) *toolerr.Error {
	var ans *answeredError
	if errors.As(err, &ans) {
		return ans.te
	}
	example := func() *param.Call { return a.Example(sent) }
	if te := toolerr.Analysis(err, example, a.Ceiling, g.cfg.AnalysisTimeout); te != nil {
		return te
	}
	about, args := toolerr.AboutFailed(aboutOf(a.tool.Def), sent, err)
	return g.mapAbout(about, args, err)
}
