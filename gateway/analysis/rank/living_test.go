package rank

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// withStatuses gives f's animals NSIP's statuses in turn (a seventh DEAD,
// a seventh CULL, a seventh SOLD, the rest CURRENT), and makes the best
// animals by score DEAD or CULL, as in a breed whose old stars are gone.
// It returns the fake of only the living animals, for brute force.
func withStatuses(f *analysistest.FakeSource, best []string) *analysistest.FakeSource {
	for i, id := range slices.Sorted(maps.Keys(f.Animals)) {
		f.Animals[id].Status = []string{"DEAD", "CULL", "SOLD", "CURRENT", "CURRENT", "CURRENT", "CURRENT"}[i%7]
	}
	for i, id := range best {
		f.Animals[id].Status = []string{"DEAD", "CULL"}[i%2]
	}
	living := &analysistest.FakeSource{Animals: map[string]*analysistest.FakeAnimal{}}
	for id, a := range f.Animals {
		if a.Status != "DEAD" && a.Status != "CULL" {
			living.Animals[id] = a
		}
	}
	return living
}

// goneIn is how many animals of breed (and sex, when given) f holds as
// DEAD or CULL.
func goneIn(f *analysistest.FakeSource, breed int, sex ...string) int {
	n := 0
	for _, a := range f.Animals {
		if a.Breed == breed && (a.Status == "DEAD" || a.Status == "CULL") && (len(sex) == 0 || a.Sex == sex[0]) {
			n++
		}
	}
	return n
}

type livingAnswer struct {
	Columns      []string `json:"columns"`
	Top          [][]any  `json:"top"`
	DeadOrCulled *struct {
		Count  int      `json:"count"`
		Effect string   `json:"effect"`
		LPNIDs []string `json:"lpn_ids"`
	} `json:"dead_or_culled"`
	SexFromSearch *struct {
		Count  int      `json:"count"`
		Effect string   `json:"effect"`
		LPNIDs []string `json:"lpn_ids"`
	} `json:"sex_from_search"`
	Computed struct {
		Exact       bool   `json:"exact"`
		Stopped     string `json:"stopped"`
		AnimalsRead int    `json:"animals_read"`
		Population  int    `json:"population"`
	} `json:"computed"`
}

// checkRows checks that each row shows its animal's sex and status under
// their columns, and that none is dead or culled unless allowed.
func checkRows(t *testing.T, f *analysistest.FakeSource, a livingAnswer, allowGone bool) {
	t.Helper()
	sexAt, statusAt := slices.Index(a.Columns, "sex"), slices.Index(a.Columns, "status")
	if sexAt < 0 || statusAt < 0 {
		t.Fatalf("columns %v: want sex and status", a.Columns)
	}
	for _, row := range a.Top {
		an := f.Animals[row[1].(string)]
		if row[sexAt] != an.Sex || row[statusAt] != an.Status {
			t.Errorf("row %v shows sex %v status %v; the animal is %s %s", row[:3], row[sexAt], row[statusAt], an.Sex, an.Status)
		}
		if !allowGone && (an.Status == "DEAD" || an.Status == "CULL") {
			t.Errorf("row %v is of a %s animal", row[:3], an.Status)
		}
	}
}

// A ranking by weights leaves out the dead and culled animals, the best by
// index among them, and ranks the living exactly as brute force over them
// does; it counts those it read and left out, and says how to rank them.
// Asked to include them, it is the brute force top of all.
func TestRankLeavesOutDeadAndCulled(t *testing.T) {
	w := breeding.Weights{"WWT": 1, "BWT": -0.5}
	for _, n := range []int{250, 2500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := analysistest.Population(21, n)
			var best []string
			for _, s := range analysistest.BruteTop(f, 640, "", w, 3) {
				best = append(best, s.ID)
			}
			living := withStatuses(f, best)
			sent := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0, "BWT": -0.5}, "top_n": 10}
			var a livingAnswer
			analysistest.MustRun(t, Rank, f, sent, &a)
			checkRows(t, f, a, false)
			want := analysistest.BruteTop(living, 640, "", w, 10)
			if !a.Computed.Exact || len(a.Top) != len(want) {
				t.Fatalf("exact %v, %d rows; want exact, %d", a.Computed.Exact, len(a.Top), len(want))
			}
			for i, row := range a.Top {
				if row[1] != want[i].ID || row[2] != facts.Round4(want[i].Score) {
					t.Errorf("row %d = %v, want %s %v", i+1, row[:3], want[i].ID, facts.Round4(want[i].Score))
				}
			}
			g := a.DeadOrCulled
			if g == nil || !strings.Contains(g.Effect, "include_dead_and_culled: true") || !strings.Contains(fmt.Sprint(g.LPNIDs), best[0]+" (DEAD)") {
				t.Fatalf("dead_or_culled %+v; want the count, %s named and how to include them", g, best[0])
			}
			// Every animal read was counted once: all of the breed's gone
			// when all were read, some of them when the bound stopped it.
			if all := goneIn(f, 640); (a.Computed.Stopped == "all read" && g.Count != all) || g.Count > all || g.Count < len(best) {
				t.Errorf("%d counted left out (stopped %s); the breed has %d dead or culled", g.Count, a.Computed.Stopped, all)
			}
			if a.Computed.AnimalsRead > a.Computed.Population || (a.Computed.Stopped == "all read" && a.Computed.AnimalsRead != a.Computed.Population) {
				t.Errorf("read %d of %d, stopped %s: leaving rows out must not change what was read", a.Computed.AnimalsRead, a.Computed.Population, a.Computed.Stopped)
			}

			sent["include_dead_and_culled"] = true
			var b livingAnswer
			analysistest.MustRun(t, Rank, f, sent, &b)
			checkRows(t, f, b, true)
			wantAll := analysistest.BruteTop(f, 640, "", w, 10)
			if !b.Computed.Exact || len(b.Top) != len(wantAll) || b.Top[0][1] != best[0] || b.DeadOrCulled != nil {
				t.Fatalf("with include_dead_and_culled: exact %v, top %v, dead_or_culled %+v; want %s first, nothing left out", b.Computed.Exact, b.Top, b.DeadOrCulled, best[0])
			}
			for i, row := range b.Top {
				if row[1] != wantAll[i].ID {
					t.Errorf("row %d = %v, want %s", i+1, row[:3], wantAll[i].ID)
				}
			}
		})
	}
}

