// Tests of what every analysis's arguments share: each is a struct the
// validated arguments decode into, strictly. What is one tool's alone is
// beside that tool, in its own test file (mating_test.go for mating.go, and
// so on).

package analysis_test

import (
	"errors"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// Each analysis's arguments are its struct: every argument the schema
// publishes is a field the run reads, and the validated arguments of a
// full call decode into it.
func TestArgumentStructsHoldEveryArgument(t *testing.T) {
	calls := map[*analysis.Def]map[string]any{
		compare.Compare:    {"lpn_ids": []any{"6402382024NCS310", "6402382022NCS087"}, "traits": []any{"wwt"}, "percentiles": true, "max_tokens": 3000},
		mating.CheckMating: {"sire_lpn_id": "6402382024NCS310", "dam_lpn_id": "6402382022NCS087", "max_tokens": 3000},
		plan.PlanMatings:   {"ram_lpn_ids": []any{"6402382024NCS310"}, "ewe_lpn_ids": []any{"6402382022NCS087"}, "weights": map[string]any{"WWT": 1.0}, "max_coi": 0.1, "max_ewes_per_ram": 3, "max_tokens": 3000, "coi_only": true},
		flock.FlockSummary: {"search": map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "male", "trait_ranges": map[string]any{"wwt": map[string]any{"min": 1}}}}},
		rank.Rank: {"breed_id": 640, "top_n": 5, "index": "US Hair Index", "max_mean_coi": 0.0, "percentiles": true, "for_ewes": []any{"6402382022NCS087"},
			"search_criteria": map[string]any{"status": "current", "born_after": "2020-01-01"}, "max_tokens": 3000},
	}
	decoded := map[*analysis.Def]any{compare.Compare: &compare.Args{}, mating.CheckMating: &mating.Args{}, plan.PlanMatings: &plan.Args{}, flock.FlockSummary: &flock.Args{}, rank.Rank: &rank.Args{}}
	for _, d := range []*analysis.Def{mating.CheckMating, compare.Compare, rank.Rank, flock.FlockSummary, plan.PlanMatings} {
		sent := calls[d]
		args, errs := d.Validate(param.SentOf(sent))
		if len(errs) > 0 {
			t.Fatalf("%s: %v", d.Name, errs)
		}
		for _, p := range d.Args.Specs {
			if _, ok := sent[p.Name]; !ok && d != flock.FlockSummary {
				t.Errorf("%s: the test call leaves out %s", d.Name, p.Name)
			}
		}
		if err := analysis.DecodeArgs(args, decoded[d]); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	if c := decoded[compare.Compare].(*compare.Args); len(c.Traits) != 1 || c.Traits[0] != "WWT" || len(c.LPNIDs) != 2 || !c.Percentiles || c.MaxTokens != 3000 {
		t.Errorf("compare: %+v", c)
	}
	if p := decoded[plan.PlanMatings].(*plan.Args); p.MaxCOI != 0.1 || p.MaxPerRam != 3 || p.Weights["WWT"] != 1 {
		t.Errorf("plan: %+v", p)
	}
	s := decoded[flock.FlockSummary].(*flock.Args).Search
	if s == nil || s.BreedID != 640 || s.Criteria.Gender != "Male" || s.Criteria.TraitRanges["WWT"].Min != 1 {
		t.Errorf("flock search: %+v", s)
	}
	r := decoded[rank.Rank].(*rank.Args)
	if r.MaxMeanCOI == nil || *r.MaxMeanCOI != 0 || r.Criteria.Status != "CURRENT" || r.TopN != 5 {
		t.Errorf("rank: %+v (a max_mean_coi of 0 is a limit, not none)", r)
	}
}

// Validated arguments the struct cannot hold are refused by name, not
// dropped: a mating's arguments read as a comparison's name the first
// member the comparison lacks.
func TestDecodeArgsIsStrict(t *testing.T) {
	args, errs := mating.CheckMating.Validate(param.SentOf(map[string]any{"sire_lpn_id": "6402382024ncs310", "dam_lpn_id": "6402382022NCS087", "max_tokens": 900}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var c compare.Args
	var ae *analysis.ArgError
	if err := analysis.DecodeArgs(args, &c); !errors.As(err, &ae) || ae.Field != "dam_lpn_id" {
		t.Errorf("a mating's arguments as a comparison's: %v, want an error naming dam_lpn_id", err)
	}
	var a mating.Args
	if err := analysis.DecodeArgs(args, &a); err != nil || a.Sire != "6402382024NCS310" || a.MaxTokens != 900 {
		t.Errorf("max_tokens is every tool's (param.Budget): %v %+v", err, a)
	}
}
