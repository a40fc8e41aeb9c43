package analysis

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The ceilings the descriptions promise (at most 60 lookups for a mating,
// one an animal for a comparison of up to 20, 30 pages, the trait
// ranges, one spare and NSIP's evaluation date twice for a ranking and 300 more for its ewes, 150 more for percentiles
// in either, 30 pages and the date twice for a flock and 400 offspring records for progeny, 400 for a plan).
var documentedCeilings = map[*Def]int{CheckMating: 60, Compare: 20 + 150, Rank: 34 + 300 + 150 + 50, FlockSummary: 30 + 2 + 400, PlanMatings: 400}

func TestDocumentedCeilings(t *testing.T) {
	for d, want := range documentedCeilings {
		if d.Ceiling != want {
			t.Errorf("%s: ceiling %d, documented %d", d.Name, d.Ceiling, want)
		}
	}
	for d, says := range map[*Def][]string{CheckMating: {"at most 60 NSIP lookups"}, FlockSummary: {"at most 32 lookups", "progeny_of 400 more"}, PlanMatings: {"at most 400 NSIP lookups"}, Rank: {"at most 30 pages", "at most 300 lookups more", "150 more", "records 50 more"}, Compare: {"150 more"}} {
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
	f := newFake()
	deepHerd(f, 10, "SIRE1")
	deepHerd(f, 10, "XDAM1")
	f.animals["XDAM1"].Sex = "Female"
	f.lineageGens = 2
	var m matingAnswer
	mustRun(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "XDAM1"}, &m)
	if f.lookups != CheckMating.Ceiling || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "ceiling") || m.COI == nil || *m.COI != 0 {
		t.Errorf("mating: %d lookups, notes %q, coi %v; want %d, a note on the ceiling and 0", f.lookups, m.Notes, fmtPtr(m.COI), CheckMating.Ceiling)
	}

	// Twenty animals to compare.
	f = newFake()
	var ids []any
	for i := range 20 {
		id := fmt.Sprintf("CMP%02d", i)
		f.add(&fakeAnimal{ID: id, EBV: map[string]float64{"WWT": float64(i)}})
		ids = append(ids, id)
	}
	var c compareAnswer
	mustRun(t, Compare, f, map[string]any{"lpn_ids": ids}, &c)
	if f.lookups != 20 || len(c.Best["WWT"]) != 1 || c.Best["WWT"][0] != "CMP19" {
		t.Errorf("compare: %d lookups, best %v; want 20 and CMP19", f.lookups, c.Best)
	}

	// A ranking of more animals than the scan reads, in no order.
	f = population(11, 4000)
	f.unsorted = true
	var r rankAnswer
	mustRun(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, &r)
	if f.lookups > Rank.Ceiling || r.Computed.Exact {
		t.Errorf("rank: %d lookups, exact %v; want at most %d and not exact", f.lookups, r.Computed.Exact, Rank.Ceiling)
	}

	// A flock of 4000: its page limit, under the ceiling.
	f = flockOf(12, 4000)
	var fl flockAnswer
	mustRun(t, FlockSummary, f, map[string]any{"flock_id": "640238"}, &fl)
	if f.lookups != flockPages || fl.Computed.Complete {
		t.Errorf("flock: %d lookups, complete %v; want %d and incomplete", f.lookups, fl.Computed.Complete, flockPages)
	}
	// A breed of 3000 searched whole where passes are kept: the date, the
	// page limit and the date again, the whole ceiling.
	f = population(12, 3000)
	mustRunSource(t, FlockSummary, passFake{f, &memPasses{}}, map[string]any{"search": map[string]any{"breed_id": 640}}, &fl)
	if f.lookups != flockPages+evalLookups || !fl.Computed.Complete {
		t.Errorf("breed: %d lookups, complete %v; want %d and complete", f.lookups, fl.Computed.Complete, flockPages+evalLookups)
	}

	// The largest plan, 10 rams and 100 ewes, each 4 generations deep
	// and read two generations a lineage: 30 lineages complete one
	// animal's pedigree, so the 180 lookups left after the 110 records
	// and lineages complete 5 rams (read first; the rest go to the next
	// rams' pedigrees, read a few at a time) and no ewe. No pair is
	// known to be within max_coi, so none is mated, and all 1000 are named
	// unresolved rather than taken as COI 0.
	f = newFake()
	var rams, ewes []any
	for i := range 10 {
		rams = append(rams, fmt.Sprintf("RAM%02d", i))
		deepHerd(f, 4, rams[i].(string))
	}
	for i := range 100 {
		ewes = append(ewes, fmt.Sprintf("EWE%03d", i))
		deepHerd(f, 4, "XXXXX", ewes[i].(string))
	}
	f.lineageGens = 2
	var p planAnswer
	v, err := run(t, PlanMatings, f, map[string]any{"ram_lpn_ids": rams, "ewe_lpn_ids": ewes, "weights": map[string]any{"WWT": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	decode(t, v, &p)
	notes := fmt.Sprint(v.(*PlanAnswer).Notes)
	if f.lookups != PlanMatings.Ceiling || p.Mated != 0 || p.Unresolved.Pairs != 1000 || len(p.Unresolved.Animals) != 105 || !strings.Contains(notes, "ceiling") {
		t.Errorf("plan: %d lookups, %d mated, unresolved %+v, notes %s; want %d, 0, 1000 pairs over 105 animals and a note on the ceiling",
			f.lookups, p.Mated, p.Unresolved, notes, PlanMatings.Ceiling)
	}
	if f.refused != 0 {
		t.Errorf("%d lookups refused with no ceiling set", f.refused)
	}
}

// A source that refuses lookups sooner (as the gateway does once a call
// has used its ceiling, cached answers included) ends the analysis with
// ErrCeiling, or, for a pedigree, with a note that the COI may be
// understated.
func TestErrCeilingSurfaces(t *testing.T) {
	unsorted := func(f *fakeSource) *fakeSource { f.unsorted = true; return f }
	cases := []struct {
		d       *Def
		f       func() *fakeSource
		sent    map[string]any
		allowed int
	}{
		{Compare, compareHerd, map[string]any{"lpn_ids": []any{"ANIM1", "ANIM2", "ANIM3"}}, 2},
		// Unsorted, so that no bound can end the scan early.
		{Rank, func() *fakeSource { return unsorted(population(13, 500)) }, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}}, 2},
		{FlockSummary, func() *fakeSource { return flockOf(14, 500) }, map[string]any{"flock_id": "640238"}, 2},
		{PlanMatings, planHerd, planSent, 4},
		// The parents' details are needed; their lineages are not (below).
		{CheckMating, planHerd, map[string]any{"sire_lpn_id": "RAM01", "dam_lpn_id": "EWE01"}, 1},
	}
	for _, c := range cases {
		f := c.f()
		f.ceiling = c.allowed
		_, err := run(t, c.d, f, c.sent)
		if !errors.Is(err, ErrCeiling) {
			t.Errorf("%s with %d lookups allowed: %v, want ErrCeiling", c.d.Name, c.allowed, err)
		}
		if f.lookups != c.allowed || f.refused == 0 {
			t.Errorf("%s: %d lookups, %d refused; want %d and some refused", c.d.Name, f.lookups, f.refused, c.allowed)
		}
	}

	// A mating whose parents are read but whose ancestors' lineages are
	// refused keeps the COI found so far and says it may be understated.
	f := herd(matingCases[1].herd...)
	f.ceiling = 3
	f.lineageGens = 1
	var m matingAnswer
	mustRun(t, CheckMating, f, map[string]any{"sire_lpn_id": "SIRE1", "dam_lpn_id": "DAM01"}, &m)
	if m.COI == nil || *m.COI != 1.0/8 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "ceiling of lookups, so the COI may be understated") {
		t.Errorf("refused lineages: coi %v notes %q; want 1/8 and a note", fmtPtr(m.COI), m.Notes)
	}
}
