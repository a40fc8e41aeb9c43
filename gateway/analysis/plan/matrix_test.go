// Tests of the COI matrix (matrix.go): every cell against a COI worked by
// hand or by brute force, flagged cells, refused plan arguments, and the
// matrix fitted to the budget with its whole linked.

package plan

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

type matrixAnswer struct {
	COI        map[string][]any   `json:"coi"`
	Ewes       []string           `json:"ewes"`
	OverMaxCOI int                `json:"over_max_coi"`
	Unknown    int                `json:"unknown_coi_pairs"`
	Unresolved *PlanUnresolved    `json:"unresolved"`
	NotShown   *analysis.RestCall `json:"not_shown"`
	Weights    any                `json:"weights"`
	Mated      *int               `json:"mated"`
}

// kinship is the coancestry of a and b by the tabular recursion over the
// fake's whole pedigree: a lamb of a and b has it as its COI. The younger
// animal (deeper pedigree) is expanded, so neither is the other's
// descendant when the recursion steps through its parents.
func kinship(f *analysistest.FakeSource, a, b string) float64 {
	if a == "" || b == "" {
		return 0
	}
	parents := func(id string) (string, string) {
		if x := f.Animals[id]; x != nil {
			return x.Sire, x.Dam
		}
		return "", ""
	}
	if a == b {
		s, d := parents(a)
		return (1 + kinship(f, s, d)) / 2
	}
	var depth func(id string) int
	depth = func(id string) int {
		s, d := parents(id)
		if s == "" && d == "" {
			return 0
		}
		return 1 + max(depth(s), depth(d))
	}
	if depth(a) < depth(b) {
		a, b = b, a
	}
	s, d := parents(a)
	return (kinship(f, s, b) + kinship(f, d, b)) / 2
}

// Three rams of the closed breed's middle years with five of its youngest
// ewes: every cell is the brute-force kinship, the rows in ewe_lpn_ids
// order, and no weights, plan or form.
func TestCOIMatrixMatchesBruteForce(t *testing.T) {
	f := analysistest.Kin(7)
	rams, ewes := kinRams(f, 3), analysistest.YoungEwes(f, 5)
	var a matrixAnswer
	analysistest.MustRun(t, PlanMatings, f, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(ewes), "coi_only": true}, &a)
	if !slices.Equal(a.Ewes, ewes) || len(a.COI) != 3 || a.Weights != nil || a.Mated != nil {
		t.Fatalf("ewes %v, %d rows, weights %v, mated %v; want the 5 ewes in order, 3 rows, no plan", a.Ewes, len(a.COI), a.Weights, a.Mated)
	}
	over, related := 0, 0
	for _, ram := range rams {
		for i, ewe := range ewes {
			want := kinship(f, ram, ewe)
			got, ok := a.COI[ram][i].(float64)
			if !ok || !analysistest.Near(got, want) {
				t.Errorf("%s x %s: %v, want %v", ram, ewe, a.COI[ram][i], want)
			}
			if want > 0.0625+1e-12 {
				over++
			}
			if want > 0 {
				related++
			}
		}
	}
	if a.OverMaxCOI != over || related == 0 {
		t.Errorf("over_max_coi %d, want %d (%d related pairs)", a.OverMaxCOI, over, related)
	}
	if len(f.Forms) != 0 {
		t.Errorf("asked the user %d times; coi_only needs no weights", len(f.Forms))
	}
}

