package analysis_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/compare"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/flock"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/plan"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/rank"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"
)

// The ceilings the descriptions promise (at most 60 lookups for a mating,
// one an animal for a comparison of up to 20, 30 pages, the trait
// ranges, one spare and NSIP's evaluation date twice for a ranking and 300 more for its ewes, 150 more for percentiles
// in either, 30 pages and the date twice for a flock and 400 offspring records for progeny, 400 for a plan).
var documentedCeilings = map[*analysis.Def]int{mating.CheckMating: 60, compare.Compare: 20 + 150, rank.Rank: 34 + 300 + 150 + 50, flock.FlockSummary: 30 + 2 + 400, plan.PlanMatings: 400}

func TestDocumentedCeilings(t *testing.T) {
	for d, want := range documentedCeilings {
		if d.Ceiling != want {
			t.Errorf("%s: ceiling %d, documented %d", d.Name, d.Ceiling, want)
		}
	}
	for d, says := range map[*analysis.Def][]string{mating.CheckMating: {"at most 60 NSIP lookups"}, flock.FlockSummary: {"at most 32 lookups", "progeny_of 400 more"}, plan.PlanMatings: {"at most 400 NSIP lookups"}, rank.Rank: {"at most 30 pages", "at most 300 lookups more", "150 more", "records 50 more"}, compare.Compare: {"150 more"}} {
		for _, s := range says {
			if !strings.Contains(d.Desc, s) {
				t.Errorf("%s: description does not say %q", d.Name, s)
			}
		}
	}
}

