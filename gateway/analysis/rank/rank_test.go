// Tests of nsip_rank_animals (rank.go) as a client calls it: its published
// contract and how a call's arguments are read. Its runs are in
// run_test.go; for_ewes and index each have their own files
// (ewes.go, index.go) and tests beside them.

package rank

import (
	"errors"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

func TestRankContract(t *testing.T) { analysistest.CheckContract(t, Rank, SchemaNames()) }

// Weights' trait codes and a criterion's status are upper-cased and top_n
// takes its default; a top_n over 50 is refused by its name.
func TestRankArguments(t *testing.T) {
	a := analysistest.Decoded[Args](t, Rank, map[string]any{"breed_id": 640, "weights": map[string]any{"wwt": 1, "bwt": -0.5}, "search_criteria": map[string]any{"status": "current"}})
	if a.BreedID != 640 || len(a.Weights) != 2 || a.Weights["WWT"] != 1 || a.Weights["BWT"] != -0.5 || a.TopN != 10 ||
		a.Criteria == nil || a.Criteria.Status != "CURRENT" {
		t.Errorf("read as %+v", a)
	}
	if fe := analysistest.Invalid(t, Rank, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 51}); fe.Field != "top_n" || fe.Problem != "must be at most 50, got 51" {
		t.Errorf("top_n 51: %+v", fe)
	}
}

// Ranking takes breed_id beside its criteria, not among them, as it always
// has.
func TestRankCriteriaTakeNoBreed(t *testing.T) {
	_, errs := Rank.Validate(param.SentOf(map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "search_criteria": map[string]any{"breed_id": 640}}))
	if len(errs) != 1 || errs[0].Field != "search_criteria.breed_id" || !strings.HasPrefix(errs[0].Problem, "is not a field of search_criteria") {
		t.Errorf("errors %v, want search_criteria.breed_id refused", errs)
	}
}

// A max_mean_coi of 0 is a limit like any other: without for_ewes it is
// refused, as it would be were it 0.1.
func TestRankMaxMeanCOIZero(t *testing.T) {
	_, err := analysistest.Run(t, Rank, analysistest.Kin(5), map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "max_mean_coi": 0})
	var ae *analysis.ArgError
	if !errors.As(err, &ae) || ae.Field != "max_mean_coi" {
		t.Errorf("max_mean_coi 0 alone: %v, want it refused for want of for_ewes", err)
	}
}
