package gateway

import (
	"context"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/passes"
)

// Breed passes (analysis.BreedPass) are kept between calls by
// gateway/passes, bounded in bytes (a quarter of the cache's bound,
// NSIP_CACHE_MAX_BYTES) and shared with the other replicas through Redis;
// what is here reads one in the background through the gateway's lookups.

// passShare is the part of the cache's byte bound the passes may take.
const passShare = 4

// newPasses is the gateway's store of passes, kept as long as an answer
// and its stale copy would be.
func newPasses(cfg Config) *passes.Store {
	var shared passes.Shared
	if cfg.Shared != nil {
		shared = cfg.Shared
	}
	return passes.New(passes.Config{MaxBytes: cfg.CacheMaxBytes / passShare, TTL: cfg.CacheTTL + cfg.StaleTTL,
		Shared: shared, Now: cfg.Now, Logger: cfg.Logger})
}

// LoadPass is the pass of breed under evaluation: this replica's, or one
// another replica shared through Redis.
func (r *lookups) LoadPass(ctx context.Context, breed int, evaluation string) *analysis.BreedPass {
	return r.g.passes.Load(ctx, breed, evaluation)
}

// StorePass keeps p here and shares it through Redis.
func (r *lookups) StorePass(ctx context.Context, p *analysis.BreedPass) { r.g.passes.Keep(ctx, p) }

// FillPass reads breed's pass in the background, one at a time, so that
// a later call finds it kept: a breed too large for one call's lookups.
// Its lookups go through the same pool (rate limit, breaker, cache) as
// every call's, and it ends when the gateway is closed. It returns why
// the pass is not being read, "" when it is.
func (r *lookups) FillPass(breed int, evaluation string) string {
	return r.g.fillPass(breed, evaluation)
}

func (g *Gateway) fillPass(breed int, evaluation string) string {
	key := analysis.PassKey(breed, evaluation)
	started := g.passes.Fill(key, func(ctx context.Context) {
		ctx = calllog.With(ctx)
		src := &lookups{g: g, def: passFiller, slots: make(chan struct{}, g.analysisParallel()),
			soft: g.cfg.Now().Add(passes.FillTime), hard: time.Now().Add(passes.FillTime)}
		p, why, err := analysis.ReadBreedPass(ctx, src, g.log, breed, evaluation, g.passes.Max())
		switch {
		case err != nil:
			g.log.Warn("breed pass not read", "breed_id", breed, "error", err.Error())
		case p == nil:
			g.log.Info("breed pass not kept", "breed_id", breed, "why", why)
			g.passes.Refuse(key, why)
		case !g.passes.Keep(ctx, p):
			g.passes.Refuse(key, "larger than the passes may hold")
		default:
			g.log.Info("breed pass read", "breed_id", breed, "evaluation", p.Evaluation, "animals", p.Animals(), "lookups", src.Upstream().Lookups)
		}
		if done := g.passFilled; done != nil {
			done(key)
		}
	})
	if started {
		return ""
	}
	return g.passes.Why(key)
}

// passFiller is what a background pass's lookups are counted under: no
// tool of its own, and a ceiling no breed's pages reach (50,000 animals
// are 500 pages).
var passFiller = &analysisEntry{
	Def:  &analysis.Def{Name: "breed_pass", Method: "breed_pass", Ceiling: 1 << 20},
	tool: &toolDef{Def: &lookup.Def{Name: "breed_pass", Method: "breed_pass", Kind: analysisKind}},
}