// The same for a ranking by NSIP's own index, and for_ewes's sire choices
// (rams only): the dead and culled stars are not offered.
func TestRankByIndexLeavesOutDeadAndCulled(t *testing.T) {
	f := analysistest.Indexed(22, 900)
	best := analysistest.BruteIndexTop(f, 640, "Male", "US Hair Index", 2)
	living := withStatuses(f, best)
	var a livingAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 8}, &a)
	checkRows(t, f, a, false)
	want := analysistest.BruteIndexTop(living, 640, "", "US Hair Index", 8)
	for i, row := range a.Top {
		if i >= len(want) || row[1] != want[i] {
			t.Errorf("row %d = %v, want %s", i+1, row[:3], want[min(i, len(want)-1)])
		}
	}
	if !a.Computed.Exact || a.DeadOrCulled == nil || a.DeadOrCulled.Count != goneIn(f, 640) {
		t.Errorf("exact %v, dead_or_culled %+v; want exact and all %d counted", a.Computed.Exact, a.DeadOrCulled, goneIn(f, 640))
	}

	ewe := analysistest.BruteIndexTop(living, 640, "Female", "US Hair Index", 1)[0]
	var b livingAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 3, "for_ewes": []any{ewe}}, &b)
	checkRows(t, f, b, false)
	wantRams := analysistest.BruteIndexTop(living, 640, "Male", "US Hair Index", 3)
	for i, row := range b.Top {
		if i >= len(wantRams) || row[1] != wantRams[i] {
			t.Errorf("for_ewes row %d = %v, want %s", i+1, row[:3], wantRams[min(i, len(wantRams)-1)])
		}
	}
	if b.DeadOrCulled == nil || b.DeadOrCulled.Count != goneIn(f, 640, "Male") {
		t.Errorf("for_ewes dead_or_culled %+v; want the %d dead or culled rams counted", b.DeadOrCulled, goneIn(f, 640, "Male"))
	}
}

// Asked for rams, NSIP sending a row of no recorded sex (as live rows all
// are) and a dead ram: the first is ranked as a ram, since NSIP returned it
// for gender Male, and counted in sex_from_search; the dead ram is left
// out and named, though both have the best index.
func TestRankWithGenderTakesTheSexSearched(t *testing.T) {
	f := analysistest.Population(23, 300)
	f.Pages = func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page > 0 {
			return rows
		}
		return append([]nsip.AnimalRow{
			{LPNID: "NOSEX99", BreedID: 640, Status: "CURRENT", Traits: analysistest.TraitsOf(map[string]float64{"WWT": 99})},
			{LPNID: "DEAD99", Sex: "Male", Status: "DEAD", BreedID: 640, Traits: analysistest.TraitsOf(map[string]float64{"WWT": 98})},
		}, rows[:len(rows)-2]...)
	}
	for _, a := range f.Animals {
		a.Status = "CURRENT"
	}
	var a livingAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 5,
		"search_criteria": map[string]any{"gender": "Male"}}, &a)
	want := analysistest.BruteTop(f, 640, "Male", breeding.Weights{"WWT": 1}, 4)
	if len(a.Top) != 5 || a.Top[0][1] != "NOSEX99" || a.Top[0][3] != "Male" {
		t.Fatalf("first row %v; want NOSEX99 (WWT 99) ranked as Male", a.Top[:min(1, len(a.Top))])
	}
	for i, row := range a.Top[1:] {
		if row[1] != want[i].ID || row[3] != "Male" {
			t.Errorf("row %d = %v, want %s, Male", i+2, row, want[i].ID)
		}
	}
	if s := a.SexFromSearch; s == nil || s.Count != 1 || !strings.Contains(s.Effect, "gender Male") {
		t.Errorf("sex_from_search %+v; want the one row counted, saying it was taken from gender Male", s)
	}
	if g := a.DeadOrCulled; g == nil || g.Count != 1 || !slices.Equal(g.LPNIDs, []string{"DEAD99 (DEAD)"}) {
		t.Errorf("dead_or_culled %+v; want DEAD99", g)
	}
}

// The plan's rams are the caller's choice, so none is left out, but one
// NSIP records as dead is warned of, with his status.
func TestPlanWarnsOfADeadRam(t *testing.T) {
	f := analysistest.PlanHerd()
	f.Animals["RAM02"].Status = "DEAD"
	var a analysistest.PlanAnswer
	analysistest.MustRun(t, plan.PlanMatings, f, analysistest.PlanSent, &a)
	if !slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.Contains(w, "ram RAM02 is recorded as DEAD") }) {
		t.Errorf("warnings %q; want RAM02 named as DEAD", a.Warnings)
	}
	if len(a.ByRam) == 0 {
		t.Errorf("no plan: the rams named are still planned, the dead one warned of")
	}
}
