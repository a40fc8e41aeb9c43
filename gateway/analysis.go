package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/finite"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/source"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// lookups is one analysis call's access to NSIP, its analysis.Source:
// every lookup goes through the gateway's call path and is counted against
// the tool's ceiling.
type lookups struct {
	g     *Gateway
	def   *analysisEntry
	call  toolcall.Call
	slots chan struct{} // lookups under way at once
	mu    sync.Mutex
	begun int // lookups begun and not refused, which the ceiling bounds
	// lookups is what the answer says it cost: every request sent to NSIP
	// for the call (Request.Sent: retries, and requests whose reads the
	// time limit abandoned, which NSIP still answers), and one for each
	// read answered without a request of its own (from the cache, or a
	// request another read made).
	lookups int
	fetched int
	cached  int
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

// Limits tell the analysis how many of its lookups may be under way at
// once (its slots), so that it starts no more independent ones than run;
// how long the call may still start lookups, by which it judges whether a
// long read fits (a breed's pass); and the upstream's rate limit, which a
// breed pass's pages wait for however fast NSIP answers.
func (r *lookups) Limits() analysis.Limits {
	return analysis.Limits{
		Parallel:  cap(r.slots),
		TimeLeft:  func() time.Duration { return r.soft.Sub(r.g.cfg.Now()) },
		PerSecond: r.g.cfg.RateLimit,
		Burst:     r.g.cfg.RateBurst,
	}
}

// nsip are the call's reads of NSIP (source.Reads), each one of its
// lookups (read).
func (r *lookups) nsip() source.Reads {
	return source.Reads{
		Obtain: func(ctx context.Context, rd lookup.Read) (toolcall.Obtained, error) {
			return r.read(ctx, func(ctx context.Context) (toolcall.Obtained, error) { return r.g.obtain(ctx, rd) })
		},
		Fresh: r.fresh(0),
	}
}

// fresh obtains a read that must be NSIP's as of now rather than the
// cache's (obtainFresh), taking NSIP's answer to one sent within window;
// it counts as one lookup like any other.
func (r *lookups) fresh(window time.Duration) source.Obtain {
	return func(ctx context.Context, rd lookup.Read) (toolcall.Obtained, error) {
		return r.read(ctx, func(lctx context.Context) (toolcall.Obtained, error) {
			// With no cached answer to fall back on, past a share of the
			// call's time the analysis goes on without it, unproven.
			limit := r.g.cfg.AnalysisTimeout / freshShare
			fctx, cancel := context.WithTimeout(lctx, limit)
			defer cancel()
			ob, err := r.g.obtainFresh(window)(fctx, rd)
			if err != nil && fctx.Err() != nil && lctx.Err() == nil {
				return ob, fmt.Errorf("NSIP did not answer within %s, the share of the call's time a fresh read may take: %w", limit, context.DeadlineExceeded)
			}
			return ob, err
		})
	}
}

// freshShare is the part of an analysis's time (one in freshShare) that a
// fresh read may take.
const freshShare = 4

// read is one lookup of the call, made by obtain: counted against the
// tool's ceiling, within the call's time limit, in one of its slots, and
// counted as fetched, cached or stale by where the answer came from.
func (r *lookups) read(ctx context.Context, obtain func(context.Context) (toolcall.Obtained, error)) (toolcall.Obtained, error) {
	r.mu.Lock()
	if !r.g.cfg.Now().Before(r.soft) {
		r.timedOut = true
		r.mu.Unlock()
		return toolcall.Obtained{}, analysis.ErrTimeLimit
	}
	if r.begun >= r.def.Ceiling {
		r.mu.Unlock()
		return toolcall.Obtained{}, analysis.ErrCeiling
	}
	r.begun++
	r.mu.Unlock()
	var own atomic.Int32 // requests sent for this read
	ctx = context.WithValue(ctx, sentKey{}, func() {
		own.Add(1)
		r.mu.Lock()
		r.lookups++
		r.mu.Unlock()
	})
	lctx, cancel := context.WithDeadline(ctx, r.hard)
	defer cancel()
	timeUp := func() (toolcall.Obtained, error) {
		r.mu.Lock()
		r.timedOut = true
		r.begun-- // not read, though its requests, if any went out, count
		r.mu.Unlock()
		return toolcall.Obtained{}, analysis.ErrTimeLimit
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
		return toolcall.Obtained{}, ctx.Err()
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
		r.begun--
		r.mu.Unlock()
		return toolcall.Obtained{}, err
	}
	ob, err := obtain(lctx)
	<-r.slots
	if err != nil && lctx.Err() != nil && ctx.Err() == nil {
		// The fetch goes on for the cache; this call has no time left.
		return timeUp()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if own.Load() == 0 {
		r.lookups++ // answered, or failed, without a request of its own
	}
	if err != nil {
		return toolcall.Obtained{}, err
	}
	switch ob.Source {
	case cacheMiss:
		r.fetched++
	case cacheStale:
		r.stale++
	default:
		r.cached++
	}
	return ob, nil
}

// sentKey carries a read's count of its requests to NSIP (Request.Sent)
// from lookups.read down to the fetch that sends them (Gateway.lookup).
type sentKey struct{}

// sentOf is ctx's count of requests sent, nil outside an analysis's read.
func sentOf(ctx context.Context) func() {
	f, _ := ctx.Value(sentKey{}).(func())
	return f
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
	if r.call.View.Budget > 0 {
		return r.call.View.Budget, r.g.cfg.MaxBudget
	}
	return r.g.cfg.Budget, r.g.cfg.MaxBudget
}

// Upstream says what the call read, for the answer's "computed" block.
func (r *lookups) Upstream() analysis.Upstream {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := analysis.Upstream{Lookups: r.lookups, Fetched: r.fetched, Cached: r.cached, Ceiling: r.def.Ceiling,
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

// The Source's reads (source.Reads), with the absurd values their
// models left out noted for the answer.

func (r *lookups) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	d, err := r.nsip().Details(ctx, id)
	if err == nil {
		r.ignored.Note(d.Ignored)
	}
	return d, err
}

func (r *lookups) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	return r.nsip().Lineage(ctx, id)
}

func (r *lookups) Search(ctx context.Context, q analysis.Query) (*nsip.SearchResults, error) {
	p, err := r.nsip().Search(ctx, q.SearchParams, q.Evaluation)
	if err == nil {
		r.ignored.Note(p.Ignored)
	}
	return p, err
}

func (r *lookups) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	p, err := r.nsip().Progeny(ctx, id, page, size)
	if err == nil {
		r.ignored.Note(p.Ignored)
	}
	return p, err
}

func (r *lookups) TraitRanges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	return r.nsip().TraitRanges(ctx, breed)
}

