// Tests of nsip_plan_matings (plan.go): its runs over a fake NSIP: plans equal
// to a brute-force best assignment, ties broken toward lower COI, errors
// named by their argument or list entry, weights and the COI limit asked
// of the user, pairs whose COI cannot be known left out, and answers
// fitted to the budget. Its contract and arguments are in plan_test.go.

package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// bestPlan tries every assignment of ewes to rams or to none (values[r][e]
// the lamb's index, coi[r][e] its COI) and keeps those within max_coi and
// the rams' limit; the best mates the most ewes, then has the largest
// total, as the tool promises.
func bestPlan(values, coi [][]float64, maxCOI float64, perRam int) (mated int, total float64) {
	nr, ne := len(values), len(values[0])
	mated, total = -1, math.Inf(-1)
	choice := make([]int, ne)
	var try func(e int)
	try = func(e int) {
		if e == ne {
			load := make([]int, nr)
			m, t := 0, 0.0
			for ei, r := range choice {
				if r < 0 {
					continue
				}
				if load[r]++; load[r] > perRam || coi[r][ei] > maxCOI+1e-12 {
					return
				}
				m, t = m+1, t+values[r][ei]
			}
			if m > mated || m == mated && t > total {
				mated, total = m, t
			}
			return
		}
		for r := -1; r < nr; r++ {
			choice[e] = r
			try(e + 1)
		}
	}
	try(0)
	return mated, total
}

