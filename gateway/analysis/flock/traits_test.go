package flock

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

type namedAnswer struct {
	Traits []struct {
		Trait string `json:"trait"`
		BySex map[string]struct {
			N        int
			Mean, SD float64
		} `json:"by_sex"`
	} `json:"traits"`
	NoEBV    []string `json:"no_ebv"`
	Computed struct {
		BySexStats  string `json:"by_sex_stats"`
		OtherTraits string `json:"other_traits"`
	} `json:"computed"`
}

// With a budget that holds one trait's statistics per sex and no more,
// the named WWT keeps its own, equal to the textbook formulas over the
// fake's animals of the flock by sex; the other traits give way, named;
// and YWT, named but held by no animal, is said to be missing.
func TestFlockSummaryNamedTraitsGiveWayLast(t *testing.T) {
	f := analysistest.FlockOf(21, 80)
	f.OverIf = func(v any) bool {
		b, _ := json.Marshal(v)
		var a namedAnswer
		_ = json.Unmarshal(b, &a)
		return len(a.Traits) > 1
	}
	var a namedAnswer
	analysistest.MustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238", "traits": []any{"wwt", "YWT"}}, &a)
	if len(a.Traits) != 1 || a.Traits[0].Trait != "WWT" || a.Computed.OtherTraits == "" || a.Computed.BySexStats == "" || !slices.Equal(a.NoEBV, []string{"YWT"}) {
		t.Fatalf("traits %+v, other_traits %q, by_sex_stats %q, no_ebv %v; want WWT alone, the others named, YWT missing",
			a.Traits, a.Computed.OtherTraits, a.Computed.BySexStats, a.NoEBV)
	}
	if a.Computed.OtherTraits != "BWT, NLB: left out to fit the answer's budget; name them in traits, or see every EBV in the answer's full table" {
		t.Errorf("other_traits %q", a.Computed.OtherTraits)
	}
	by := map[string][]float64{}
	for _, x := range f.Animals {
		if v, ok := x.EBV["WWT"]; ok && x.Flock == "640238" {
			s := map[string]string{"Male": "male", "1": "male", "Female": "female", "2": "female", "": "unknown"}[x.Sex]
			by[s] = append(by[s], v)
		}
	}
	if len(by) != len(a.Traits[0].BySex) {
		t.Errorf("sexes %v, want %d", a.Traits[0].BySex, len(by))
	}
	for sex, vs := range by {
		mean, sd := analysistest.MeanSD(vs)
		got := a.Traits[0].BySex[sex]
		if got.N != len(vs) || math.Abs(got.Mean-mean) > 5e-5 || math.Abs(got.SD-sd) > 5e-5 {
			t.Errorf("WWT %s: %+v; want n %d mean %.4f sd %.4f", sex, got, len(vs), mean, sd)
		}
	}
}
