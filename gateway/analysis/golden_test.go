package analysis

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// goldenSource is a fake whose upstream block has every member the
// gateway's has, so that the goldens hold the answer as a client reads it.
type goldenSource struct{ *fakeSource }

func (g goldenSource) Upstream() Upstream {
	n := g.fakeSource.Upstream().Lookups
	return Upstream{Lookups: n, Fetched: n, Ceiling: 500, TimeLimitSeconds: 30}
}

// goldenCases are one call of each analysis variant, with the answer's
// optional parts present where a small fixture can show them.
func goldenCases() []struct {
	name string
	def  *Def
	f    *fakeSource
	sent map[string]any
} {
	over := func(f *fakeSource, n int) *fakeSource { f.overAt = n; return f }
	unsorted := func(f *fakeSource) *fakeSource { f.unsorted = true; return f }
	ewes := anyList(youngEwes(kin(7), 3))
	return []struct {
		name string
		def  *Def
		f    *fakeSource
		sent map[string]any
	}{
		{"rank_weights", Rank, population(1, 300), map[string]any{"breed_id": 640, "top_n": 5, "weights": map[string]any{"WWT": 1.0, "BWT": 0.5}}},
		{"rank_unsorted", Rank, unsorted(population(2, 120)), map[string]any{"breed_id": 640, "top_n": 3, "weights": map[string]any{"WWT": 1.0}, "search_criteria": map[string]any{"gender": "Male"}}},
		{"rank_percentiles", Rank, population(3, 200), map[string]any{"breed_id": 640, "top_n": 4, "weights": map[string]any{"WWT": 1.0, "FAT": -1.0}, "percentiles": true}},
		{"rank_fitted", Rank, over(population(4, 300), 900), map[string]any{"breed_id": 640, "top_n": 20, "weights": map[string]any{"WWT": 1.0}}},
		{"rank_index", Rank, indexed(5, 300), map[string]any{"breed_id": 640, "top_n": 5, "index": "US Hair Index", "percentiles": true}},
		{"rank_index_fitted", Rank, over(indexed(6, 300), 700), map[string]any{"breed_id": 640, "top_n": 20, "index": "us hair index", "search_criteria": map[string]any{"gender": "Female"}}},
		{"rank_for_ewes", Rank, kin(7), map[string]any{"breed_id": 640, "top_n": 4, "weights": map[string]any{"WWT": 1.0}, "for_ewes": ewes}},
		{"rank_for_ewes_max", Rank, kin(7), map[string]any{"breed_id": 640, "top_n": 4, "index": "US Hair Index", "for_ewes": ewes, "max_mean_coi": 0.02}},
		{"compare", Compare, compareHerd(), map[string]any{"lpn_ids": []any{"ANIM1", "ANIM2", "ANIM3"}}},
		{"compare_percentiles", Compare, population(8, 150), map[string]any{"lpn_ids": []any{"6400008POP00001", "6400008POP00002", "6400008POP00160"}, "percentiles": true}},
		{"compare_compact", Compare, over(population(9, 150), 700), map[string]any{"lpn_ids": []any{"6400009POP00001", "6400009POP00002", "6400009POP00003"}, "percentiles": true}},
		{"compare_fitted", Compare, over(population(10, 150), 250), map[string]any{"lpn_ids": []any{"6400010POP00001", "6400010POP00002", "6400010POP00003", "6400010POP00004"}}},
		{"flock", FlockSummary, flockOf(11, 60), map[string]any{"flock_id": "640238"}},
		{"flock_fitted", FlockSummary, over(flockOf(12, 60), 600), map[string]any{"flock_id": "640238"}},
		{"flock_progeny", FlockSummary, progenyFlock(13, 60), map[string]any{"progeny_of": "SIRE0001"}},
		{"flock_search", FlockSummary, flockOf(14, 60), map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Male"}}}},
		{"flock_empty", FlockSummary, flockOf(15, 10), map[string]any{"flock_id": "123456", "breed_id": 640}},
		{"mating", CheckMating, herd("SIRE1 XXXXX YYYYY Male", "DAM01 XXXXX YYYYY Female", "XXXXX PPPPP QQQQQ Male", "PPPPP GGGG1 GGGG2 Male", "QQQQQ GGGG1 GGGG2 Female"), map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}},
		{"mating_unknown", CheckMating, herd("SIRE1 - - Male", "DAM01 GSIR2 GDAM2 Ewe"), map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}},
		{"mating_fitted", CheckMating, over(herd("SIRE1 XXXXX YYYYY Male", "DAM01 XXXXX YYYYY Female"), 300), map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}},
		{"plan", PlanMatings, planHerd(), planSent},
		{"plan_fitted", PlanMatings, over(planHerd(), 500), withArgs(planSent, "max_ewes_per_ram", 1)},
		{"animal_percentiles", AnimalPercentiles, population(16, 150), map[string]any{"search_string": "6400016POP00003", "percentiles": true}},
		{"animal_percentiles_other_breed", AnimalPercentiles, population(17, 100), map[string]any{"search_string": "6400017POP00105", "percentiles": true}},
	}
}

// TestGoldenAnswers holds every analysis variant's answer to the bytes it
// had when the answers were maps: the answer types must encode exactly as
// the maps did, since token counts and every budget decision rest on the
// bytes. -update rewrites the goldens.
func TestGoldenAnswers(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			v, err := Run(context.Background(), c.def, goldenSource{c.f}, discard(), param.SentOf(c.sent), valid(t, c.def, c.sent))
			if err != nil {
				t.Fatal(err)
			}
			value, table := full.Split(v)
			got, err := nsip.PlainJSON(value)
			if err != nil {
				t.Fatal(err)
			}
			if table != nil {
				tb, err := table.JSON()
				if err != nil {
					t.Fatal(err)
				}
				got = append(append(got, '\n'), tb...)
			}
			got = append(got, '\n')
			snapshot.Check(t, filepath.Join("testdata", "golden", c.name+".json"), got, snapshot.Bytes,
				"go test ./gateway/analysis -run GoldenAnswers -update")
		})
	}
}
