package mating

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
)

// passAnswer is what a mating answered from a held pass shows.
type passAnswer struct {
	COI             *float64 `json:"coi"`
	Basis           string   `json:"basis"`
	CommonAncestors struct {
		Count       *int   `json:"count"`
		NotItemised string `json:"not_itemised"`
		Top         []struct {
			Contribution float64 `json:"contribution"`
		} `json:"top"`
	} `json:"common_ancestors"`
	Computed struct {
		LineagesRead int `json:"lineages_read"`
		Via          *struct {
			Animals               int    `json:"animals"`
			Evaluation            string `json:"evaluation"`
			Pedigree              string `json:"pedigree"`
			EquivalentGenerations struct {
				Sire, Dam *float64
			} `json:"equivalent_generations"`
			LineagesFor []string `json:"lineages_for"`
		} `json:"via"`
	} `json:"computed"`
}

// With the breed's pass held, a mating's COI is its parents' coancestry
// over the breed's whole pedigree: equal to the tabular method over the
// same rows, read with no lineage, exact rather than a bound, and the
// answer says so, with each parent's completeness (a lamb of the fifth
// generation of a closed breed of complete records has 4 equivalent
// complete generations). Its common ancestors, listed, add up to it.
func TestCheckMatingFromHeldPass(t *testing.T) {
	f := analysistest.Kin(5)
	src := analysistest.HoldPass(f, 640)
	want := analysistest.TabularCOI(f, 640)
	var rams, ewes []string
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		switch {
		case strings.HasPrefix(id, "640KIN4M"):
			rams = append(rams, id)
		case strings.HasPrefix(id, "640KIN4F"):
			ewes = append(ewes, id)
		}
	}
	// Related pairs, and a few unrelated ones.
	var pairs [][2]string
	related := 0
	for _, r := range rams {
		for _, e := range ewes {
			if w := want(r, e); w > 0 && related < 5 || w == 0 && len(pairs)-related < 2 {
				pairs = append(pairs, [2]string{r, e})
				related += min(1, int(math.Ceil(w)))
			}
		}
	}
	if related < 5 {
		t.Fatalf("only %d related pairs in the fixture", related)
	}
	for _, pr := range pairs {
		sire, dam := pr[0], pr[1]
		var a passAnswer
		analysistest.MustRunSource(t, CheckMating, src, map[string]any{"sire_lpn_id": sire, "dam_lpn_id": dam}, &a)
		w := want(sire, dam)
		if a.COI == nil || math.Abs(*a.COI-w) > 1e-12 {
			t.Fatalf("%s x %s: COI %v, tabular %v", sire, dam, analysistest.FmtPtr(a.COI), w)
		}
		v := a.Computed.Via
		if v == nil || v.Evaluation != f.Evaluation || v.Animals != len(f.Animals) || !strings.Contains(v.Pedigree, "whole pedigree") || len(v.LineagesFor) != 0 {
			t.Fatalf("%s x %s: computed.via %+v, want the pass of %s with all %d animals", sire, dam, v, f.Evaluation, len(f.Animals))
		}
		if g := v.EquivalentGenerations; g.Sire == nil || *g.Sire != pathGenerations(f, sire) || g.Dam == nil || *g.Dam != pathGenerations(f, dam) {
			t.Errorf("%s x %s: equivalent generations %v, %v; want %v, %v", sire, dam, analysistest.FmtPtr(g.Sire), analysistest.FmtPtr(g.Dam), pathGenerations(f, sire), pathGenerations(f, dam))
		}
		if strings.Contains(a.Basis, "lower bound") || !strings.HasPrefix(a.Basis, "exact") || a.Computed.LineagesRead != 0 {
			t.Errorf("%s x %s: basis %q, %d lineages read", sire, dam, a.Basis, a.Computed.LineagesRead)
		}
		ca := a.CommonAncestors
		if ca.Count == nil {
			t.Fatalf("%s x %s: common ancestors not counted (%q)", sire, dam, ca.NotItemised)
		}
		sum := 0.0
		for _, c := range ca.Top {
			sum += c.Contribution
		}
		if *ca.Count != len(ca.Top) || math.Abs(sum-w) > 1e-12 {
			t.Errorf("%s x %s: %d common ancestors, %d shown adding to %v; want all adding to %v", sire, dam, *ca.Count, len(ca.Top), sum, w)
		}
	}
	if n := f.CallsOf("lineage"); n != 0 {
		t.Errorf("%d lineages read with the pass held, want none", n)
	}
}