func TestPlanTinyHerd(t *testing.T) {
	// Lamb index (ram + ewe)/2 for [RAM01, RAM02] x [EWE01, EWE02, EWE03].
	values := [][]float64{{(5.8 + 2.7) / 2, (5.8 + 1.9) / 2, (5.8 + 4.5) / 2}, {(3.6 + 2.7) / 2, (3.6 + 1.9) / 2, (3.6 + 4.5) / 2}}
	coi := [][]float64{{1.0 / 8, 0, 0}, {0, 0, 1.0 / 16}}
	for _, c := range []struct {
		maxCOI float64
		perRam int
		ramOf  map[string]string
	}{
		// RAM01 may not take EWE01 (1/8); with two each he takes the
		// other two and RAM02 EWE01: 3.85 + 5.15 + 3.15 = 12.15.
		{0.0625, 2, map[string]string{"EWE01": "RAM02", "EWE02": "RAM01", "EWE03": "RAM01"}},
		// One each: two ewes mated; RAM01 x EWE03 (5.15) with RAM02 x
		// EWE01 (3.15) = 8.3 beats 7.9 either other way; EWE02 waits.
		{0.0625, 1, map[string]string{"EWE01": "RAM02", "EWE03": "RAM01"}},
		// No inbreeding at all: RAM02 loses EWE03 (1/16) too.
		{0, 2, map[string]string{"EWE01": "RAM02", "EWE02": "RAM01", "EWE03": "RAM01"}},
		{0, 1, map[string]string{"EWE01": "RAM02", "EWE03": "RAM01"}},
		// Anything goes: RAM01, the better ram, takes two ewes; which two
		// does not change the total, so EWE01 goes to RAM02 (COI 0) rather
		// than to her half sib RAM01 (1/8).
		{0.5, 2, map[string]string{"EWE01": "RAM02", "EWE02": "RAM01", "EWE03": "RAM01"}},
	} {
		var a analysistest.PlanAnswer
		analysistest.MustRun(t, PlanMatings, analysistest.PlanHerd(), analysistest.WithArgs(analysistest.PlanSent, "max_coi", c.maxCOI, "max_ewes_per_ram", c.perRam), &a)
		mated, total := bestPlan(values, coi, c.maxCOI, c.perRam)
		if a.Mated != mated || math.Abs(a.Total-total) > 1e-4 {
			t.Errorf("max_coi %v, %d a ram: mated %d total %v, brute force %d %v", c.maxCOI, c.perRam, a.Mated, a.Total, mated, total)
		}
		if got := a.RamOf(); !maps.Equal(got, c.ramOf) {
			t.Errorf("max_coi %v, %d a ram: plan %v, want %v", c.maxCOI, c.perRam, got, c.ramOf)
		}
		// Each row's COI is the pedigree's, and its lamb EBVs the means.
		for ram, rows := range a.ByRam {
			ri := slices.Index([]string{"RAM01", "RAM02"}, ram)
			for _, row := range rows {
				ei := slices.Index([]string{"EWE01", "EWE02", "EWE03"}, row[0].(string))
				if row[1] != coi[ri][ei] || row[2] != facts.Round4(values[ri][ei]) {
					t.Errorf("%s x %s: coi %v index %v, want %v %v", ram, row[0], row[1], row[2], coi[ri][ei], facts.Round4(values[ri][ei]))
				}
			}
		}
	}
	var a analysistest.PlanAnswer
	analysistest.MustRun(t, PlanMatings, analysistest.PlanHerd(), analysistest.WithArgs(analysistest.PlanSent, "max_ewes_per_ram", 1), &a)
	if !slices.Equal(a.Columns, []string{"ewe", "coi", "lamb_index", "lamb_BWT", "lamb_WWT"}) {
		t.Errorf("columns %v", a.Columns)
	}
	// RAM01 x EWE03: BWT (0.2 + 0.5)/2 = 0.35, WWT (6 + 5)/2 = 5.5.
	if r := a.ByRam["RAM01"][0]; fmt.Sprint(r) != "[EWE03 0 5.15 0.35 5.5]" {
		t.Errorf("RAM01's row %v, want [EWE03 0 5.15 0.35 5.5]", r)
	}
	if want := map[string][]string{"every ram within max_coi already has max_ewes_per_ram ewes": {"EWE02"}}; !maps.EqualFunc(a.Unassigned, want, slices.Equal) {
		t.Errorf("unassigned %v, want %v", a.Unassigned, want)
	}
	// First cousins give exactly 1/16, which the usual limit allows.
	analysistest.MustRun(t, PlanMatings, analysistest.PlanHerd(), analysistest.WithArgs(analysistest.PlanSent, "ram_lpn_ids", []any{"RAM02"}, "ewe_lpn_ids", []any{"EWE03"}), &a)
	if a.Mated != 1 || len(a.Unassigned) != 0 || a.MaxCOI != 0.0625 {
		t.Errorf("cousins at max_coi %v: mated %d, unassigned %v; want 1 mated at 0.0625", a.MaxCOI, a.Mated, a.Unassigned)
	}
	analysistest.MustRun(t, PlanMatings, analysistest.PlanHerd(), analysistest.WithArgs(analysistest.PlanSent, "ram_lpn_ids", []any{"RAM01"}, "ewe_lpn_ids", []any{"EWE01", "EWE02"}), &a)
	if want := map[string][]string{"every ram's lamb would exceed max_coi": {"EWE01"}}; !maps.EqualFunc(a.Unassigned, want, slices.Equal) {
		t.Errorf("unassigned %v, want %v", a.Unassigned, want)
	}
}