// PlanHerd by hand: RAM01 x EWE01 half sibs 1/8 (over the cap),
// RAM02 x EWE03 first cousins 1/16; RAM09, with no parents recorded,
// gives unknown cells, never 0.
func TestCOIMatrixHandWorked(t *testing.T) {
	f := analysistest.PlanHerd()
	f.Add(&analysistest.FakeAnimal{ID: "RAM09", Sex: "Male", Status: "CURRENT"})
	var a matrixAnswer
	analysistest.MustRun(t, PlanMatings, f, map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02", "RAM09"}, "ewe_lpn_ids": []any{"EWE01", "EWE02", "EWE03"}, "coi_only": true}, &a)
	want := `{"RAM01":[0.125,0,0],"RAM02":[0,0,0.0625],"RAM09":["unknown","unknown","unknown"]}`
	if got := param.JSONText(a.COI); got != want || a.OverMaxCOI != 1 || a.Unknown != 3 || a.Unresolved != nil {
		t.Errorf("coi %s, over %d, unknown %d, unresolved %+v; want %s, 1 over, 3 unknown", got, a.OverMaxCOI, a.Unknown, a.Unresolved, want)
	}
}

// Where MUM01's record cannot be read, RAM02 x EWE01 is at least 1/16 on
// what was read: the cell says so rather than give it as exact.
func TestCOIMatrixFlagsLowerBounds(t *testing.T) {
	src := &detailsFail{FakeSource: loneDamHerd(), id: "MUM01", err: errors.New("NSIP busy")}
	var a matrixAnswer
	analysistest.MustRunSource(t, PlanMatings, src, map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01"}, "coi_only": true}, &a)
	if got := param.JSONText(a.COI); got != `{"RAM01":[0],"RAM02":[">=0.0625"]}` || a.Unresolved == nil || a.Unresolved.Pairs != 1 || !slices.Equal(a.Unresolved.Animals, []string{"RAM02"}) {
		t.Errorf("coi %s, unresolved %+v; want RAM02's cell a lower bound of 1/16 and RAM02 named", got, a.Unresolved)
	}
}

// A plan's arguments are refused beside coi_only, naming the field.
func TestCOIMatrixRefusesPlanArguments(t *testing.T) {
	for _, name := range []string{"weights", "max_ewes_per_ram"} {
		sent := map[string]any{"ram_lpn_ids": []any{"RAM01"}, "ewe_lpn_ids": []any{"EWE01"}, "coi_only": true}
		sent[name] = map[string]any{"weights": map[string]any{"WWT": 1.0}, "max_ewes_per_ram": 2}[name]
		_, err := analysistest.Run(t, PlanMatings, analysistest.PlanHerd(), sent)
		var ae *analysis.ArgError
		if !errors.As(err, &ae) || ae.Field != name || !strings.Contains(ae.Problem, "coi_only") {
			t.Errorf("%s with coi_only: %v; want an error naming %s", name, err, name)
		}
	}
}

// Over the budget the matrix shows its first ewes' columns for every ram,
// says which are not shown and how to see them, and links the whole
// matrix, a row per ram, each cell the brute-force kinship.
func TestCOIMatrixFittedLinksTheWhole(t *testing.T) {
	f := analysistest.Kin(7)
	f.OverAt = 900
	rams, ewes := kinRams(f, 3), analysistest.YoungEwes(f, 15)
	v, err := analysistest.Run(t, PlanMatings, f, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(ewes), "coi_only": true})
	if err != nil {
		t.Fatal(err)
	}
	value, table := full.Split(v)
	var a matrixAnswer
	analysistest.Decode(t, value, &a)
	n := len(a.Ewes)
	if n == 0 || n == len(ewes) || !slices.Equal(a.Ewes, ewes[:n]) || len(a.COI[rams[0]]) != n || a.NotShown == nil || a.NotShown.Rows != len(ewes)-n || a.NotShown.Call == nil {
		t.Fatalf("shown %d ewes, not_shown %+v; want the first ones but not all, the rest named with a call", n, a.NotShown)
	}
	if table == nil || !slices.Equal(table.Columns, append([]string{"ram"}, ewes...)) || len(table.Rows) != len(rams) {
		t.Fatalf("table %+v; want the whole matrix, a row per ram", table)
	}
	for ri, row := range table.Rows {
		if row[0] != rams[ri] {
			t.Errorf("row %d is %v, want %s", ri, row[0], rams[ri])
		}
		for ei, ewe := range ewes {
			if got, ok := row[ei+1].(float64); !ok || !analysistest.Near(got, kinship(f, rams[ri], ewe)) {
				t.Errorf("%s x %s: %v, want %v", rams[ri], ewe, row[ei+1], kinship(f, rams[ri], ewe))
			}
			if ei < n && row[ei+1] != a.COI[rams[ri]][ei] {
				t.Errorf("%s x %s: shown %v, linked %v", rams[ri], ewe, a.COI[rams[ri]][ei], row[ei+1])
			}
		}
	}
}

// kinRams are the first n rams of the closed breed's middle years, whose
// parents are recorded.
func kinRams(f *analysistest.FakeSource, n int) []string {
	var rams []string
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		if len(rams) < n && (strings.HasPrefix(id, "640KIN2M") || strings.HasPrefix(id, "640KIN3M")) {
			rams = append(rams, id)
		}
	}
	return rams
}
