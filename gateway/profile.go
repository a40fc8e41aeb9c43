package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// profileFit is an nsip_search_by_lpn result, cached under its own key and
// valid while its three parts are the answers it was assembled from. It
// holds their ids rather than the answers, so that evicting a part frees it.
type profileFit struct {
	parts [3]uint64
	res   summarize.Result
}

// runProfile answers nsip_search_by_lpn from the same three cache entries
// that nsip_get_animal, nsip_get_lineage and nsip_get_progeny (first page of
// nsip.ProfilePageSize) use, fetching only the parts not cached, at the same
// time. The text is what the client's ByLPN would give:
// {"details":…,"lineage":…,"progeny":…} with each member the upstream body.
// The fitted profile is cached under r.Key and reused while the parts are
// unchanged, as fitting one means counting thousands of tokens.
func (g *Gateway) runProfile(ctx context.Context, r lookup.Read, c toolCall) outcome {
	key, args := r.Key, r.Args
	// Read with a check rather than decoded from the key as a fetch's
	// arguments are: this runs on every call, hits included.
	field := lookup.SearchByLPN.Args.Name("LPNID")
	id, ok := args.String(field)
	if !ok {
		v, _ := args.Value(field)
		return outcome{err: g.mapError(&lookup.SearchByLPN.Def, args, lookup.ArgsMismatch(field, fmt.Errorf("%s is %T", field, v)))}
	}
	parts, err := lookup.ProfileParts(id)
	if err != nil {
		return outcome{err: g.mapError(&lookup.SearchByLPN.Def, args, err)}
	}
	obs := make([]obtained, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs[i], errs[i] = g.obtain(ctx, p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return outcome{err: g.mapError(&lookup.SearchByLPN.Def, args, err)}
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
	o.data = g.cachedData([]string{parts[0].Key, parts[1].Key, parts[2].Key}, ids[:])
	if c.view.set() {
		// A view of its own is fitted for this call alone.
		p := assembleProfile(obs)
		res, err := g.fit(ctx, profileKind(obs), lookup.SearchByLPN.Name, c, p, p.Raw)
		if err != nil {
			return outcome{err: g.mapError(&lookup.SearchByLPN.Def, c.args, err)}
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
	ch := g.flight.DoChan(flightKey, func() (any, error) { return g.fitProfile(r, ids, obs) })
	g.fitWaiters.Add(1)
	defer g.fitWaiters.Add(-1)
	select {
	case r := <-ch:
		if r.Err != nil {
			return outcome{err: g.mapError(&lookup.SearchByLPN.Def, args, r.Err)}
		}
		o.res = r.Val.(summarize.Result)
		return o
	case <-ctx.Done():
		// Every part is in hand: only the fit was outstanding.
		return outcome{err: g.mapError(&lookup.SearchByLPN.Def, args, fmt.Errorf("%w: %w", toolerr.ErrFitWait, ctx.Err()))}
	}
}

// fitProfile assembles the profile from its parts, fits it and caches the
// fit under key. Like fetch, it runs on its own deadline.
func (g *Gateway) fitProfile(r lookup.Read, ids [3]uint64, obs []obtained) (any, error) {
	key := r.Key
	p := assembleProfile(obs)
	ctx, cancel := context.WithTimeout(context.Background(), g.cfg.CallTimeout)
	defer cancel()
	res, err := g.fit(ctx, profileKind(obs), lookup.SearchByLPN.Name, toolCall{args: r.Args}, p, p.Raw)
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
	return lookup.SearchByLPN.Kind
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
