package diversity

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The hand-worked pedigree of nsip/breeding's diversity test, as a breed's
// rows with LPN IDs that carry flock and birth year: founders A, B (2015)
// and G (2016, flock 640517); C and D of A x B (2017); E of C x D (2019,
// F 1/4); H of E x G (2020, flock 640517); K of A and an unknown dam (2020).
const (
	idA = "6402382015ABC001"
	idB = "6402382015ABC002"
	idG = "6405172016XYZ003"
	idC = "6402382017ABC004"
	idD = "6402382017ABC005"
	idE = "6402382019ABC006"
	idH = "6405172020XYZ007"
	idK = "6402382020ABC008"
)

func herdRows() []nsip.AnimalRow {
	row := func(id, sire, dam string) nsip.AnimalRow {
		return nsip.AnimalRow{LPNID: id, Sire: sire, Dam: dam, BreedID: 640}
	}
	return []nsip.AnimalRow{
		row(idK, idA, ""), row(idH, idE, idG), row(idE, idC, idD), row(idC, idA, idB), row(idD, idA, idB),
		row(idA, "", ""), row(idB, "", ""), row(idG, "", ""),
		row(idE, idC, idD), // a repeat is one animal
	}
}

// herdFake is a source that keeps the herd's pass under its evaluation.
func herdFake() (*analysistest.FakeSource, *analysistest.MemPasses) {
	f := analysistest.NewFake()
	f.Ranges = map[int][]nsip.TraitRange{640: {{Code: "BWT", Range: nsip.Range{Min: -1, Max: 1}}}}
	store := &analysistest.MemPasses{}
	store.Keep(context.Background(), breedpass.NewPassOf(640, f.Evaluation, herdRows()))
	f.Store = store
	return f, store
}

func answerOf(t *testing.T, f *analysistest.FakeSource, sent map[string]any) (*DiversityAnswer, *full.Table) {
	t.Helper()
	v, err := analysistest.Run(t, BreedDiversity, f, sent)
	if err != nil {
		t.Fatal(err)
	}
	out, table := full.Split(v)
	a, ok := out.(*DiversityAnswer)
	if !ok {
		t.Fatalf("answer %T: %+v", out, out)
	}
	return a, table
}

func near(got any, want float64) bool {
	switch g := got.(type) {
	case float64:
		return math.Abs(g-want) < 1e-9
	case *float64:
		return g != nil && math.Abs(*g-want) < 1e-9
	}
	return false
}