// Random small herds with related animals: the plan's total is the brute
// force best, COIs taken from the whole pedigree the fake holds.
func TestPlanMatchesBruteForce(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 3))
		f := analysistest.NewFake()
		ped := breeding.NewPedigree()
		var males, females []string
		// Four generations from six founders of each sex, each animal by
		// a random ram and ewe of the generation before.
		for g := range 4 {
			var nm, nf []string
			for i := range 6 {
				for s, sex := range []string{"Male", "Female"} {
					a := &analysistest.FakeAnimal{ID: fmt.Sprintf("G%dS%dN%02d", g, s, i), Sex: sex,
						EBV: map[string]float64{"WWT": math.Round(rng.NormFloat64()*300) / 100, "BWT": math.Round(rng.NormFloat64()*30) / 100}}
					if g > 0 {
						a.Sire, a.Dam = males[rng.IntN(len(males))], females[rng.IntN(len(females))]
					}
					f.Add(a)
					if err := ped.Add(a.ID, a.Sire, a.Dam); err != nil {
						t.Fatal(err)
					}
					if s == 0 {
						nm = append(nm, a.ID)
					} else {
						nf = append(nf, a.ID)
					}
				}
			}
			males, females = nm, nf
		}
		rams, ewes := males[:2+rng.IntN(2)], females[:3+rng.IntN(3)]
		w := breeding.Weights{"WWT": 1, "BWT": -0.5}
		values, coi := make([][]float64, len(rams)), make([][]float64, len(rams))
		for r, ram := range rams {
			ri, _, _ := w.Index(f.Animals[ram].EBV)
			for _, ewe := range ewes {
				ei, _, _ := w.Index(f.Animals[ewe].EBV)
				values[r] = append(values[r], (ri+ei)/2)
				c, err := ped.MatingCOI(context.Background(), ram, ewe)
				if err != nil {
					t.Fatal(err)
				}
				coi[r] = append(coi[r], c)
			}
		}
		maxCOI := []float64{0, 0.0625, 0.125, 1}[rng.IntN(4)]
		perRam := 1 + rng.IntN(3)
		var a analysistest.PlanAnswer
		analysistest.MustRun(t, PlanMatings, f, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(ewes),
			"weights": map[string]any{"WWT": 1.0, "BWT": -0.5}, "max_coi": maxCOI, "max_ewes_per_ram": perRam}, &a)
		mated, total := bestPlan(values, coi, maxCOI, perRam)
		if a.Mated != mated || math.Abs(a.Total-total) > 1e-4 {
			t.Errorf("seed %d (%d rams, %d ewes, max_coi %v, %d a ram): mated %d total %v, brute force %d %v; coi %v",
				seed, len(rams), len(ewes), maxCOI, perRam, a.Mated, a.Total, mated, total, coi)
		}
		_, _, top, sum := bestPlanCOI(values, coi, maxCOI, perRam)
		gotTop, gotSum := 0.0, 0.0
		for _, rows := range a.ByRam {
			for _, row := range rows {
				c, _ := row[1].(float64)
				gotTop, gotSum = max(gotTop, c), gotSum+c
			}
		}
		if mated > 0 && (math.Abs(gotTop-top) > 1e-12 || math.Abs(gotSum-sum) > 1e-12) {
			t.Errorf("seed %d: highest COI %v sum %v, brute force %v %v", seed, gotTop, gotSum, top, sum)
		}
		for ram, rows := range a.ByRam {
			for _, row := range rows {
				want := coi[slices.Index(rams, ram)][slices.Index(ewes, row[0].(string))]
				if c, ok := row[1].(float64); !ok || math.Abs(c-want) > 1e-12 {
					t.Errorf("seed %d: %s x %s COI %v, want %v", seed, ram, row[0], row[1], want)
				}
			}
		}
	}
}

func TestPlanEdges(t *testing.T) {
	// A ewe without a BWT EBV: her lambs' index is unknown and left out of
	// the total, and rams are chosen for her on their own halves.
	f := analysistest.PlanHerd()
	delete(f.Animals["EWE02"].EBV, "BWT")
	f.Animals["RAM02"].Sex = "Female"
	var a analysistest.PlanAnswer
	analysistest.MustRun(t, PlanMatings, f, analysistest.WithArgs(analysistest.PlanSent, "max_ewes_per_ram", 2), &a)
	// EWE01 -> RAM02 (3.15), EWE03 -> RAM01 (5.15); EWE02 -> RAM01 adds
	// nothing known to the total.
	if !slices.Equal(a.NoIndex.LPNIDs, []string{"EWE02"}) || math.Abs(a.Total-8.3) > 1e-9 {
		t.Errorf("without index %v total %v, want EWE02 and 8.3", a.NoIndex.LPNIDs, a.Total)
	}
	if r := a.RamOf(); r["EWE02"] != "RAM01" {
		t.Errorf("EWE02 went to %s, want RAM01, the better ram", r["EWE02"])
	}
	for _, row := range a.ByRam["RAM01"] {
		if row[0] == "EWE02" && (row[2] != "unknown" || row[3] != "unknown" || row[4] != 4.0) {
			t.Errorf("EWE02's row %v, want an unknown index and BWT, WWT 4", row)
		}
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], `ram RAM02 is recorded as "Female"`) {
		t.Errorf("warnings %q", a.Warnings)
	}

	// A ewe without any pedigree: her COIs are unknown, allowed and counted.
	f = analysistest.PlanHerd()
	f.Animals["EWE02"].Sire, f.Animals["EWE02"].Dam = "", ""
	analysistest.MustRun(t, PlanMatings, f, analysistest.PlanSent, &a)
	if a.UnknownN != 1 {
		t.Errorf("unknown COI pairs %d, want 1 (EWE02 with her ram)", a.UnknownN)
	}

	// Over the budget: lamb EBVs go, and the answer says so.
	f = analysistest.PlanHerd()
	f.Over = true
	analysistest.MustRun(t, PlanMatings, f, analysistest.PlanSent, &a)
	if !slices.Equal(a.Columns, []string{"ewe", "coi", "lamb_index"}) || a.LambEBVs == "" || a.Mated != 3 {
		t.Errorf("over budget: columns %v lamb_ebvs %q mated %d", a.Columns, a.LambEBVs, a.Mated)
	}
}

