package gateway

import (
	"encoding/json"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The examples the tool descriptions give are useful answers on the
// stand-in: the example ram and ewe are unrelated, so their mating is of
// no inbreeding and a plan of them mates the ewe, and the example flock is
// a flock of its breed with animals enough to describe.
func TestDescriptionExamplesAnswerUsefully(t *testing.T) {
	if nsiparg.ExampleLPN != nsiptest.ExampleRam || nsiparg.ExampleEwe != nsiptest.ExampleEwe {
		t.Fatalf("descriptions' ram and ewe %s, %s; the stand-in's %s, %s", nsiparg.ExampleLPN, nsiparg.ExampleEwe, nsiptest.ExampleRam, nsiptest.ExampleEwe)
	}
	e := newEnv(t)
	var m struct {
		COI    *float64 `json:"coi"`
		Rating string   `json:"rating"`
	}
	r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": nsiparg.ExampleLPN, "dam_lpn_id": nsiparg.ExampleEwe}).mustOK(t)
	if err := json.Unmarshal([]byte(r.text), &m); err != nil || m.COI == nil || *m.COI != 0 {
		t.Errorf("example mating: coi %v, rating %q (%v); want 0 for an unrelated pair", m.COI, m.Rating, err)
	}
	var p struct {
		Ewes  int `json:"ewes"`
		Mated int `json:"mated"`
	}
	r = e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": []any{nsiparg.ExampleLPN}, "ewe_lpn_ids": []any{nsiparg.ExampleEwe},
		"weights": map[string]any{"WWT": 1, "BWT": -0.5}, "max_coi": 0.0625}).mustOK(t)
	if err := json.Unmarshal([]byte(r.text), &p); err != nil || p.Ewes != 1 || p.Mated != 1 {
		t.Errorf("example plan: %d of %d ewes mated (%v); want the ewe mated: %.300s", p.Mated, p.Ewes, err, r.text)
	}
	var f struct {
		Animals int            `json:"animals"`
		BySex   map[string]int `json:"by_sex"`
	}
	r = e.call("nsip_flock_summary", map[string]any{"flock_id": "640238"}).mustOK(t)
	if err := json.Unmarshal([]byte(r.text), &f); err != nil || f.Animals < 20 || f.BySex["male"] == 0 || f.BySex["female"] == 0 {
		t.Errorf("example flock 640238: %d animals, by sex %v (%v); want 20 or more of both sexes", f.Animals, f.BySex, err)
	}
}