// Every figure of the answer is the hand-worked one (worked in
// nsip/breeding/diversity_test.go): reference E, H and K (born 2019 and
// 2020); mean ΔF 1/8 over E and H, so Ne 4; f_e 24/7; f_a 18/7 from E
// (1/2), K (1/3) and G (1/6). Mean equivalent generations (0+0+0+1+1+2+2
// +0.5)/8 = 0.8125 over all, (2+2+0.5)/3 = 1.5 over the reference.
func TestDiversityOfAHandWorkedBreed(t *testing.T) {
	f, _ := herdFake()
	a, table := answerOf(t, f, map[string]any{"breed_id": 640})
	if a.Animals != 8 || a.Founders != 3 || a.OneParentKnown != 1 {
		t.Errorf("%d animals, %d founders, %d with one parent; worked 8, 3 (A, B, G), 1 (K)", a.Animals, a.Founders, a.OneParentKnown)
	}
	want := [][]any{{2015, 2, 0.0, 0.0}, {2016, 1, 0.0, 0.0}, {2017, 2, 0.0, 0.0}, {2019, 1, 0.25, 0.25}, {2020, 2, 0.0, 0.0}}
	if len(a.COIByYear.Rows) != len(want) {
		t.Fatalf("years %v, worked %v", a.COIByYear.Rows, want)
	}
	for i, w := range want {
		r := a.COIByYear.Rows[i]
		if r[0] != w[0] || r[1] != w[1] || !near(r[2], w[2].(float64)) || !near(r[3], w[3].(float64)) {
			t.Errorf("year row %v, worked %v", r, w)
		}
	}
	if got := a.Reference; len(got.BirthYears) != 2 || got.BirthYears[0] != 2019 || got.BirthYears[1] != 2020 || got.Animals != 3 {
		t.Errorf("reference %+v, worked 2019 and 2020, 3 animals", got)
	}
	if !near(a.DeltaF.Value, 0.125) || a.DeltaF.N != 2 || !strings.Contains(a.DeltaF.Unproven, "1 reference animals with 1 equivalent generation or less") ||
		!near(a.Ne.Value, 4) || !near(a.Fe.Value, 24.0/7) || a.Fe.N != 4 || !near(a.Fa.Value, 18.0/7) || a.Fa.Unproven != "" {
		t.Errorf("ΔF %+v, Ne %+v, f_e %+v, f_a %+v; worked 1/8, 4, 24/7, 18/7", a.DeltaF, a.Ne, a.Fe, a.Fa)
	}
	if !near(a.Completeness.MeanECG, 0.8125) || !near(a.Completeness.ReferenceMeanECG, 1.5) {
		t.Errorf("completeness %+v, worked 0.8125 and 1.5", a.Completeness)
	}
	top := [][]any{{idE, 0.5, 0.5}, {idK, 1.0 / 3, 1.0 / 3}, {idG, 1.0 / 6, 1.0 / 6}}
	if len(a.TopAncestors.Rows) != len(top) {
		t.Fatalf("ancestors %v, worked %v", a.TopAncestors.Rows, top)
	}
	for i, w := range top {
		if r := a.TopAncestors.Rows[i]; r[0] != w[0] || !near(r[1], w[1].(float64)) || !near(r[2], w[2].(float64)) {
			t.Errorf("ancestor %v, worked %v", r, w)
		}
	}
	if table == nil || len(table.Rows) != 8 || strings.Join(table.Columns, ",") != "lpn_id,birth_year,sire,dam,coi,equivalent_generations" {
		t.Fatalf("table %+v", table)
	}
	for _, r := range table.Rows {
		switch r[0] {
		case idE:
			if r[1] != 2019 || r[2] != idC || r[3] != idD || !near(r[4], 0.25) || !near(r[5], 2) {
				t.Errorf("E's row %v", r)
			}
		case idK:
			if r[2] != idA || r[3] != nil || !near(r[4], 0) || !near(r[5], 0.5) {
				t.Errorf("K's row %v: no dam is null", r)
			}
		}
	}
	if !strings.HasPrefix(a.Computed.BreedPass, "kept") || a.Computed.Upstream.Lookups != 2 {
		t.Errorf("computed %+v; want the kept pass and two lookups (the ranges, the date)", a.Computed)
	}
}

// flock_id and the birth years narrow the animals and the reference; the
// pedigree stays the breed's, so E's COI is still 1/4.
func TestDiversityNarrowed(t *testing.T) {
	f, _ := herdFake()
	a, _ := answerOf(t, f, map[string]any{"breed_id": 640, "flock_id": "640517"})
	if a.Animals != 2 || a.Founders != 1 || a.FlockID != "640517" || a.Reference.Animals != 2 {
		t.Errorf("flock 640517: %d animals, %d founders, reference %+v; want G and H", a.Animals, a.Founders, a.Reference)
	}
	a, table := answerOf(t, f, map[string]any{"breed_id": 640, "born_from": 2018, "born_to": 2019})
	if a.Animals != 1 || len(a.COIByYear.Rows) != 1 || !near(a.COIByYear.Rows[0][2], 0.25) || len(table.Rows) != 1 {
		t.Errorf("born 2018-2019: %d animals, years %v; want E alone, COI 1/4", a.Animals, a.COIByYear.Rows)
	}
}

