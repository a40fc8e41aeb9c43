package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

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