func TestPlanErrors(t *testing.T) {
	var ae *analysis.ArgError
	var ab *analysis.AboutError
	for _, c := range []struct {
		name  string
		sent  map[string]any
		field string
	}{
		{"ewe also a ram", analysistest.WithArgs(analysistest.PlanSent, "ewe_lpn_ids", []any{"RAM02"}), "ewe_lpn_ids[0]"},
		{"ram without a weighted EBV", analysistest.WithArgs(analysistest.PlanSent, "weights", map[string]any{"NLB": 1.0}), "ram_lpn_ids[0]"},
	} {
		if _, err := analysistest.Run(t, PlanMatings, analysistest.PlanHerd(), c.sent); !errors.As(err, &ae) || ae.Field != c.field {
			t.Errorf("%s: %v, want an argument error on %s", c.name, err, c.field)
		}
	}
	// A COI limit over 1 (a percent sent for a fraction) is refused with
	// the arguments, before the run, so that an error's example never
	// carries it.
	if _, errs := PlanMatings.Args.Validate(param.SentOf(analysistest.WithArgs(analysistest.PlanSent, "max_coi", 2.0))); len(errs) != 1 ||
		errs[0].Field != "max_coi" || errs[0].Problem != "must be a fraction from 0 to 1, got 2" {
		t.Errorf("max_coi over 1: %+v", errs)
	}
	if _, err := analysistest.Run(t, PlanMatings, analysistest.PlanHerd(), analysistest.WithArgs(analysistest.PlanSent, "ewe_lpn_ids", []any{"EWE01", "NOBODY1"})); !errors.As(err, &ab) || ab.Field != "ewe_lpn_ids[1]" {
		t.Errorf("unknown ewe: %v, want not found about ewe_lpn_ids[1]", err)
	}
	// Details but no lineage of a listed animal: named by its list entry.
	lf := &analysistest.LineageFail{FakeSource: analysistest.PlanHerd(), ID: "EWE03", Err: analysistest.NotFound("EWE03")}
	args, _ := PlanMatings.Validate(param.SentOf(analysistest.PlanSent))
	if _, err := analysis.Run(t.Context(), PlanMatings, lf, analysistest.Discard(), param.SentOf(analysistest.PlanSent), args); !errors.As(err, &ab) || ab.Field != "ewe_lpn_ids[2]" {
		t.Errorf("ewe without a lineage: %v, want not found about ewe_lpn_ids[2]", err)
	}
}

