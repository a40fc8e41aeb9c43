package gateway

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// ancestryFake is the animals of breed in d that are id or its ancestors
// through the breed's own records, as the fake holds them, for the
// tabular method: a parent of another breed, or none the stand-in has, is
// a founder, as in the breed's pass.
func ancestryFake(d *nsiptest.Dataset, breed int, ids ...string) *analysistest.FakeSource {
	f := analysistest.NewFake()
	todo := ids
	for len(todo) > 0 {
		id := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		a, ok := d.Animal(id)
		if _, seen := f.Animals[id]; seen || !ok || a.BreedID != breed {
			continue
		}
		f.Add(&analysistest.FakeAnimal{ID: id, Sire: a.Sire, Dam: a.Dam, Breed: breed})
		todo = append(todo, a.Sire, a.Dam)
	}
	return f
}

// The stand-in's Katahdins (breed 640, seed 1, 4,000 animals, as nsip-stub
// serves by default): once the breed's pass is held, nsip_check_mating of
// ram 6409592022NCU004 and ewe 6400462023VPI012 (the pair of the breed's
// whose lamb's COI is nearest 20%) answers it over the breed's whole
// pedigree, the tabular method's over the same records, with no lineage
// request (the date read as the pass closed stands), the parents' records
// NSIP's own so that the midparent EBVs keep their accuracies, and says
// so; before, lineages are read as ever.
func TestCheckMatingFromTheBreedsPass(t *testing.T) {
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 1, Animals: 4000})
	e := newEnv(t, func(_ *Config, o *[]nsip.Option) { *o = append(*o, nsip.WithBaseURL(up.URL())) })
	const ram, ewe = "6409592022NCU004", "6400462023VPI012"
	want := analysistest.TabularCOI(ancestryFake(up.Data(), 640, ram, ewe), 640)(ram, ewe)
	type answer struct {
		COI      *float64 `json:"coi"`
		Basis    string   `json:"basis"`
		Computed struct {
			LineagesRead int `json:"lineages_read"`
			Via          *struct {
				Evaluation string `json:"evaluation"`
				Animals    int    `json:"animals"`
				Records    string `json:"records"`
			} `json:"via"`
		} `json:"computed"`
		Midparent map[string]struct {
			SireAcc *float64 `json:"sire_acc"`
		} `json:"midparent_ebvs"`
	}
	check := func() answer {
		var a answer
		r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": ram, "dam_lpn_id": ewe}).mustOK(t)
		if err := json.Unmarshal([]byte(r.text), &a); err != nil {
			t.Fatalf("%v: %.300s", err, r.text)
		}
		return a
	}
	before := check()
	if up.Requests(nsiptest.EndpointLineage) == 0 || before.Computed.Via != nil {
		t.Fatalf("without a pass: %d lineage requests, via %+v; want lineages read", up.Requests(nsiptest.EndpointLineage), before.Computed.Via)
	}
	done := make(chan string, 1)
	e.gw.passFilled = func(key string) { done <- key }
	e.gw.fillPass(t.Context(), 640, "")
	<-done
	up.ResetCounts()
	a := check()
	if n := up.Requests(nsiptest.EndpointLineage); n != 0 || a.Computed.LineagesRead != 0 {
		t.Errorf("with the pass held: %d lineage requests, %d lineages read; want none", n, a.Computed.LineagesRead)
	}
	if n := up.Requests(nsiptest.EndpointLastUpdated); n != 0 {
		t.Errorf("with the pass held: %d date requests; want the date the pass closed on", n)
	}
	if acc := a.Midparent["WWT"].SireAcc; acc == nil {
		t.Errorf("midparent WWT with the pass held: no sire accuracy; want the record's")
	}
	if a.COI == nil || math.Abs(*a.COI-want) > 1e-12 || math.Abs(want-0.2) > 0.005 {
		t.Errorf("COI %v, tabular %v (about 20%% expected)", analysistest.FmtPtr(a.COI), want)
	}
	if !strings.HasPrefix(a.Basis, "exact") || !strings.HasPrefix(before.Basis, "lower bound") {
		t.Errorf("basis %q with the pass, %q before; want exact, and a lower bound before", a.Basis, before.Basis)
	}
	v := a.Computed.Via
	if v == nil || v.Evaluation != up.Data().LastUpdated() || v.Animals < 1000 || v.Records != "" {
		t.Errorf("computed.via %+v, want the pass of evaluation %s, and no record from it", v, up.Data().LastUpdated())
	}
	t.Logf("COI %v (tabular %v) over %v; before the pass %v (%s)", analysistest.FmtPtr(a.COI), want, v, analysistest.FmtPtr(before.COI), before.Basis)
	planFromPass(t, e, up)
}

// planFromPass plans 10 of the Katahdin rams born since 2022 with 100 of
// the ewes, with the breed's pass held: no request to NSIP, the 110
// records the pass's rows, and every mated pair's COI the tabular
// method's.
func planFromPass(t *testing.T, e *env, up *nsiptest.Server) {
	d := up.Data()
	var rams, ewes []string
	for _, id := range d.AnimalIDs() {
		a := standIn(d, id)
		if _, ok := a.Trait("WWT"); a.BreedID != 640 || a.Born.Year() < 2022 || !ok {
			continue
		}
		if a.Gender == "Male" && len(rams) < 10 {
			rams = append(rams, id)
		} else if a.Gender == "Female" && len(ewes) < 100 {
			ewes = append(ewes, id)
		}
	}
	if len(rams) != 10 || len(ewes) != 100 {
		t.Fatalf("%d rams, %d ewes", len(rams), len(ewes))
	}
	coi := analysistest.TabularCOI(ancestryFake(d, 640, append(slices.Clone(rams), ewes...)...), 640)
	up.ResetCounts()
	r := e.call("nsip_plan_matings", map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1}, "max_coi": 0.0625, "max_tokens": 8000}).mustOK(t)
	var a struct {
		ByRam    map[string][][]any `json:"by_ram"`
		Mated    int                `json:"mated"`
		Computed struct {
			LineagesRead int `json:"lineages_read"`
			Via          struct {
				Records string `json:"records"`
			} `json:"via"`
		} `json:"computed"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("%v: %.300s", err, r.text)
	}
	if n := up.TotalRequests(); n != 0 || a.Computed.LineagesRead != 0 || !strings.HasPrefix(a.Computed.Via.Records, "110 animals' records from the pass's rows") {
		t.Errorf("plan of 10 x 100 with the pass held: %d requests to NSIP, %d lineages read, records %q; want none, and every record from the pass",
			n, a.Computed.LineagesRead, a.Computed.Via.Records)
	}
	// A COI of 0 with a parent of no recorded parents is unknown, not 0.
	founder := func(id string) bool { a := standIn(d, id); return a.Sire == "" && a.Dam == "" }
	checked, unknown := 0, 0
	for ram, rows := range a.ByRam {
		for _, row := range rows {
			ewe, want := row[0].(string), coi(ram, row[0].(string))
			c, ok := row[1].(float64)
			switch {
			case row[1] == "unknown" && want == 0 && (founder(ram) || founder(ewe)):
				unknown++
			case !ok || math.Abs(c-want) > 1e-12:
				t.Errorf("%s x %s: COI %v, tabular %v", ram, ewe, row[1], want)
			}
			checked++
		}
	}
	if checked != a.Mated || checked-unknown < 30 {
		t.Errorf("%d pairs checked of %d mated, %d of unknown COI", checked, a.Mated, unknown)
	}
}
