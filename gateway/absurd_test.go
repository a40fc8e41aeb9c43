package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// NSIP promises nothing about its numbers. An EBV of 1e154 (which overflows
// to +Inf once squared), one of 1.7e308 (which overflows when two are
// added) and one no float holds (1e999) are each treated as missing, every
// analysis still answers, and each answer names what it dropped.
func TestAnalysesIgnoreAbsurdEBVsAndNameThem(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	rams, ewes := deepKatahdins(t, d, 3, 2, 3)
	// The Katahdin of highest WWT is on the first page a WWT ranking reads.
	best, bestWWT := "", 0.0
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		for _, tr := range a.Traits {
			if a.BreedID == 640 && tr.Code == "WWT" && (best == "" || tr.Value > bestWWT) {
				best, bestWWT = id, tr.Value
			}
		}
	}
	spoilt := map[string][2]string{rams[0]: {"WWT", "1e154"}, ewes[0]: {"WWT", "1.7e308"}, ewes[1]: {"BWT", "1e999"}, best: {"WWT", "-1e154"}}
	for id, s := range spoilt {
		e.up.SetTraitText(id, s[0], s[1])
	}
	flock, _ := d.Animal(ewes[0])
	cases := []struct {
		tool  string
		args  map[string]any
		named []string // LPN IDs whose dropped values the answer must name
	}{
		{"nsip_check_mating", map[string]any{"sire_lpn_id": rams[0], "dam_lpn_id": ewes[0]}, []string{rams[0], ewes[0]}},
		{"nsip_compare_animals", map[string]any{"lpn_ids": []string{rams[0], ewes[0], ewes[1]}}, []string{rams[0], ewes[0], ewes[1]}},
		{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1}, "top_n": 5}, []string{best}},
		{"nsip_flock_summary", map[string]any{"flock_id": flock.FlockCode}, []string{ewes[0]}},
		{"nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"BWT": -1}, "max_coi": 1}, []string{rams[0], ewes[0], ewes[1]}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			r := e.call(c.tool, c.args).mustOK(t)
			var a struct {
				Ignored struct {
					Note   string              `json:"note"`
					Values []map[string]string `json:"values"`
				} `json:"ignored_values"`
			}
			if err := json.Unmarshal([]byte(r.text), &a); err != nil {
				t.Fatalf("%v: %.300s", err, r.text)
			}
			if !strings.Contains(a.Ignored.Note, "treated as missing") {
				t.Errorf("ignored_values note = %q", a.Ignored.Note)
			}
			for _, id := range c.named {
				want := map[string]string{"lpn_id": id, "trait": spoilt[id][0], "raw": spoilt[id][1]}
				found := false
				for _, v := range a.Ignored.Values {
					found = found || fmt.Sprint(v) == fmt.Sprint(want)
				}
				if !found {
					t.Errorf("ignored_values %v does not name %v", a.Ignored.Values, want)
				}
			}
			for _, s := range []string{"1e+154", "Inf", "NaN"} {
				if strings.Contains(r.text, s) {
					t.Errorf("the answer carries %q: %.400s", s, r.text)
				}
			}
		})
	}
}

// Arithmetic can overflow on values each within reason: weights of 1e308
// make every index infinite. The answer still encodes, the index is null,
// and the answer says where numbers overflowed.
func TestAnalysisWithOverflowingArithmeticStillAnswers(t *testing.T) {
	e := newEnv(t)
	r := e.call("nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1e308, "BWT": 1e308}, "top_n": 3}).mustOK(t)
	var a struct {
		Top [][]any `json:"top"`
		NF  struct {
			Note  string   `json:"note"`
			Paths []string `json:"paths"`
		} `json:"non_finite_values"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	if len(a.Top) == 0 || a.Top[0][2] != nil {
		t.Fatalf("top rows %v: want the index (third column) null", a.Top)
	}
	if len(a.NF.Paths) == 0 || a.NF.Paths[0] != "top[0][2]" || !strings.Contains(a.NF.Note, "overflowed") {
		t.Errorf("non_finite_values = %+v, want top[0][2] first", a.NF)
	}
}