// Weights and the COI limit left out are asked in one form once the rams
// are read, over the traits every ram carries.
func TestPlanAsks(t *testing.T) {
	sent := map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01", "EWE02", "EWE03"}}
	args, _ := PlanMatings.Validate(param.SentOf(sent))
	f := analysistest.PlanHerd()
	f.Animals["RAM01"].EBV["NLB"] = 0.2 // one ram only: not offered
	f.Answers = map[string]any{"WWT": 1.0, "BWT": -1.0, "max_coi": 0.5}
	v, err := analysis.Run(t.Context(), PlanMatings, f, analysistest.Discard(), param.SentOf(sent), args)
	if err != nil {
		t.Fatal(err)
	}
	var a analysistest.PlanAnswer
	analysistest.Decode(t, v, &a)
	if a.MaxCOI != 0.5 || a.RamOf()["EWE01"] != "RAM01" {
		t.Errorf("max_coi %v plan %v, want the answer's 0.5 letting RAM01 take EWE01", a.MaxCOI, a.RamOf())
	}
	form := f.Forms[0]
	var names []string
	for _, p := range form.Fields {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"BWT", "WWT"}) || len(form.Also) != 1 || form.Also[0].Name != "max_coi" {
		t.Errorf("form fields %v also %v, want BWT WWT and max_coi", names, form.Also)
	}
	if f.CallsOf("details") != 5 {
		t.Errorf("details read %d times, want 5", f.CallsOf("details"))
	}

	f.Answers["max_coi"] = 1.5
	var ue *analysis.AnswerError
	if _, err := analysis.Run(t.Context(), PlanMatings, f, analysistest.Discard(), param.SentOf(sent), args); !errors.As(err, &ue) || ue.Errs[0].Field != "max_coi" {
		t.Errorf("max_coi answered 1.5: %v, want the user's answer on max_coi", err)
	}
}

// bestPlanCOI is bestPlan's best assignments ranked further as the tool
// promises: among those mating the most ewes with the largest total
// (within 1e-9), the lowest highest COI, then the lowest COI sum.
func bestPlanCOI(values, coi [][]float64, maxCOI float64, perRam int) (mated int, total, top, sum float64) {
	nr, ne := len(values), len(values[0])
	mated, total, top, sum = -1, math.Inf(-1), math.Inf(1), math.Inf(1)
	choice := make([]int, ne)
	var try func(e int)
	try = func(e int) {
		if e == ne {
			load := make([]int, nr)
			m, t, hi, s := 0, 0.0, 0.0, 0.0
			for ei, r := range choice {
				if r < 0 {
					continue
				}
				if load[r]++; load[r] > perRam || coi[r][ei] > maxCOI+1e-12 {
					return
				}
				m, t, hi, s = m+1, t+values[r][ei], max(hi, coi[r][ei]), s+coi[r][ei]
			}
			switch {
			case m != mated:
				if m < mated {
					return
				}
			case t < total-1e-9:
				return
			case t <= total+1e-9 && (hi > top || hi == top && s >= sum):
				return
			}
			mated, total, top, sum = m, t, hi, s
			return
		}
		for r := -1; r < nr; r++ {
			choice[e] = r
			try(e + 1)
		}
	}
	try(0)
	return mated, total, top, sum
}

// Two rams, two ewes, one ewe a ram: every full plan totals (4+2+3+1)/2 =
// 5. RAM01 x EWE01 (their sires full sibs, 1/16, exactly the cap) with
// RAM02 x EWE02 (unrelated, 0) ties with RAM01 x EWE02 and RAM02 x EWE01
// (sires half sibs, 1/32 each); the plan takes the second, whose highest
// lamb COI is lower, as brute force over every assignment does.
func TestPlanTiesPreferLowCOI(t *testing.T) {
	f := analysistest.Herd("RAM01 AAAA1 MUM01 Male", "AAAA1 GGGG1 GGGG2 Male", "RAM02 DDDD1 MUM03 Male", "DDDD1 GGGG2 HHHH2 Male",
		"EWE01 BBBB1 MUM02 Female", "BBBB1 GGGG1 GGGG2 Male", "EWE02 CCCC1 MUM04 Female", "CCCC1 GGGG1 HHHH1 Male")
	for id, v := range map[string]float64{"RAM01": 4, "RAM02": 2, "EWE01": 3, "EWE02": 1} {
		f.Animals[id].EBV = map[string]float64{"WWT": v}
	}
	var a analysistest.PlanAnswer
	analysistest.MustRun(t, PlanMatings, f, map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01", "EWE02"},
		"weights": map[string]any{"WWT": 1.0}, "max_coi": 0.0625, "max_ewes_per_ram": 1}, &a)
	values := [][]float64{{3.5, 2.5}, {2.5, 1.5}}
	coi := [][]float64{{1.0 / 16, 1.0 / 32}, {1.0 / 32, 0}}
	mated, total, top, sum := bestPlanCOI(values, coi, 0.0625, 1)
	gotTop, gotSum := 0.0, 0.0
	for _, rows := range a.ByRam {
		for _, r := range rows {
			gotTop, gotSum = max(gotTop, r[1].(float64)), gotSum+r[1].(float64)
		}
	}
	if a.Mated != mated || a.Total != total || gotTop != top || gotSum != sum {
		t.Errorf("plan %v: mated %d total %v highest COI %v sum %v; brute force %d %v %v %v", a.ByRam, a.Mated, a.Total, gotTop, gotSum, mated, total, top, sum)
	}
	if want := map[string]string{"EWE01": "RAM02", "EWE02": "RAM01"}; !maps.Equal(a.RamOf(), want) {
		t.Errorf("plan %v, want %v", a.RamOf(), want)
	}
}

