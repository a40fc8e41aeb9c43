package gateway

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCompareAnimalsMarksBestByDirection(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"A S1 D1", "B S1 D2", "C - -"})...)
	// BWT: lower is better -> B (-0.3). WWT: higher is better -> A and C tie
	// at 2.5. NWT has no documented direction -> never marked. C lacks BWT.
	h.get(lpn("A")).ebv = map[string][2]float64{"BWT": {0.2, 0.81}, "WWT": {2.5, 0.7}, "NWT": {1, 0.5}}
	h.get(lpn("B")).ebv = map[string][2]float64{"BWT": {-0.3, 0.55}, "WWT": {1.0, 0.6}, "NWT": {3, 0.5}}
	h.get(lpn("C")).ebv = map[string][2]float64{"WWT": {2.5, 0.4}, "NWT": {2, 0.5}}
	e := herdEnv(t, h)
	r := e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A"), lpn("B"), strings.ToLower(lpn("C"))}}).mustOK(t)
	var a struct {
		Traits  []string `json:"traits"`
		Animals []struct {
			LPNID string        `json:"lpn_id"`
			Sire  string        `json:"sire"`
			EBV   []*[2]float64 `json:"ebv"`
		} `json:"animals"`
		Best      map[string][]string       `json:"best"`
		NotRanked struct{ Traits []string } `json:"not_ranked"`
		Unknown   []string                  `json:"unknown"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	if jsonText(a.Traits) != `["BWT","WWT","NWT"]` {
		t.Errorf("traits %v, want NSIP's order BWT WWT NWT", a.Traits)
	}
	if jsonText(a.Best) != `{"BWT":["640TB"],"WWT":["640TA","640TC"]}` {
		t.Errorf("best = %s", jsonText(a.Best))
	}
	if jsonText(a.NotRanked.Traits) != `["NWT"]` || jsonText(a.Unknown) != `["640TC:BWT"]` {
		t.Errorf("not ranked %v, unknown %v", a.NotRanked.Traits, a.Unknown)
	}
	if a.Animals[0].Sire != lpn("S1") || a.Animals[1].EBV[0][0] != -0.3 || a.Animals[1].EBV[0][1] != 55 || a.Animals[2].EBV[0] != nil {
		t.Errorf("rows %s", jsonText(a.Animals))
	}
	if h.count("details/getAnimalDetails") != 3 {
		t.Errorf("%d details requests, want one per animal", h.count("details/getAnimalDetails"))
	}
}

func TestCompareAnimalsRefusesUnknownTraits(t *testing.T) {
	e := herdEnv(t, newHerd())
	te := e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A"), lpn("B")}, "traits": []string{"BWT", "fecc"}}).errorBody(t)
	if te.Code != CodeInvalidArgument || te.Field != "traits[1]" || !strings.Contains(te.Problem, `did you mean "FEC"`) {
		t.Errorf("unknown trait: %+v", te)
	}
	te = e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A")}}).errorBody(t)
	if te.Field != "lpn_ids" || !strings.Contains(te.Problem, "1 items; give 2..20") {
		t.Errorf("one animal: %+v", te)
	}
	te = e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A"), lpn("B")}}).errorBody(t)
	if te.Code != CodeNotFound || te.Field != "lpn_ids[0]" || te.Value != lpn("A") {
		t.Errorf("unknown animal: %+v", te)
	}
}
