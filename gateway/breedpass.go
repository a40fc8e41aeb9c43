package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/passes"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Breed passes (breedpass.BreedPass) are kept between calls by
// gateway/passes, bounded in bytes (a quarter of the cache's bound,
// NSIP_CACHE_MAX_BYTES) and shared with the other replicas through Redis;
// what is here reads one in the background through the gateway's lookups,
// as an MCP task the caller whose question started it may follow.

// passShare is the part of the cache's byte bound the passes may take.
const passShare = 4

// newPasses is the gateway's store of passes, kept as long as an answer
// and its stale copy would be; ended hears of each background read's end.
func newPasses(cfg Config, ended func(key string)) *passes.Store {
	var shared passes.Shared
	if cfg.Shared != nil {
		shared = cfg.Shared
	}
	return passes.New(passes.Config{MaxBytes: cfg.CacheMaxBytes / passShare, TTL: cfg.CacheTTL + cfg.StaleTTL,
		Shared: shared, Now: cfg.Now, Logger: cfg.Logger, Ended: ended})
}

// callPasses are the gateway's store of passes as one call's
// analysis.Passes: every call reads and keeps the same store, and may have
// a pass read in the background.
type callPasses struct{ g *Gateway }

var _ analysis.Passes = callPasses{}

// Passes are the gateway's breed passes, which every call keeps: the
// analyses read them through the call's Source like any other lookup.
func (r *lookups) Passes() analysis.Passes { return callPasses{r.g} }

// Load is the pass of breed under evaluation: this replica's, or one
// another replica shared through Redis.
func (p callPasses) Load(ctx context.Context, breed int, evaluation string) *breedpass.BreedPass {
	return p.g.passes.Load(ctx, breed, evaluation)
}

// Holds reports whether this replica keeps a pass of breed under any
// evaluation (passes.Store.Holds).
func (p callPasses) Holds(_ context.Context, breed int) bool { return p.g.passes.Holds(breed) }

// Keep keeps pass here and shares it through Redis; MaxBytes, what the
// store keeps at most, bounds a pass read in a call as its pages come.
func (p callPasses) Keep(ctx context.Context, pass *breedpass.BreedPass) { p.g.passes.Keep(ctx, pass) }
func (p callPasses) MaxBytes() int64                                     { return p.g.passes.Max() }

// Fill reads breed's pass in the background, one at a time, so that a
// later call finds it kept: a breed too large for one call's lookups. Its
// lookups go through the same pool (rate limit, breaker, cache) as every
// call's, and it ends when the gateway is closed. No caller follows it:
// the read is asked for without the call's context.
func (p callPasses) Fill(breed int, evaluation string) analysis.PassFill {
	return p.g.fillPass(context.Background(), breed, evaluation)
}

// FillFor is Fill for the caller of ctx, who may follow the read as one
// of its tasks.
func (p callPasses) FillFor(ctx context.Context, breed int, evaluation string) analysis.PassFill {
	return p.g.fillPass(ctx, breed, evaluation)
}

// fillPass starts the read of breed's pass, or finds it under way, and
// says whether and how the caller of ctx follows it.
func (g *Gateway) fillPass(ctx context.Context, breed int, evaluation string) analysis.PassFill {
	key := breedpass.PassKey(breed, evaluation)
	f, started := g.passes.Fill(key, func(ctx context.Context, f *passes.Fill) (passes.Summary, error) {
		return g.readPass(ctx, f, breed, evaluation)
	})
	switch {
	case f == nil:
		return analysis.PassFill{Why: g.passes.Why(key)}
	case !started:
		// A question's own read goes on: the caller's task follows it, and
		// another caller is told only that it is under way.
		if id := f.Follower(); id != "" && g.tasks.Owns(ctx, id) {
			return analysis.PassFill{TaskID: id}
		}
		return analysis.PassFill{Follow: "the read was started by an earlier question, not followed by a task of this client's; ask again once it is done"}
	}
	id, err := g.tasks.Follow(ctx, passes.Task{Fill: f, Breed: breed})
	if err != nil {
		return analysis.PassFill{Follow: err.Error()}
	}
	f.Follow(id)
	return analysis.PassFill{TaskID: id}
}

// readPass reads breed's pass for the Fill f, keeps it, and says what it
// came to: the pass's summary, or why it was not kept.
func (g *Gateway) readPass(ctx context.Context, f *passes.Fill, breed int, evaluation string) (passes.Summary, error) {
	key := breedpass.PassKey(breed, evaluation)
	ctx = calllog.With(ctx)
	// The read leaves one of NSIP's connections to the calls made
	// meanwhile, which would otherwise wait behind its pages.
	width := max(1, g.analysisParallel()-1)
	src := &lookups{g: g, def: passFiller, slots: make(chan struct{}, width),
		soft: g.cfg.Now().Add(passes.FillTime), hard: time.Now().Add(passes.FillTime)}
	p, why, err := percentile.ReadBreedPass(ctx, src, g.log, breed, evaluation, g.passes.Max(), f.Pages)
	switch {
	case err != nil:
		g.log.Warn("breed pass not read", "breed_id", breed, "error", err.Error())
		if ctx.Err() != nil {
			return passes.Summary{}, ctx.Err()
		}
		return passes.Summary{}, fmt.Errorf("the pass of breed %d was not read: %s", breed, src.ErrorCode(err))
	case p == nil:
		g.log.Info("breed pass not kept", "breed_id", breed, "why", why)
		g.passes.Refuse(key, why)
		return passes.Summary{}, fmt.Errorf("the pass of breed %d was read and not kept: %s", breed, why)
	case !g.passes.Keep(ctx, p):
		g.passes.Refuse(key, "larger than the passes may hold")
		return passes.Summary{}, fmt.Errorf("the pass of breed %d was read and not kept: its %d bytes are more than the %d passes may hold (1/%d of NSIP_CACHE_MAX_BYTES: set it to %d or more to keep this breed)", breed, p.Bytes(), g.passes.Max(), passShare, p.Bytes()*passShare)
	}
	g.log.Info("breed pass read", "breed_id", breed, "evaluation", p.Evaluation, "animals", p.Animals(), "lookups", src.Upstream().Lookups)
	_, pages := f.Progress()
	return passes.Summary{Breed: breed, Evaluation: p.Evaluation, Animals: p.Animals(), Pages: pages, Bytes: p.Bytes()}, nil
}

// passFiller is what a background pass's lookups are counted under: no
// tool of its own, and a ceiling no breed's pages reach (50,000 animals
// are 500 pages).
var passFiller = &analysisEntry{
	Def:  &analysis.Def{Def: tooldef.Def{Name: "breed_pass", Method: "breed_pass", Kind: summarize.KindGeneric}, Ceiling: 1 << 20},
	tool: &tooldef.Def{Name: "breed_pass", Method: "breed_pass", Kind: summarize.KindGeneric},
}
