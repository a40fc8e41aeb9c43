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
// a seventh CULL, a seventh SOLD, a seventh COMMERCIAL, the rest
// CURRENT) and birth dates from 2012 to 2023, and makes the best animals by score DEAD or CULL, as in a
// breed whose old stars are gone. It returns the fakes of only the usable
// (CURRENT) and only the living animals, for brute force.
func withStatuses(f *analysistest.FakeSource, best []string) (usable, living *analysistest.FakeSource) {
	for i, id := range slices.Sorted(maps.Keys(f.Animals)) {
		f.Animals[id].Status = []string{"DEAD", "CULL", "SOLD", "COMMERCIAL", "CURRENT", "CURRENT", "CURRENT"}[i%7]
		f.Animals[id].Born = fmt.Sprintf("3/%d/%d", 1+i%28, 2012+i%12)
	}
	for i, id := range best {
		f.Animals[id].Status = []string{"DEAD", "CULL"}[i%2]
	}
	return only(f, "CURRENT", "SOLD", "COMMERCIAL", "EXPORTED")[0], only(f, "CURRENT", "SOLD", "COMMERCIAL", "EXPORTED")[1]
}

// only are the fakes of f's CURRENT animals and of its animals of any of
// statuses.
func only(f *analysistest.FakeSource, statuses ...string) [2]*analysistest.FakeSource {
	out := [2]*analysistest.FakeSource{{Animals: map[string]*analysistest.FakeAnimal{}}, {Animals: map[string]*analysistest.FakeAnimal{}}}
	for id, a := range f.Animals {
		if a.Status == "CURRENT" {
			out[0].Animals[id] = a
		}
		if slices.Contains(statuses, a.Status) {
			out[1].Animals[id] = a
		}
	}
	return out
}

// notIn is how many animals of breed (and sex, when given) f holds of a
// status other than keep's.
func notIn(f *analysistest.FakeSource, breed int, keep []string, sex ...string) int {
	n := 0
	for _, a := range f.Animals {
		if a.Breed == breed && !slices.Contains(keep, a.Status) && (len(sex) == 0 || a.Sex == sex[0]) {
			n++
		}
	}
	return n
}

var livingStatuses = []string{"CURRENT", "SOLD", "COMMERCIAL", "EXPORTED"}

type livingAnswer struct {
	Columns         []string `json:"columns"`
	Top             [][]any  `json:"top"`
	BirthYears      string   `json:"birth_years"`
	LeftOutByStatus *struct {
		Count  int      `json:"count"`
		Effect string   `json:"effect"`
		LPNIDs []string `json:"lpn_ids"`
	} `json:"left_out_by_status"`
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

// checkRows checks that each row shows its animal's sex, status and birth
// year under their columns, and that each is of a status allowed.
func checkRows(t *testing.T, f *analysistest.FakeSource, a livingAnswer, allowed ...string) {
	t.Helper()
	sexAt, statusAt, yearAt := slices.Index(a.Columns, "sex"), slices.Index(a.Columns, "status"), slices.Index(a.Columns, "birth_year")
	if sexAt < 0 || statusAt < 0 || yearAt < 0 {
		t.Fatalf("columns %v: want sex, status and birth_year", a.Columns)
	}
	for _, row := range a.Top {
		an := f.Animals[row[1].(string)]
		year, _ := nsip.AnimalRow{LPNID: an.ID, DateOfBirth: an.Born}.BirthYear()
		if row[sexAt] != an.Sex || row[statusAt] != an.Status || year == 0 || row[yearAt] != float64(year) {
			t.Errorf("row %v shows sex %v status %v born %v; the animal is %s %s born %d", row[:3], row[sexAt], row[statusAt], row[yearAt], an.Sex, an.Status, year)
		}
		if !slices.Contains(allowed, an.Status) {
			t.Errorf("row %v is of a %s animal; want only %v", row[:3], an.Status, allowed)
		}
	}
}

// checkTop checks that a's rows are want's, in order, and proven exact.
func checkTop(t *testing.T, a livingAnswer, want []breeding.Scored) {
	t.Helper()
	if !a.Computed.Exact || len(a.Top) != len(want) {
		t.Fatalf("exact %v, %d rows; want exact, %d", a.Computed.Exact, len(a.Top), len(want))
	}
	for i, row := range a.Top {
		if row[1] != want[i].ID || row[2] != facts.Round4(want[i].Score) {
			t.Errorf("row %d = %v, want %s %v", i+1, row[:3], want[i].ID, facts.Round4(want[i].Score))
		}
	}
}

// A ranking by weights without a status ranks the usable (CURRENT)
// animals only, exactly as brute force over them does, though the best by
// index are dead or culled; it counts those it read and left out by
// status, and says how to rank them. With status "living" it ranks every
// status but DEAD and CULL, and with "any" every animal.
func TestRankRanksUsableAnimalsByDefault(t *testing.T) {
	w := breeding.Weights{"WWT": 1, "BWT": -0.5}
	for _, n := range []int{250, 2500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := analysistest.Population(21, n)
			var best []string
			for _, s := range analysistest.BruteTop(f, 640, "", w, 3) {
				best = append(best, s.ID)
			}
			usable, living := withStatuses(f, best)
			sent := map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0, "BWT": -0.5}, "top_n": 10}
			var a livingAnswer
			analysistest.MustRun(t, Rank, f, sent, &a)
			checkRows(t, f, a, "CURRENT")
			checkTop(t, a, analysistest.BruteTop(usable, 640, "", w, 10))
			g := a.LeftOutByStatus
			if g == nil || !strings.Contains(g.Effect, `not CURRENT`) || !strings.Contains(g.Effect, `search_criteria.status "living"`) ||
				!strings.Contains(g.Effect, "born_after") || !strings.Contains(fmt.Sprint(g.LPNIDs), best[0]+" (DEAD)") {
				t.Fatalf("left_out_by_status %+v; want the count, %s named and how to include them", g, best[0])
			}
			// Every animal read was counted once: all of the breed's others
			// when all were read, some of them when the bound stopped it.
			if all := notIn(f, 640, []string{"CURRENT"}); (a.Computed.Stopped == "all read" && g.Count != all) || g.Count > all || g.Count < len(best) {
				t.Errorf("%d counted left out (stopped %s); the breed has %d not CURRENT", g.Count, a.Computed.Stopped, all)
			}
			if a.Computed.AnimalsRead > a.Computed.Population || (a.Computed.Stopped == "all read" && a.Computed.AnimalsRead != a.Computed.Population) {
				t.Errorf("read %d of %d, stopped %s: leaving rows out must not change what was read", a.Computed.AnimalsRead, a.Computed.Population, a.Computed.Stopped)
			}

			sent["search_criteria"] = map[string]any{"status": "living"}
			var b livingAnswer
			analysistest.MustRun(t, Rank, f, sent, &b)
			checkRows(t, f, b, livingStatuses...)
			checkTop(t, b, analysistest.BruteTop(living, 640, "", w, 10))
			if g := b.LeftOutByStatus; g == nil || !strings.Contains(g.Effect, `status "living" read as every status but DEAD and CULL`) ||
				(b.Computed.Stopped == "all read" && g.Count != notIn(f, 640, livingStatuses)) {
				t.Errorf("living: left_out_by_status %+v; want the DEAD and CULL counted, saying how status was read", g)
			}

			sent["search_criteria"] = map[string]any{"status": "any"}
			var c livingAnswer
			analysistest.MustRun(t, Rank, f, sent, &c)
			checkRows(t, f, c, "CURRENT", "SOLD", "COMMERCIAL", "DEAD", "CULL")
			checkTop(t, c, analysistest.BruteTop(f, 640, "", w, 10))
			if c.Top[0][1] != best[0] || c.LeftOutByStatus != nil {
				t.Errorf("any: top %v, left_out_by_status %+v; want %s first, nothing left out", c.Top[0][:3], c.LeftOutByStatus, best[0])
			}
		})
	}
}

