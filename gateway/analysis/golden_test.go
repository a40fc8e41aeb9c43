package analysis_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// goldenSource is a fake whose upstream block has every member the
// gateway's has, so that the goldens hold the answer as a client reads it.
type goldenSource struct{ *analysistest.FakeSource }

func (g goldenSource) Upstream() analysis.Upstream {
	n := g.FakeSource.Upstream().Lookups
	return analysis.Upstream{Lookups: n, Fetched: n, Ceiling: 500, TimeLimitSeconds: 30}
}

// goldenCases are one call of each analysis variant, with the answer's
// optional parts present where a small fixture can show them.
func goldenCases() []struct {
	name string
	def  *analysis.Def
	f    *analysistest.FakeSource
	sent map[string]any
} {
	over := func(f *analysistest.FakeSource, n int) *analysistest.FakeSource { f.OverAt = n; return f }
	unsorted := func(f *analysistest.FakeSource) *analysistest.FakeSource { f.Unsorted = true; return f }
	ewes := analysistest.AnyList(analysistest.YoungEwes(analysistest.Kin(7), 3))
	return []struct {
		name string
		def  *analysis.Def
		f    *analysistest.FakeSource
		sent map[string]any
	}{
		{"rank_weights", rank.Rank, analysistest.Population(1, 300), map[string]any{"breed_id": 640, "top_n": 5, "weights": map[string]any{"WWT": 1.0, "BWT": 0.5}}},
		{"rank_unsorted", rank.Rank, unsorted(analysistest.Population(2, 120)), map[string]any{"breed_id": 640, "top_n": 3, "weights": map[string]any{"WWT": 1.0}, "search_criteria": map[string]any{"gender": "Male"}}},
		{"rank_percentiles", rank.Rank, analysistest.Population(3, 200), map[string]any{"breed_id": 640, "top_n": 4, "weights": map[string]any{"WWT": 1.0, "FAT": -1.0}, "percentiles": true}},
		{"rank_fitted", rank.Rank, over(analysistest.Population(4, 300), 900), map[string]any{"breed_id": 640, "top_n": 20, "weights": map[string]any{"WWT": 1.0}}},
		{"rank_index", rank.Rank, analysistest.Indexed(5, 300), map[string]any{"breed_id": 640, "top_n": 5, "index": "US Hair Index", "percentiles": true}},
		{"rank_index_fitted", rank.Rank, over(analysistest.Indexed(6, 300), 700), map[string]any{"breed_id": 640, "top_n": 20, "index": "us hair index", "search_criteria": map[string]any{"gender": "Female"}}},
		{"rank_for_ewes", rank.Rank, analysistest.Kin(7), map[string]any{"breed_id": 640, "top_n": 4, "weights": map[string]any{"WWT": 1.0}, "for_ewes": ewes}},
		{"rank_for_ewes_max", rank.Rank, analysistest.Kin(7), map[string]any{"breed_id": 640, "top_n": 4, "index": "US Hair Index", "for_ewes": ewes, "max_mean_coi": 0.02}},
		{"compare", compare.Compare, analysistest.CompareHerd(), map[string]any{"lpn_ids": []any{"ANIM1", "ANIM2", "ANIM3"}}},
		{"compare_percentiles", compare.Compare, analysistest.Population(8, 150), map[string]any{"lpn_ids": []any{"6400008POP00001", "6400008POP00002", "6400008POP00160"}, "percentiles": true}},
		{"compare_compact", compare.Compare, over(analysistest.Population(9, 150), 700), map[string]any{"lpn_ids": []any{"6400009POP00001", "6400009POP00002", "6400009POP00003"}, "percentiles": true}},
		{"compare_fitted", compare.Compare, over(analysistest.Population(10, 150), 250), map[string]any{"lpn_ids": []any{"6400010POP00001", "6400010POP00002", "6400010POP00003", "6400010POP00004"}}},
		{"flock", flock.FlockSummary, analysistest.FlockOf(11, 60), map[string]any{"flock_id": "640238"}},
		{"flock_fitted", flock.FlockSummary, over(analysistest.FlockOf(12, 60), 600), map[string]any{"flock_id": "640238"}},
		{"flock_traits_fitted", flock.FlockSummary, over(analysistest.FlockOf(12, 60), 600), map[string]any{"flock_id": "640238", "traits": []any{"WWT"}}},
		{"flock_progeny", flock.FlockSummary, analysistest.ProgenyFlock(13, 60), map[string]any{"progeny_of": "SIRE0001"}},
		{"flock_search", flock.FlockSummary, analysistest.FlockOf(14, 60), map[string]any{"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Male"}}}},
		{"flock_empty", flock.FlockSummary, analysistest.FlockOf(15, 10), map[string]any{"flock_id": "123456", "breed_id": 640}},
		{"mating", mating.CheckMating, analysistest.Herd("SIRE1 XXXXX YYYYY Male", "DAM01 XXXXX YYYYY Female", "XXXXX PPPPP QQQQQ Male", "PPPPP GGGG1 GGGG2 Male", "QQQQQ GGGG1 GGGG2 Female"), map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}},
		{"mating_unknown", mating.CheckMating, analysistest.Herd("SIRE1 - - Male", "DAM01 GSIR2 GDAM2 Ewe"), map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}},
		{"mating_fitted", mating.CheckMating, over(analysistest.Herd("SIRE1 XXXXX YYYYY Male", "DAM01 XXXXX YYYYY Female"), 300), map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}},
		{"plan", plan.PlanMatings, analysistest.PlanHerd(), analysistest.PlanSent},
		{"plan_matrix", plan.PlanMatings, analysistest.PlanHerd(), map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01", "EWE02", "EWE03"}, "coi_only": true}},
		{"plan_fitted", plan.PlanMatings, over(analysistest.PlanHerd(), 500), analysistest.WithArgs(analysistest.PlanSent, "max_ewes_per_ram", 1)},
		{"animal_percentiles", percentile.AnimalPercentiles, analysistest.Population(16, 150), map[string]any{"search_string": "6400016POP00003", "percentiles": true}},
		{"animal_percentiles_other_breed", percentile.AnimalPercentiles, analysistest.Population(17, 100), map[string]any{"search_string": "6400017POP00105", "percentiles": true}},
	}
}

// TestGoldenAnswers holds every analysis variant's answer to the bytes it
// had when the answers were maps: the answer types must encode exactly as
// the maps did, since token counts and every budget decision rest on the
// bytes. -update rewrites the goldens.
func TestGoldenAnswers(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			v, err := analysis.Run(context.Background(), c.def, goldenSource{c.f}, analysistest.Discard(), param.SentOf(c.sent), analysistest.Valid(t, c.def, c.sent))
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