// pathGenerations is id's equivalent complete generations by their
// definition: every path up from id, each known ancestor at its end
// adding (1/2)^g, g its generations back; rounded as answers are.
func pathGenerations(f *analysistest.FakeSource, id string) float64 {
	sum := 0.0
	var up func(id string, g int)
	up = func(id string, g int) {
		a := f.Animals[id]
		if a == nil {
			return
		}
		for _, p := range []string{a.Sire, a.Dam} {
			if p != "" {
				sum += math.Pow(0.5, float64(g+1))
				up(p, g+1)
			}
		}
	}
	up(id, 0)
	return math.Round(sum*10000) / 10000
}

// A parent the pass does not hold (of another breed) has its pedigree
// gathered by lineages as without a pass, and the answer names it; the
// other's pedigree is the breed's.
func TestCheckMatingParentOutsideThePass(t *testing.T) {
	f := analysistest.Kin(5)
	f.Add(&analysistest.FakeAnimal{ID: "641KINXF001", Sex: "Female", Breed: 641, Sire: "640KIN0M000"})
	src := analysistest.HoldPass(f, 640)
	var a passAnswer
	analysistest.MustRunSource(t, CheckMating, src, map[string]any{"sire_lpn_id": "640KIN0M000", "dam_lpn_id": "641KINXF001"}, &a)
	v := a.Computed.Via
	if v == nil || !slices.Equal(v.LineagesFor, []string{"641KINXF001"}) || !strings.Contains(v.Pedigree, "lineages") {
		t.Fatalf("computed.via %+v, want the dam's pedigree named as read by lineages", v)
	}
	if g := v.EquivalentGenerations; g.Sire == nil || *g.Sire != pathGenerations(f, "640KIN0M000") || g.Dam != nil {
		t.Errorf("equivalent generations: sire %v, dam %v; want the sire's alone", analysistest.FmtPtr(g.Sire), analysistest.FmtPtr(g.Dam))
	}
	if f.CallsOf("lineage") == 0 || a.Computed.LineagesRead == 0 {
		t.Errorf("%d lineages asked, %d read: the dam's were not gathered", f.CallsOf("lineage"), a.Computed.LineagesRead)
	}
	// Her sire is the ram himself: the lamb of a sire and his daughter.
	if a.COI == nil || *a.COI != 0.25 {
		t.Errorf("COI %v, want 0.25 (a sire on his daughter)", analysistest.FmtPtr(a.COI))
	}
}

// A pass of an earlier evaluation is not the breed's pedigree now: once
// NSIP gives a new date, the mating reads lineages as without a pass.
func TestCheckMatingPassOfAnEarlierEvaluation(t *testing.T) {
	f := analysistest.Kin(5)
	src := analysistest.HoldPass(f, 640)
	f.Evaluation = "10/23/2025"
	var a passAnswer
	analysistest.MustRunSource(t, CheckMating, src, map[string]any{"sire_lpn_id": "640KIN4M000", "dam_lpn_id": "640KIN4F003"}, &a)
	if a.Computed.Via != nil || f.CallsOf("lineage") == 0 || f.CallsOf("evaluation") != 1 {
		t.Errorf("via %+v, %d lineages, %d date reads; want lineages read after the date showed the pass old", a.Computed.Via, f.CallsOf("lineage"), f.CallsOf("evaluation"))
	}
}
