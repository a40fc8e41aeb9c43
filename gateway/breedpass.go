package gateway

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
)

// Breed passes (analysis.BreedPass) are kept here between calls, keyed by
// breed and NSIP's evaluation date, bounded in bytes (a quarter of the
// cache's bound, NSIP_CACHE_MAX_BYTES), the least recently used dropped
// first, and shared with the other replicas through Redis, sealed as every
// record is. A pass keyed by an evaluation is not read under a later one,
// so it is kept as long as an answer and its stale copy would be.

// passShare is the part of the cache's byte bound the passes may take.
const passShare = 4

// passFillTime bounds a pass read in the background.
const passFillTime = 10 * time.Minute

type passStore struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	lru   *list.List // of *passEntry, most recently used first
	byKey map[string]*list.Element
	// filling are the passes being read in the background.
	filling map[string]bool
}

type passEntry struct {
	key    string
	p      *analysis.BreedPass
	size   int64
	stored time.Time
}

func newPassStore(maxBytes int64) *passStore {
	return &passStore{max: maxBytes, lru: list.New(), byKey: map[string]*list.Element{}, filling: map[string]bool{}}
}

// get is the pass kept under key, if it is younger than ttl at now.
func (s *passStore) get(key string, now time.Time, ttl time.Duration) *analysis.BreedPass {
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.byKey[key]
	if !ok {
		return nil
	}
	e := el.Value.(*passEntry)
	if now.Sub(e.stored) > ttl {
		s.removeLocked(el)
		return nil
	}
	s.lru.MoveToFront(el)
	return e.p
}

// put keeps p under key, dropping the least recently used passes until it
// fits; a pass larger than the whole bound is not kept.
func (s *passStore) put(key string, p *analysis.BreedPass, stored time.Time) bool {
	size := p.Bytes()
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.byKey[key]; ok {
		s.removeLocked(el)
	}
	if size > s.max {
		return false
	}
	for s.bytes+size > s.max {
		s.removeLocked(s.lru.Back())
	}
	s.byKey[key] = s.lru.PushFront(&passEntry{key: key, p: p, size: size, stored: stored})
	s.bytes += size
	return true
}

func (s *passStore) removeLocked(el *list.Element) {
	e := s.lru.Remove(el).(*passEntry)
	delete(s.byKey, e.key)
	s.bytes -= e.size
}

// size is the bytes and the number of passes kept, for /metrics.
func (s *passStore) size() (int64, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes, s.lru.Len()
}

// passTTL is how long a pass is kept: as long as an answer and its stale
// copy would be.
func (g *Gateway) passTTL() time.Duration { return g.cfg.CacheTTL + g.cfg.StaleTTL }

// LoadPass is the pass of breed under evaluation: this replica's, or one
// another replica shared through Redis.
func (r *lookups) LoadPass(ctx context.Context, breed int, evaluation string) *analysis.BreedPass {
	return r.g.loadPass(ctx, breed, evaluation)
}

func (g *Gateway) loadPass(ctx context.Context, breed int, evaluation string) *analysis.BreedPass {
	key, now := analysis.PassKey(breed, evaluation), g.cfg.Now()
	if p := g.passes.get(key, now, g.passTTL()); p != nil {
		return p
	}
	rd := g.cfg.Shared
	if rd == nil {
		return nil
	}
	b, stored, ok := rd.Load(ctx, key, now)
	if !ok || now.Sub(stored) > g.passTTL() {
		return nil
	}
	p := &analysis.BreedPass{}
	if err := p.UnmarshalBinary(b); err != nil || p.Breed != breed || p.Evaluation != evaluation {
		rd.Ignored()
		return nil
	}
	g.passes.put(key, p, stored)
	return p
}

// StorePass keeps p here and shares it through Redis.
func (r *lookups) StorePass(ctx context.Context, p *analysis.BreedPass) { r.g.storePass(ctx, p) }

func (g *Gateway) storePass(ctx context.Context, p *analysis.BreedPass) {
	key, now := analysis.PassKey(p.Breed, p.Evaluation), g.cfg.Now()
	if !g.passes.put(key, p, now) {
		g.log.Info("breed pass not kept: larger than the passes may hold", "breed_id", p.Breed, "bytes", p.Bytes(), "limit_bytes", g.passes.max)
		return
	}
	if rd := g.cfg.Shared; rd != nil {
		if b, err := p.MarshalBinary(); err == nil {
			rd.Store(ctx, key, b, now, g.passTTL())
		}
	}
}

// FillPass reads breed's pass in the background, once at a time, so that
// a later call finds it kept: a breed too large for one call's lookups.
// Its lookups go through the same pool (rate limit, breaker, cache) as
// every call's.
func (r *lookups) FillPass(breed int, evaluation string) { r.g.fillPass(breed, evaluation) }

func (g *Gateway) fillPass(breed int, evaluation string) {
	key := analysis.PassKey(breed, evaluation)
	s := g.passes
	s.mu.Lock()
	if s.filling[key] {
		s.mu.Unlock()
		return
	}
	s.filling[key] = true
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.filling, key)
			s.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), passFillTime)
		defer cancel()
		ctx = calllog.With(ctx)
		src := &lookups{g: g, def: passFiller, slots: make(chan struct{}, g.analysisParallel()),
			soft: g.cfg.Now().Add(passFillTime), hard: time.Now().Add(passFillTime)}
		p, why, err := analysis.ReadBreedPass(ctx, src, g.log, breed, evaluation, s.max)
		switch {
		case err != nil:
			g.log.Warn("breed pass not read", "breed_id", breed, "error", err.Error())
		case p == nil:
			g.log.Info("breed pass not kept", "breed_id", breed, "why", why)
		default:
			g.storePass(ctx, p)
			g.log.Info("breed pass read", "breed_id", breed, "evaluation", p.Evaluation, "animals", p.Animals(), "lookups", src.Upstream().Lookups)
		}
		if done := g.passFilled; done != nil {
			done(key)
		}
	}()
}

// passFiller is what a background pass's lookups are counted under: no
// tool of its own, and a ceiling no breed's pages reach (50,000 animals
// are 500 pages).
var passFiller = &analysisEntry{
	Def:  &analysis.Def{Name: "breed_pass", Method: "breed_pass", Ceiling: 1 << 20},
	tool: &toolDef{name: "breed_pass", method: "breed_pass", kind: analysisKind},
}