// Over the budget, the oldest birth years are left out and said to be.
func TestDiversityFitsTheBudget(t *testing.T) {
	f, _ := herdFake()
	whole, _ := answerOf(t, f, map[string]any{"breed_id": 640})
	f.OverIf = func(v any) bool { return len(v.(*DiversityAnswer).COIByYear.Rows) > 3 }
	a, table := answerOf(t, f, map[string]any{"breed_id": 640})
	if len(a.COIByYear.Rows) != 3 || a.COIByYear.Rows[0][0] != 2017 || len(table.Rows) != 8 ||
		a.COIByYear.LeftOut != "the 2 oldest birth years (2015 to 2016), to fit the budget: the CSV link has their animals, max_tokens a larger budget" {
		t.Errorf("years %v, left out %q, %d CSV rows; want 2017 on, 2015 and 2016 said left out, all 8 animals", a.COIByYear.Rows, a.COIByYear.LeftOut, len(table.Rows))
	}
	if whole.COIByYear.LeftOut != "" || len(whole.COIByYear.Rows) != 5 {
		t.Errorf("within the budget: %+v", whole.COIByYear)
	}
}

// Arguments that cannot be answered are refused naming the field.
func TestDiversityRefusals(t *testing.T) {
	f, _ := herdFake()
	for _, c := range []struct {
		sent  map[string]any
		field string
		says  string
	}{
		{map[string]any{"breed_id": 640, "born_from": 2020, "born_to": 2019}, "born_from", "later than born_to"},
		{map[string]any{"breed_id": 640, "flock_id": "640999"}, "flock_id", "no animal of breed 640's 8 matches flock_id 640999"},
		{map[string]any{"breed_id": 640, "born_from": 2021}, "born_from", "no animal of breed 640's 8 matches born_from 2021"},
		{map[string]any{"breed_id": 641}, "breed_id", "no trait ranges for breed 641"},
	} {
		_, err := analysistest.Run(t, BreedDiversity, f, c.sent)
		var ae *analysis.ArgError
		if !errors.As(err, &ae) || ae.Field != c.field || !strings.Contains(ae.Problem, c.says) {
			t.Errorf("%v: %v; want %s refused: %s", c.sent, err, c.field, c.says)
		}
	}
	f.Fail = map[string]error{"breed 642": errors.New("not found")}
	var about *analysis.AboutError
	if _, err := analysistest.Run(t, BreedDiversity, f, map[string]any{"breed_id": 642}); !errors.As(err, &about) || about.Field != "breed_id" {
		t.Errorf("a breed NSIP fails: %v", err)
	}
}

// A breed with no pass kept is read in the background, and the answer says
// how, or why not.
func TestDiversityPending(t *testing.T) {
	for _, c := range []struct {
		name  string
		store analysis.Passes
		task  string
		says  string
	}{
		{"none kept", nil, "", "not read: this server keeps no breed passes"},
		{"no background", &analysistest.MemPasses{}, "", "this server reads no pass in the background"},
		{"refused", &analysistest.MemPasses{Background: true, Refuse: "the server is shutting down"}, "", "nor in the background: the server is shutting down"},
		{"task", analysistest.TaskPasses{MemPasses: &analysistest.MemPasses{}, Answer: analysis.PassFill{TaskID: "t-1"}}, "t-1", "being read in the background as task t-1 (task_id)"},
		{"unfollowed", analysistest.TaskPasses{MemPasses: &analysistest.MemPasses{}, Answer: analysis.PassFill{Follow: "the client did not declare tasks support"}}, "", "cannot be followed as a task: the client did not declare tasks support"},
		{"under way", analysistest.TaskPasses{MemPasses: &analysistest.MemPasses{}, Answer: analysis.PassFill{}}, "", "being read in the background, since the whole breed's pedigree is needed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _ := herdFake()
			f.Store = c.store
			f.Evaluation = "10/01/2025" // the kept pass is of another evaluation
			v, err := analysistest.Run(t, BreedDiversity, f, map[string]any{"breed_id": 640})
			p, ok := v.(*PendingAnswer)
			if err != nil || !ok || p.TaskID != c.task || !strings.Contains(p.BreedPass, c.says) || p.BreedID != 640 {
				t.Errorf("%+v, %v; want task %q and %q", v, err, c.task, c.says)
			}
		})
	}
}