// An ancestor's lineage failing leaves RAM02's pedigree part read: on what
// was read his lamb with EWE01 has COI 0, but their sires are in fact half
// sibs (1/32, over a max_coi of 0.01). The better ram's pair is left out
// and named, and EWE01 goes to RAM01, whose pedigree was read whole.
func TestPlanLeavesUnresolvedPairsOut(t *testing.T) {
	f := analysistest.Herd("RAM01 FFFF1 FFFF2 Male", "RAM02 PAPA2 MUM01 Male", "PAPA2 XXXXX MUM02 Male",
		"EWE01 PAPA3 MUM03 Female", "PAPA3 XXXXX MUM04 Male")
	f.LineageGens = 2
	for id, v := range map[string]float64{"RAM01": 1, "RAM02": 9, "EWE01": 3} {
		f.Animals[id].EBV = map[string]float64{"WWT": v}
	}
	src := &analysistest.LineageFail{FakeSource: f, ID: "PAPA2", Err: errors.New("NSIP busy")}
	sent := map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01"}, "weights": map[string]any{"WWT": 1.0}, "max_coi": 0.01}
	args, errs := PlanMatings.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v, err := analysis.Run(t.Context(), PlanMatings, src, analysistest.Discard(), param.SentOf(sent), args)
	if err != nil {
		t.Fatal(err)
	}
	var a analysistest.PlanAnswer
	analysistest.Decode(t, v, &a)
	if got := a.RamOf(); !maps.Equal(got, map[string]string{"EWE01": "RAM01"}) || a.Unresolved.Pairs != 1 || !slices.Equal(a.Unresolved.Animals, []string{"RAM02"}) {
		t.Errorf("plan %v, unresolved %+v; want EWE01 to RAM01 and RAM02's pair named unresolved", got, a.Unresolved)
	}
}

// Over the budget a plan keeps its totals, constraints and as many whole
// rows as fit, and gives the call that shows the rest: here 20 unrelated
// ewes, all mated, and a budget a few rows hold.
func TestPlanFitsItsOwnAnswer(t *testing.T) {
	f, ewes := ramAndNinetyEwes()
	sent := map[string]any{"ram_lpn_ids": []any{"RAM01"}, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1.0}, "max_ewes_per_ram": 100}
	var full map[string]any
	analysistest.MustRun(t, PlanMatings, f, sent, &full)
	fb, _ := json.Marshal(full)
	f.OverAt = len(fb) - 100
	var raw map[string]any
	v, err := analysistest.Run(t, PlanMatings, f, sent)
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &raw)
	var a analysistest.PlanAnswer
	analysistest.Decode(t, v, &a)
	rows := a.ByRam["RAM01"]
	rest, _ := raw["not_shown"].(map[string]any)
	if a.Mated != 90 || a.Total != full["total_lamb_index"] || a.MaxCOI != 0.0625 || raw["weights"] == nil || len(rows) == 0 || len(rows) >= 90 || rest == nil || rest["rows"] != float64(90-len(rows)) {
		t.Fatalf("fitted plan: mated %d total %v max_coi %v, %d rows, rest %v; want 90, %v, 0.0625, some rows and the rest counted",
			a.Mated, a.Total, a.MaxCOI, len(rows), rest, full["total_lamb_index"])
	}
	for i, r := range rows {
		if len(r) != len(a.Columns) || r[0] != ewes[i] {
			t.Errorf("row %d = %v, want a whole row for %v", i, r, ewes[i])
		}
	}
	call := rest["call"].(map[string]any)
	set := call["set"].(map[string]any)
	if call["tool"] != "nsip_plan_matings" || set["max_tokens"] != 8000.0 || len(set) != 1 {
		t.Errorf("call for the rest %v; want the same plan at max_tokens 8000", call)
	}
	if b, _ := json.Marshal(v); len(b) > f.OverAt {
		t.Errorf("fitted plan is %d bytes, over the budget of %d", len(b), f.OverAt)
	}
}

