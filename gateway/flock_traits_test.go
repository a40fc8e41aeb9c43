package gateway

import (
	"encoding/json"
	"maps"
	"math"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

// "The mean and SD of YWT in this breed, rams and ewes apart": without
// traits the default budget leaves every trait's statistics per sex out;
// with traits [YWT] the answer keeps YWT's, one call within the default
// budget, each equal to the textbook formulas over the stand-in's own
// animals of the breed.
func TestFlockSummaryKeepsNamedTraitsPerSex(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	vals := map[string][]float64{}
	n := 0
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		if a.BreedID != 640 {
			continue
		}
		n++
		if tr, ok := a.Trait("YWT"); ok {
			sex := map[string]string{"Male": "male", "Female": "female"}[a.Gender]
			vals[sex] = append(vals[sex], tr.Value)
			vals["all"] = append(vals["all"], tr.Value)
		}
	}
	type stats struct {
		N    int     `json:"n"`
		Mean float64 `json:"mean"`
		SD   float64 `json:"sd"`
	}
	var a struct {
		Animals int `json:"animals"`
		Traits  []struct {
			Trait string `json:"trait"`
			stats
			BySex map[string]stats `json:"by_sex"`
		} `json:"traits"`
		Computed struct {
			BySexStats string `json:"by_sex_stats"`
		} `json:"computed"`
	}
	group := map[string]any{"breed_id": 640}
	before := e.call("nsip_flock_summary", map[string]any{"search": group}).mustOK(t)
	if err := json.Unmarshal([]byte(before.text), &a); err != nil {
		t.Fatal(err)
	}
	if a.Computed.BySexStats == "" {
		t.Fatalf("without traits the statistics per sex fit the default budget (%v tokens): this test shows nothing", before.meta["tokens"])
	}
	r := e.call("nsip_flock_summary", map[string]any{"search": group, "traits": []string{"ywt"}}).mustOK(t)
	a.Traits = nil
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatal(err)
	}
	if r.meta["summarized"] != false || r.meta["tokens"].(float64) > 2000 || a.Animals != n {
		t.Errorf("summarized %v at %v tokens, %d animals; want the answer whole within 2,000 tokens, %d animals", r.meta["summarized"], r.meta["tokens"], a.Animals, n)
	}
	found := false
	for _, tr := range a.Traits {
		if tr.Trait != "YWT" {
			if tr.BySex != nil {
				t.Errorf("%s keeps its statistics per sex, which only the named YWT should", tr.Trait)
			}
			continue
		}
		found = true
		for sex, want := range vals {
			got := tr.stats
			if sex != "all" {
				got = tr.BySex[sex]
			}
			mean, sd := analysistest.MeanSD(want)
			if got.N != len(want) || math.Abs(got.Mean-mean) > 5e-5 || math.Abs(got.SD-sd) > 5e-5 {
				t.Errorf("YWT %s: n %d mean %v sd %v; want %d %.4f %.4f", sex, got.N, got.Mean, got.SD, len(want), mean, sd)
			}
		}
	}
	if !found || len(vals["male"]) == 0 || len(vals["female"]) == 0 {
		t.Errorf("YWT in the answer %v, rams %d and ewes %d with YWT; want both sexes", found, len(vals["male"]), len(vals["female"]))
	}
	// The way before: the same group again with a larger budget, whose
	// statistics per sex agree.
	again := e.call("nsip_flock_summary", map[string]any{"search": group, "max_tokens": 8000}).mustOK(t)
	var b struct {
		Traits []struct {
			Trait string           `json:"trait"`
			BySex map[string]stats `json:"by_sex"`
		} `json:"traits"`
	}
	_ = json.Unmarshal([]byte(again.text), &b)
	for _, tr := range b.Traits {
		for _, mine := range a.Traits {
			if tr.Trait == "YWT" && mine.Trait == "YWT" && !maps.Equal(tr.BySex, mine.BySex) {
				t.Errorf("YWT by sex: %v with max_tokens 8000, %v with traits", tr.BySex, mine.BySex)
			}
		}
	}
	t.Logf("YWT by sex: 1 call, %v tokens; before, %v + %v tokens", r.meta["tokens"], before.meta["tokens"], again.meta["tokens"])
	body := e.call("nsip_flock_summary", map[string]any{"search": group, "traits": []string{"YWT", "yearling"}}).errorBody(t)
	if body.Field != "traits[1]" {
		t.Errorf("a trait that is no code: %+v; want traits[1] named", body)
	}
}
