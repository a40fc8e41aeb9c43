package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Each read of an analysis's source is the lookup tool's own call, keyed
// from its typed arguments: the user's call that asks the same afterwards
// is answered from the one entry the read cached, and NSIP is asked once.
func TestSourceReadsShareTheUsersCacheEntries(t *testing.T) {
	type read func(ctx context.Context, r *lookups, id string) error
	tests := []struct {
		name string
		read read
		tool string
		sent func(id string) map[string]any
	}{
		{"Details", func(ctx context.Context, r *lookups, id string) error { _, err := r.Details(ctx, id); return err },
			toolname.GetAnimal, func(id string) map[string]any { return map[string]any{"search_string": id} }},
		{"Lineage", func(ctx context.Context, r *lookups, id string) error { _, err := r.Lineage(ctx, id); return err },
			toolname.GetLineage, func(id string) map[string]any { return map[string]any{"lpn_id": id} }},
		{"Progeny", func(ctx context.Context, r *lookups, id string) error { _, err := r.Progeny(ctx, id, 1, 5); return err },
			toolname.GetProgeny, func(id string) map[string]any { return map[string]any{"lpn_id": id, "page": 1, "page_size": 5} }},
		{"TraitRanges", func(ctx context.Context, r *lookups, id string) error { _, err := r.TraitRanges(ctx, 640); return err },
			toolname.GetTraitRanges, func(string) map[string]any { return map[string]any{"breed_id": 640} }},
		{"Search", func(ctx context.Context, r *lookups, id string) error {
			_, err := r.Search(ctx, analysis.Query{SearchParams: nsip.SearchParams{PageSize: 20, BreedID: 640, SortedTrait: "WWT", Reverse: true}})
			return err
		}, toolname.SearchAnimals, func(string) map[string]any {
			return map[string]any{"page_size": 20, "breed_id": 640, "sorted_trait": "wwt", "reverse": true}
		}},
		{"Search with criteria", func(ctx context.Context, r *lookups, id string) error {
			_, err := r.Search(ctx, analysis.Query{SearchParams: nsip.SearchParams{Page: 1, PageSize: 10, Criteria: nsip.SearchCriteria{
				BreedID: 640, Gender: "Female", TraitRanges: map[string]nsip.Range{"WWT": {Min: -5, Max: 50}}}}})
			return err
		}, toolname.SearchAnimals, func(string) map[string]any {
			return map[string]any{"page": 1, "page_size": 10, "search_criteria": map[string]any{
				"breed_id": 640, "gender": "female", "trait_ranges": map[string]any{"wwt": map[string]any{"min": -5, "max": 50}}}}
		}},
		{"LastUpdate", func(ctx context.Context, r *lookups, id string) error {
			_, err := r.LastUpdate(ctx, analysis.Cached)
			return err
		},
			toolname.GetLastUpdate, func(string) map[string]any { return map[string]any{} }},
		{"LastUpdate fresh", func(ctx context.Context, r *lookups, id string) error {
			_, err := r.LastUpdate(ctx, analysis.Now)
			return err
		},
			toolname.GetLastUpdate, func(string) map[string]any { return map[string]any{} }},
	}
	endpoints := map[string]string{
		toolname.GetAnimal: nsiptest.EndpointDetails, toolname.GetLineage: nsiptest.EndpointLineage,
		toolname.GetProgeny: nsiptest.EndpointProgeny, toolname.GetTraitRanges: nsiptest.EndpointTraitRanges,
		toolname.SearchAnimals: nsiptest.EndpointSearch, toolname.GetLastUpdate: nsiptest.EndpointLastUpdated,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			id := e.up.Data().MostProgeny()
			far := time.Now().Add(time.Hour)
			r := &lookups{g: e.gw, def: passFiller, slots: make(chan struct{}, 1), soft: e.gw.cfg.Now().Add(time.Hour), hard: far}
			if err := tc.read(context.Background(), r, id); err != nil {
				t.Fatalf("read: %v", err)
			}
			if n := e.gw.cache.Stats().Entries; n != 1 {
				t.Fatalf("the read cached %d entries, want 1", n)
			}
			got := e.call(tc.tool, tc.sent(id)).mustOK(t)
			if got.meta["cache"] != cacheHit {
				t.Errorf("the user's call: _meta.cache %v, want %s from the read's entry", got.meta["cache"], cacheHit)
			}
			// A search's user call also reads the breed's trait ranges, to
			// check its trait codes: only the searches are counted.
			if n := e.up.Requests(endpoints[tc.tool]); n != 1 {
				t.Errorf("NSIP was asked %s %d times, want 1", endpoints[tc.tool], n)
			}
		})
	}
}