// A ewe recorded with one animal as both sire and dam is warned of, and
// her pairs are unresolved rather than computed from a broken record.
func TestPlanBrokenRecord(t *testing.T) {
	f := analysistest.Herd("RAM01 RS001 RD001 Male", "EWE01 XXXXX XXXXX Female", "EWE02 ES002 ED002 Female")
	for _, a := range f.Animals {
		a.EBV = map[string]float64{"WWT": 1}
	}
	var a analysistest.PlanAnswer
	analysistest.MustRun(t, PlanMatings, f, map[string]any{"ram_lpn_ids": []any{"RAM01"}, "ewe_lpn_ids": []any{"EWE01", "EWE02"}, "weights": map[string]any{"WWT": 1.0}}, &a)
	if !maps.Equal(a.RamOf(), map[string]string{"EWE02": "RAM01"}) || !slices.Equal(a.Unresolved.Animals, []string{"EWE01"}) ||
		!strings.Contains(strings.Join(a.Warnings, " "), "EWE01 is recorded with XXXXX as both sire and dam") {
		t.Errorf("plan %v, unresolved %+v, warnings %q; want EWE02 mated, EWE01 unresolved and warned of", a.RamOf(), a.Unresolved, a.Warnings)
	}
}

// The call for the rest of a plan sets what the user chose in the form,
// the weights and the COI limit, also when the call sent them as null.
func TestPlanRestCallSetsTheChosenArguments(t *testing.T) {
	f, ewes := ramAndNinetyEwes()
	f.Answers = map[string]any{"WWT": 1.0, "max_coi": 0.25}
	for i, sent := range []map[string]any{
		{"ram_lpn_ids": []any{"RAM01"}, "ewe_lpn_ids": ewes, "max_ewes_per_ram": 100},
		{"ram_lpn_ids": []any{"RAM01"}, "ewe_lpn_ids": ewes, "max_ewes_per_ram": 100, "weights": nil, "max_coi": nil},
	} {
		args, _ := PlanMatings.Validate(param.SentOf(sent)) // weights left out is left to the form
		f.OverAt = 0
		whole, err := analysis.Run(t.Context(), PlanMatings, f, analysistest.Discard(), param.SentOf(sent), args)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		b, _ := json.Marshal(whole)
		f.OverAt = len(b) - 100
		v, err := analysis.Run(t.Context(), PlanMatings, f, analysistest.Discard(), param.SentOf(sent), args)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got, want := analysistest.RestCallSet(t, v), `{"max_coi":0.25,"max_tokens":8000,"weights":{"WWT":1}}`; got != want {
			t.Errorf("call %d: the rest's call sets %s, want %s", i, got, want)
		}
	}
}

// ramAndNinetyEwes is a herd of one ram and 90 unrelated ewes, each with
// a WWT, and the ewes' IDs: more rows than a small budget holds.
func ramAndNinetyEwes() (*analysistest.FakeSource, []any) {
	lines := []string{"RAM01 RS001 RD001 Male"}
	var ewes []any
	for i := range 90 {
		id := fmt.Sprintf("EWE%02d", i)
		ewes = append(ewes, id)
		lines = append(lines, fmt.Sprintf("%s ES%03d ED%03d Female", id, i, i))
	}
	f := analysistest.Herd(lines...)
	for _, a := range f.Animals {
		a.EBV = map[string]float64{"WWT": float64(len(a.ID))}
	}
	return f, ewes
}