// The same for a ranking by NSIP's own index, and for_ewes's sire choices
// (rams only): the dead, culled, sold and commercial stars are not offered.
func TestRankByIndexRanksUsableAnimals(t *testing.T) {
	f := analysistest.Indexed(22, 900)
	best := analysistest.BruteIndexTop(f, 640, "Male", "US Hair Index", 2)
	usable, _ := withStatuses(f, best)
	var a livingAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 8}, &a)
	checkRows(t, f, a, "CURRENT")
	want := analysistest.BruteIndexTop(usable, 640, "", "US Hair Index", 8)
	for i, row := range a.Top {
		if i >= len(want) || row[1] != want[i] {
			t.Errorf("row %d = %v, want %s", i+1, row[:3], want[min(i, len(want)-1)])
		}
	}
	if !a.Computed.Exact || a.LeftOutByStatus == nil || a.LeftOutByStatus.Count != notIn(f, 640, []string{"CURRENT"}) {
		t.Errorf("exact %v, left_out_by_status %+v; want exact and all %d counted", a.Computed.Exact, a.LeftOutByStatus, notIn(f, 640, []string{"CURRENT"}))
	}

	ewe := analysistest.BruteIndexTop(usable, 640, "Female", "US Hair Index", 1)[0]
	var b livingAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "index": "US Hair Index", "top_n": 3, "for_ewes": []any{ewe}}, &b)
	checkRows(t, f, b, "CURRENT")
	wantRams := analysistest.BruteIndexTop(usable, 640, "Male", "US Hair Index", 3)
	for i, row := range b.Top {
		if i >= len(wantRams) || row[1] != wantRams[i] {
			t.Errorf("for_ewes row %d = %v, want %s", i+1, row[:3], wantRams[min(i, len(wantRams)-1)])
		}
	}
	if b.LeftOutByStatus == nil || b.LeftOutByStatus.Count != notIn(f, 640, []string{"CURRENT"}, "Male") {
		t.Errorf("for_ewes left_out_by_status %+v; want the %d rams not CURRENT counted", b.LeftOutByStatus, notIn(f, 640, []string{"CURRENT"}, "Male"))
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
	if g := a.LeftOutByStatus; g == nil || g.Count != 1 || !slices.Equal(g.LPNIDs, []string{"DEAD99 (DEAD)"}) {
		t.Errorf("left_out_by_status %+v; want DEAD99", g)
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

// A word of one status is sent to NSIP as that status, and the answer says
// how it was read: "usable" ranks the CURRENT animals, NSIP filtering them.
func TestRankReadsAWordOfOneStatus(t *testing.T) {
	w := breeding.Weights{"WWT": 1}
	f := analysistest.Population(24, 400)
	usable, _ := withStatuses(f, nil)
	var a struct {
		livingAnswer
		StatusRead string `json:"status_read"`
	}
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "top_n": 5,
		"search_criteria": map[string]any{"status": "usable"}}, &a)
	checkRows(t, f, a.livingAnswer, "CURRENT")
	checkTop(t, a.livingAnswer, analysistest.BruteTop(usable, 640, "", w, 5))
	if a.StatusRead != `status "usable" read as CURRENT` || a.LeftOutByStatus != nil {
		t.Errorf("status_read %q, left_out_by_status %+v; want the reading and nothing left out here (NSIP filters)", a.StatusRead, a.LeftOutByStatus)
	}
}
