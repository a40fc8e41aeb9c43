package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
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
	if param.JSONText(a.Traits) != `["BWT","WWT","NWT"]` {
		t.Errorf("traits %v, want NSIP's order BWT WWT NWT", a.Traits)
	}
	if param.JSONText(a.Best) != `{"BWT":["640TB"],"WWT":["640TA","640TC"]}` {
		t.Errorf("best = %s", param.JSONText(a.Best))
	}
	if param.JSONText(a.NotRanked.Traits) != `["NWT"]` || param.JSONText(a.Unknown) != `["640TC:BWT"]` {
		t.Errorf("not ranked %v, unknown %v", a.NotRanked.Traits, a.Unknown)
	}
	if a.Animals[0].Sire != lpn("S1") || a.Animals[1].EBV[0][0] != -0.3 || a.Animals[1].EBV[0][1] != 55 || a.Animals[2].EBV[0] != nil {
		t.Errorf("rows %s", param.JSONText(a.Animals))
	}
	if h.count("details/getAnimalDetails") != 3 {
		t.Errorf("%d details requests, want one per animal", h.count("details/getAnimalDetails"))
	}
}

func TestCompareAnimalsRefusesUnknownTraits(t *testing.T) {
	e := herdEnv(t, newHerd())
	te := e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A"), lpn("B")}, "traits": []string{"BWT", "fecc"}}).errorBody(t)
	if te.Code != toolerr.CodeInvalidArgument || te.Field != "traits[1]" || !strings.Contains(te.Problem, `did you mean "FEC"`) {
		t.Errorf("unknown trait: %+v", te)
	}
	te = e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A")}}).errorBody(t)
	if te.Field != "lpn_ids" || !strings.Contains(te.Problem, "1 items; give 2..20") {
		t.Errorf("one animal: %+v", te)
	}
	te = e.call("nsip_compare_animals", map[string]any{"lpn_ids": []string{lpn("A"), lpn("B")}}).errorBody(t)
	if te.Code != toolerr.CodeNotFound || te.Field != "lpn_ids[0]" || te.Value != lpn("A") {
		t.Errorf("unknown animal: %+v", te)
	}
}

// Twenty animals by twenty traits with accuracies would pass the budget:
// the values stay, the accuracies go, and the answer says so.
func TestCompareAnimalsDropsAccuraciesBeforeTheBudget(t *testing.T) {
	h := newHerd()
	var ids []string
	codes := nsip.GlossaryCodes()[:20]
	for i := range 20 {
		b := h.get(fmt.Sprintf("640C%04d", i))
		for j, c := range codes {
			b.ebv[c] = [2]float64{float64(i*j) / 4, 0.61}
		}
		ids = append(ids, b.id)
	}
	e := herdEnv(t, h)
	r := e.call("nsip_compare_animals", map[string]any{"lpn_ids": ids}).mustOK(t)
	var a struct {
		Traits     []string `json:"traits"`
		Columns    []string `json:"columns"`
		Animals    [][]any  `json:"animals"`
		Accuracies string   `json:"accuracies"`
		Parents    string   `json:"parents"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	if r.meta["summarized"] != false || a.Accuracies == "" || len(a.Traits) != 20 || len(a.Animals) != 20 {
		t.Fatalf("summarized %v, accuracies %q, %d traits, %d animals: %v %.600s", r.meta["summarized"], a.Accuracies, len(a.Traits), len(a.Animals), r.meta, r.text)
	}
	// Animal 4's value of the trait listed j-th in the glossary is 4 j / 4 = j.
	// The breed all share is said once, not per row; so are the parents,
	// recorded for none of them.
	if len(a.Columns) != 3+20 || a.Columns[3] != a.Traits[0] || a.Animals[4][0] != "640C0004" || !strings.Contains(a.Parents, "no sire or dam") {
		t.Fatalf("columns %v, row %v, parents %q", a.Columns, a.Animals[4], a.Parents)
	}
	for k, c := range a.Traits {
		if j := slices.Index(codes, c); a.Animals[4][3+k] != float64(j) {
			t.Errorf("animal 4 %s = %v, want %d", c, a.Animals[4][5+k], j)
		}
	}
}

// Breed percentiles through the whole call path against the stand-in:
// each top_percent is the share of the breed counted over its data.
func TestComparePercentilesThroughTheStandIn(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	var ids []string
	for _, id := range d.AnimalIDs() {
		if an, _ := d.Animal(id); an.BreedID == 640 && len(ids) < 3 {
			ids = append(ids, id)
		}
	}
	r := e.call("nsip_compare_animals", map[string]any{"lpn_ids": ids, "traits": []string{"BWT", "WWT"}, "percentiles": true}).mustOK(t)
	var a struct {
		Animals []struct {
			TopPercent []*float64 `json:"top_percent"`
		} `json:"animals"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || len(a.Animals) != 3 {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	for i, id := range ids {
		an, _ := d.Animal(id)
		for k, code := range []string{"BWT", "WWT"} {
			v, _ := an.Trait(code)
			n, good := 0, 0
			for _, other := range d.AnimalIDs() {
				o, _ := d.Animal(other)
				x, ok := o.Trait(code)
				if o.BreedID != 640 || !ok {
					continue
				}
				n++
				if x.Value == v.Value || code == "WWT" && x.Value > v.Value || code == "BWT" && x.Value < v.Value {
					good++
				}
			}
			want := math.Round(10000*float64(good)/float64(n)) / 100
			if got := a.Animals[i].TopPercent[k]; got == nil || *got != want {
				t.Errorf("%s %s: top_percent %v, counted %v: %.600s", id, code, got, want, r.text)
			}
		}
	}
}

// nsip_get_animal with percentiles: each EBV with its top_percent in the
// breed, counted over the stand-in's data; without, NSIP's record as sent.
func TestAnimalPercentiles(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	var id string
	for _, x := range d.AnimalIDs() {
		if an, _ := d.Animal(x); an.BreedID == 640 {
			id = x
			break
		}
	}
	r := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": true}).mustOK(t)
	var a struct {
		LPNID string  `json:"lpn_id"`
		EBVs  [][]any `json:"ebvs"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil || a.LPNID != id || len(a.EBVs) < 13 {
		t.Fatalf("%v: %.400s", err, r.text)
	}
	an, _ := d.Animal(id)
	for _, row := range a.EBVs {
		code := row[0].(string)
		if code != "BWT" && code != "WWT" {
			continue
		}
		v, _ := an.Trait(code)
		n, good := 0, 0
		for _, other := range d.AnimalIDs() {
			o, _ := d.Animal(other)
			if x, ok := o.Trait(code); o.BreedID == 640 && ok {
				n++
				if x.Value == v.Value || code == "WWT" && x.Value > v.Value || code == "BWT" && x.Value < v.Value {
					good++
				}
			}
		}
		if want := math.Round(10000*float64(good)/float64(n)) / 100; row[3] != want {
			t.Errorf("%s: top_percent %v, counted %v", code, row[3], want)
		}
	}
	plain := e.call("nsip_get_animal", map[string]any{"search_string": id, "percentiles": false}).mustOK(t)
	if strings.Contains(plain.text, "top_percent") || !strings.Contains(plain.text, "searchResultViewModel") {
		t.Errorf("without percentiles: %.300s", plain.text)
	}
}
