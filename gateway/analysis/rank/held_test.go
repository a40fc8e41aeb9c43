package rank

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

// heldAnswer is what a ranking for ewes from a held pass shows.
type heldAnswer struct {
	Top     [][]any `json:"top"`
	ForEwes struct {
		LineagesRead int    `json:"lineages_read"`
		Method       string `json:"method"`
		Unresolved   *struct {
			Count int `json:"count"`
		} `json:"unresolved"`
		Via *struct {
			Evaluation  string   `json:"evaluation"`
			Animals     int      `json:"animals"`
			LineagesFor []string `json:"lineages_for"`
			Records     string   `json:"records"`
		} `json:"via"`
	} `json:"for_ewes"`
}

// bruteMean is a ram's lambs' mean COI with ewes by the tabular method,
// over the pairs whose COI is known (not 0 with a parent of no recorded
// parents), and how many those are.
func bruteMean(f *analysistest.FakeSource, coi func(s, d string) float64, ram string, ewes []string) (float64, int) {
	founder := func(id string) bool { a := f.Animals[id]; return a.Sire == "" && a.Dam == "" }
	sum, known := 0.0, 0
	for _, e := range ewes {
		c := coi(ram, e)
		if c == 0 && (founder(ram) || founder(e)) {
			continue
		}
		sum += c
		known++
	}
	if known == 0 {
		return 0, 0
	}
	return sum / float64(known), known
}

// With the breed's pass held, each ram's mean COI with the ewes is over
// the breed's whole pedigree: the tabular method's over the same rows,
// no lineage read, none unresolved, the ewes' records the pass's rows
// rather than read, and the block says so.
func TestRankForEwesFromHeldPass(t *testing.T) {
	f := analysistest.Kin(3)
	src := analysistest.HoldPass(f, 640)
	coi := analysistest.TabularCOI(f, 640)
	ewes := analysistest.YoungEwes(f, 6)
	var a heldAnswer
	analysistest.MustRunSource(t, Rank, src, map[string]any{"breed_id": 640, "top_n": 15, "weights": map[string]any{"WWT": 1.0},
		"for_ewes": analysistest.AnyList(ewes)}, &a)
	if len(a.Top) != 15 {
		t.Fatalf("%d rams shown, want 15", len(a.Top))
	}
	related := 0
	for _, row := range a.Top {
		ram := row[1].(string)
		want, known := bruteMean(f, coi, ram, ewes)
		if got := row[4]; got != fmt.Sprintf("%d/%d", known, len(ewes)) {
			t.Errorf("%s: ewes_known %v, want %d/%d", ram, got, known, len(ewes))
		}
		if known == 0 {
			if row[3] != nil {
				t.Errorf("%s: mean_coi %v with no pair known", ram, row[3])
			}
			continue
		}
		if got, ok := row[3].(float64); !ok || math.Abs(got-math.Round(want*1e6)/1e6) > 1e-12 {
			t.Errorf("%s: mean_coi %v, tabular %v", ram, row[3], want)
		}
		if want > 0 {
			related++
		}
	}
	if related < 3 {
		t.Errorf("only %d rams related to the ewes: the test proves little", related)
	}
	fe := a.ForEwes
	if n := f.CallsOf("lineage"); n != 0 || fe.LineagesRead != 0 || fe.Unresolved != nil {
		t.Errorf("%d lineages asked, %d read, unresolved %+v; want none with the pass held", n, fe.LineagesRead, fe.Unresolved)
	}
	if fe.Via == nil || fe.Via.Evaluation != f.Evaluation || fe.Via.Animals != len(f.Animals) || !strings.Contains(fe.Method, "whole pedigree") {
		t.Errorf("via %+v, method %q: the block does not say the breed's pedigree answered", fe.Via, fe.Method)
	}
	// The records read are the ranked rams' (their search rows state no
	// sex); none is a ewe's.
	if n := f.CallsOf("details"); n > len(a.Top) || fe.Via == nil || !strings.HasPrefix(fe.Via.Records, fmt.Sprintf("%d animals' records from the pass's rows", len(ewes))) {
		t.Errorf("%d records asked of NSIP for %d rams, via %+v; want every ewe's from the pass", n, len(a.Top), fe.Via)
	}
}

// A ewe the pass lacks has her lineage read and is named; every ram's
// pairs with her are over her lineages and the ram's whole pedigree: a
// ram who is her sire has a lamb of COI 0.25 with her.
func TestRankForEwesEweOutsideThePass(t *testing.T) {
	f := analysistest.Kin(3)
	var sire string
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		// The best ram by WWT with a recorded sire, so that he is shown.
		if a := f.Animals[id]; a.Sex == "Male" && a.Sire != "" && (sire == "" || a.EBV["WWT"] > f.Animals[sire].EBV["WWT"]) {
			sire = id
		}
	}
	f.Add(&analysistest.FakeAnimal{ID: "641KINXF001", Sex: "Female", Breed: 641, Sire: sire})
	src := analysistest.HoldPass(f, 640)
	var a heldAnswer
	analysistest.MustRunSource(t, Rank, src, map[string]any{"breed_id": 640, "top_n": 5, "weights": map[string]any{"WWT": 1.0},
		"for_ewes": []any{"641KINXF001"}}, &a)
	if v := a.ForEwes.Via; v == nil || !slices.Equal(v.LineagesFor, []string{"641KINXF001"}) {
		t.Fatalf("via %+v, want the other breed's ewe named", v)
	}
	if f.CallsOf("lineage") == 0 {
		t.Error("her lineage was not read")
	}
	for _, row := range a.Top {
		if row[1] == sire {
			if row[3] != 0.25 {
				t.Errorf("her sire %s: mean_coi %v, want 0.25", sire, row[3])
			}
			return
		}
	}
	t.Errorf("her sire %s is not among the %d rams shown", sire, len(a.Top))
}