// LastUpdate is NSIP's evaluation date as recently as asked says: read
// Recently, NSIP's answer to a fresh read within EvaluationRecheck stands.
func (r *lookups) LastUpdate(ctx context.Context, asked analysis.Asked) (*nsip.LastUpdate, error) {
	reads := r.nsip()
	if asked == analysis.Recently {
		reads.Fresh = r.fresh(r.g.cfg.EvaluationRecheck)
	}
	return reads.LastUpdate(ctx, asked != analysis.Cached)
}

// Ask puts an analysis's form to the user.
func (r *lookups) Ask(ctx context.Context, f analysis.Form) (analysis.Answers, bool, error) {
	answers, te, asked := r.g.ask(ctx, r.def.tool, r.def.Example, f)
	if te != nil {
		return analysis.Answers{}, asked, &answeredError{te}
	}
	return answers, asked, nil
}

// ErrorCode is the code a lineage lookup failing with err is answered with.
func (r *lookups) ErrorCode(err error) string {
	return r.g.mapAbout(aboutOf(r.def.tool), param.Sent{}, err).Code
}

// runAnalysis runs analysis a on a call's validated arguments.
func (g *Gateway) runAnalysis(ctx context.Context, a *analysisEntry, c toolcall.Call) toolcall.Outcome {
	// Lookups stop at nine tenths of the limit, leaving the rest for the
	// computation and the fit.
	lookupTime := g.cfg.AnalysisTimeout * 9 / 10
	r := &lookups{g: g, def: a, call: c, slots: make(chan struct{}, g.analysisParallel()),
		soft: g.cfg.Now().Add(lookupTime), hard: time.Now().Add(lookupTime)}
	v, err := analysis.Run(ctx, a.Def, r, g.log, c.Sent, c.Args)
	var o toolcall.Outcome
	if err != nil {
		o.Err = g.analysisError(a, c.Sent, err)
		if te := g.breedNotFound(ctx, a, c, o.Err); te != nil {
			o.Err = te
		}
	} else {
		v, table := full.Split(v)
		body, merr := finite.Encode(r.ignored.AddTo(v))
		if merr != nil {
			o.Err = &toolerr.Error{Code: toolerr.CodeUpstreamError, Problem: "the analysis could not be encoded: " + merr.Error()}
		} else if o.Res, merr = r.fitted(ctx, body); merr != nil {
			o.Err = g.mapError(a.tool, c.Args, merr)
		}
		o.Data = analysisData(table, body, o.Res.Summarized)
		// The text is the answer's JSON, or its summary: the structured
		// copy is the same bytes (gateway/structured).
		o.Structured = json.RawMessage(o.Res.Text)
	}
	o.Source, o.Reads = cacheHit, r.reads()
	if o.Reads.Fetched > 0 {
		o.Source = cacheMiss
	}
	o.Upstream = r.Upstream()
	return o
}

// breedNotFound is the refusal of an analysis's breed that NSIP's list
// lacks, when the analysis found nothing for the breed argument te names:
// the error then says which breeds there are. nil otherwise.
func (g *Gateway) breedNotFound(ctx context.Context, a *analysisEntry, c toolcall.Call, te *toolerr.Error) *toolerr.Error {
	if te.Code != toolerr.CodeNotFound {
		return nil
	}
	s := param.Named(a.Args.Specs, te.Field)
	if s == nil || s.Complete != param.Breeds {
		return nil
	}
	b, ok := c.Args.Int(te.Field)
	if !ok {
		return nil
	}
	return g.unknownBreed(ctx, te.Field, b, a.Example(c.Sent))
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
	about, args := toolerr.AboutFailed(aboutOf(a.tool), sent, err)
	return g.mapAbout(about, args, err)
}
