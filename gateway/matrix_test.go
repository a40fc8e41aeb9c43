package gateway

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// "The inbreeding of each of these 3 rams with each of these 5 ewes" is
// one call without weights, well within 2,000 tokens. planHerd's COIs
// with R3, R1's full brother, worked by hand: R1 x his daughters E1, E2
// and his granddaughter-by-a-daughter E7 (E7 = R1 x D7) 1/4; R2 x E7 (his
// granddaughter) 1/8; R3 x E1, E2, E7, his nieces, (1/2)(1/4) = 1/8;
// E3 and E4 are related to none.
func TestCOIMatrixThreeRamsFiveEwes(t *testing.T) {
	h := planHerd()
	h.pedigree(lpnLines([]string{"R3 P1 Q1"})...)
	e := herdEnv(t, h)
	rams := []string{lpn("R1"), lpn("R2"), lpn("R3")}
	ewes := []string{lpn("E1"), lpn("E2"), lpn("E3"), lpn("E4"), lpn("E7")}
	r := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "coi_only": true}).mustOK(t)
	var a struct {
		COI        map[string][]any `json:"coi"`
		Ewes       []string         `json:"ewes"`
		OverMaxCOI int              `json:"over_max_coi"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	want := `{"640TR1":[0.25,0.25,0,0,0.25],"640TR2":[0,0,0,0,0.125],"640TR3":[0.125,0.125,0,0,0.125]}`
	if got := param.JSONText(a.COI); got != want || param.JSONText(a.Ewes) != param.JSONText(ewes) || a.OverMaxCOI != 7 {
		t.Errorf("coi %s, ewes %v, over %d; want %s in the order asked, 7 over 1/16", got, a.Ewes, a.OverMaxCOI, want)
	}
	if tokens, _ := r.meta["tokens"].(float64); r.meta["summarized"] != false || tokens == 0 || tokens >= 2000 {
		t.Errorf("summarized %v at %v tokens; want the matrix whole under 2,000", r.meta["summarized"], r.meta["tokens"])
	}
	// The way before: a check of each pair, fifteen calls, which agree.
	before := 0.0
	for _, ram := range rams {
		for i, ewe := range ewes {
			c := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": ram, "dam_lpn_id": ewe}).mustOK(t)
			var m struct {
				COI float64 `json:"coi"`
			}
			_ = json.Unmarshal([]byte(c.text), &m)
			if m.COI != a.COI[ram][i] {
				t.Errorf("%s x %s: check_mating %v, the matrix %v", ram, ewe, m.COI, a.COI[ram][i])
			}
			n, _ := c.meta["tokens"].(float64)
			before += n
		}
	}
	t.Logf("3 x 5: 1 call, %v tokens; by check_mating 15 calls, %v tokens", r.meta["tokens"], before)

	// Weights beside coi_only are refused, naming them, and the example
	// of a correct call is this one without them.
	te := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "coi_only": true, "weights": map[string]any{"WWT": 1}}).errorBody(t)
	if ex := exampleOf(te.Example); te.Field != "weights" || ex["weights"] != nil || ex["coi_only"] != true {
		t.Errorf("weights with coi_only: %+v; want weights named and an example without them", te)
	}
}

// The largest matrix, 10 rams by 100 ewes, in one call: the answer fits
// the default budget, names the ewes it does not show, and links the whole
// matrix, whose every cell is the rule the herd was bred by: each ewe is a
// daughter of ram i mod 10, so her lamb by him is 1/4, by any other 0.
func TestCOIMatrixLargestLinksTheWhole(t *testing.T) {
	h := newHerd()
	var rams, ewes []string
	for i := range 10 {
		id := fmt.Sprintf("640R%04d", i)
		h.pedigree(fmt.Sprintf("%s 640P%04d 640Q%04d", id, i, i))
		h.get(id).sex = "Male"
		rams = append(rams, id)
	}
	for i := range 100 {
		id := fmt.Sprintf("640E%04d", i)
		h.pedigree(fmt.Sprintf("%s %s 640M%04d", id, rams[i%10], i))
		ewes = append(ewes, id)
	}
	e := herdEnv(t, h)
	r := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "coi_only": true}).mustOK(t)
	var a struct {
		COI        map[string][]any `json:"coi"`
		Ewes       []string         `json:"ewes"`
		OverMaxCOI int              `json:"over_max_coi"`
		NotShown   struct {
			Rows int `json:"rows"`
		} `json:"not_shown"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %s", err, r.text)
	}
	n := len(a.Ewes)
	if tokens, _ := r.meta["tokens"].(float64); r.meta["summarized"] != false || tokens > 2000 || n == 0 || a.NotShown.Rows != 100-n || a.OverMaxCOI != 100 {
		t.Fatalf("summarized %v at %v tokens, %d ewes shown, not_shown %d, over %d; want the first ewes within 2,000 tokens, the rest counted, 100 over",
			r.meta["summarized"], r.meta["tokens"], n, a.NotShown.Rows, a.OverMaxCOI)
	}
	for ri, ram := range rams {
		for ei := range n {
			if want := coiByRule(ri, ei); a.COI[ram][ei] != want {
				t.Errorf("%s x %s shown %v, want %v", ram, ewes[ei], a.COI[ram][ei], want)
			}
		}
	}
	_, csvURI := fullOf(t, r)
	text, err := readFull(e.client, csvURI)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(recs) != 11 || len(recs[0]) != 101 || recs[0][0] != "ram" || recs[0][100] != ewes[99] {
		t.Fatalf("CSV %d rows (%v), header %.80v; want a header of ram and the 100 ewes, and 10 rows", len(recs), err, recs)
	}
	for ri, rec := range recs[1:] {
		for ei, cell := range rec[1:] {
			if v, err := strconv.ParseFloat(cell, 64); rec[0] != rams[ri] || err != nil || v != coiByRule(ri, ei) {
				t.Errorf("CSV %s x %s = %q, want %v", rec[0], recs[0][ei+1], cell, coiByRule(ri, ei))
			}
		}
	}
	t.Logf("10 x 100: %v tokens, %d ewes shown", r.meta["tokens"], n)
}

// coiByRule is the COI of ram ri's lamb with ewe ei in the largest
// matrix's herd.
func coiByRule(ri, ei int) float64 {
	if ei%10 == ri {
		return 0.25
	}
	return 0
}