// With no ceiling of the fake's own, each analysis on its worst case stops
// itself at its ceiling, and says so where the answer is partial.
func TestAnalysesStayWithinCeiling(t *testing.T) {
	// A mating behind 10 generations of ancestors, read two generations a
	// lineage: far more than 60 lineages would complete it.
	f := analysistest.NewFake()
	analysistest.DeepHerd(f, 10, "SIRE1")
	analysistest.DeepHerd(f, 10, "XDAM1")
	f.Animals["XDAM1"].Sex = "Female"
	f.LineageGens = 2
	var m analysistest.MatingAnswer
	analysistest.MustRun(t, mating.CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "XDAM1"}, &m)
	if f.Lookups != mating.CheckMating.Ceiling || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "ceiling") || m.COI == nil || *m.COI != 0 {
		t.Errorf("mating: %d lookups, notes %q, coi %v; want %d, a note on the ceiling and 0", f.Lookups, m.Notes, analysistest.FmtPtr(m.COI), mating.CheckMating.Ceiling)
	}

	// Twenty animals to compare.
	f = analysistest.NewFake()
	var ids []any
	for i := range 20 {
		id := fmt.Sprintf("CMP%02d", i)
		f.Add(&analysistest.FakeAnimal{ID: id, EBV: map[string]float64{"WWT": float64(i)}})
		ids = append(ids, id)
	}
	var c analysistest.CompareAnswer
	analysistest.MustRun(t, compare.Compare, f, map[string]any{"lpn_ids": ids}, &c)
	if f.Lookups != 20 || len(c.Best["WWT"]) != 1 || c.Best["WWT"][0] != "CMP19" {
		t.Errorf("compare: %d lookups, best %v; want 20 and CMP19", f.Lookups, c.Best)
	}

	// A ranking of more animals than the scan reads, in no order.
	f = analysistest.Population(11, 4000)
	f.Unsorted = true
	var r analysistest.RankAnswer
	analysistest.MustRun(t, rank.Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
	if f.Lookups > rank.Rank.Ceiling || r.Computed.Exact {
		t.Errorf("rank: %d lookups, exact %v; want at most %d and not exact", f.Lookups, r.Computed.Exact, rank.Rank.Ceiling)
	}

	// A flock of 4000: its page limit, under the ceiling.
	f = analysistest.FlockOf(12, 4000)
	var fl analysistest.FlockAnswer
	analysistest.MustRun(t, flock.FlockSummary, f, map[string]any{"flock_id": "640238"}, &fl)
	if f.Lookups != scan.FlockPages || fl.Computed.Complete {
		t.Errorf("flock: %d lookups, complete %v; want %d and incomplete", f.Lookups, fl.Computed.Complete, scan.FlockPages)
	}
	// A breed of 3000 searched whole where passes are kept: the date, the
	// page limit and the date again, the whole ceiling.
	f = analysistest.Population(12, 3000)
	analysistest.MustRunSource(t, flock.FlockSummary, analysistest.PassFake{FakeSource: f, MemPasses: &analysistest.MemPasses{}}, map[string]any{"search": map[string]any{"breed_id": 640}}, &fl)
	if f.Lookups != scan.FlockPages+scan.EvalLookups || !fl.Computed.Complete {
		t.Errorf("breed: %d lookups, complete %v; want %d and complete", f.Lookups, fl.Computed.Complete, scan.FlockPages+scan.EvalLookups)
	}

	// The largest plan, 10 rams and 100 ewes, each 4 generations deep
	// and read two generations a lineage: 30 lineages complete one
	// animal's pedigree, so the 180 lookups left after the 110 records
	// and lineages complete 5 rams (read first; the rest go to the next
	// rams' pedigrees, read a few at a time) and no ewe. No pair is
	// known to be within max_coi, so none is mated, and all 1000 are named
	// unresolved rather than taken as COI 0.
	f = analysistest.NewFake()
	var rams, ewes []any
	for i := range 10 {
		rams = append(rams, fmt.Sprintf("RAM%02d", i))
		analysistest.DeepHerd(f, 4, rams[i].(string))
	}
	for i := range 100 {
		ewes = append(ewes, fmt.Sprintf("EWE%03d", i))
		analysistest.DeepHerd(f, 4, "XXXXX", ewes[i].(string))
	}
	f.LineageGens = 2
	var p analysistest.PlanAnswer
	v, err := analysistest.Run(t, plan.PlanMatings, f, map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Decode(t, v, &p)
	notes := fmt.Sprint(v.(*plan.PlanAnswer).Notes)
	if f.Lookups != plan.PlanMatings.Ceiling || p.Mated != 0 || p.Unresolved.Pairs != 1000 || len(p.Unresolved.Animals) != 105 || !strings.Contains(notes, "ceiling") {
		t.Errorf("plan: %d lookups, %d mated, unresolved %+v, notes %s; want %d, 0, 1000 pairs over 105 animals and a note on the ceiling",
			f.Lookups, p.Mated, p.Unresolved, notes, plan.PlanMatings.Ceiling)
	}
	if f.Refused != 0 {
		t.Errorf("%d lookups refused with no ceiling set", f.Refused)
	}
}

// A source that refuses lookups sooner (as the gateway does once a call
// has used its ceiling, cached answers included) ends the analysis with
// ErrCeiling, or, for a pedigree, with a note that the COI may be
// understated.
func TestErrCeilingSurfaces(t *testing.T) {
	unsorted := func(f *analysistest.FakeSource) *analysistest.FakeSource { f.Unsorted = true; return f }
	cases := []struct {
		d       *analysis.Def
		f       func() *analysistest.FakeSource
		sent    map[string]any
		allowed int
	}{
		{compare.Compare, analysistest.CompareHerd, map[string]any{"lpn_ids": []any{"ANIM1", "ANIM2", "ANIM3"}}, 2},
		// Unsorted, so that no bound can end the scan early.
		{rank.Rank, func() *analysistest.FakeSource { return unsorted(analysistest.Population(13, 500)) }, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, 2},
		{flock.FlockSummary, func() *analysistest.FakeSource { return analysistest.FlockOf(14, 500) }, map[string]any{"flock_id": "640238"}, 2},
		{plan.PlanMatings, analysistest.PlanHerd, analysistest.PlanSent, 4},
		// The parents' details are needed; their lineages are not (below).
		{mating.CheckMating, analysistest.PlanHerd, map[string]any{"sire_lpn_id": "RAM01", "dam_lpn_id": "EWE01"}, 1},
	}
	for _, c := range cases {
		f := c.f()
		f.Ceiling = c.allowed
		_, err := analysistest.Run(t, c.d, f, c.sent)
		if !errors.Is(err, analysis.ErrCeiling) {
			t.Errorf("%s with %d lookups allowed: %v, want ErrCeiling", c.d.Name, c.allowed, err)
		}
		if f.Lookups != c.allowed || f.Refused == 0 {
			t.Errorf("%s: %d lookups, %d refused; want %d and some refused", c.d.Name, f.Lookups, f.Refused, c.allowed)
		}
	}

	// A mating whose parents are read but whose ancestors' lineages are
	// refused keeps the COI found so far and says it may be understated.
	f := analysistest.Herd(analysistest.MatingCases[1].Herd...)
	f.Ceiling = 3
	f.LineageGens = 1
	var m analysistest.MatingAnswer
	analysistest.MustRun(t, mating.CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}, &m)
	if m.COI == nil || *m.COI != 1.0/8 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "ceiling of lookups, so the COI may be understated") {
		t.Errorf("refused lineages: coi %v notes %q; want 1/8 and a note", analysistest.FmtPtr(m.COI), m.Notes)
	}
}
