package plan

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// planPass is what a plan answered from a held pass shows.
type planPass struct {
	analysistest.PlanAnswer
	Computed struct {
		LineagesRead int `json:"lineages_read"`
		Method       string
		Via          *struct {
			Animals               int      `json:"animals"`
			Evaluation            string   `json:"evaluation"`
			LineagesFor           []string `json:"lineages_for"`
			EquivalentGenerations struct {
				Mean, Fewest *float64
				FewestLPNID  string `json:"fewest_lpn_id"`
			} `json:"equivalent_generations"`
		} `json:"via"`
	} `json:"computed"`
}

// planOf is rams x ewes of a breed of gens generations: the rams and
// ewes of its last two, as sorted.
func planOf(seed uint64, gens, perGen, rams, ewes int) (*analysistest.FakeSource, []string, []string) {
	f := analysistest.KinBreed(seed, gens, perGen, perGen)
	var rs, es []string
	young := []string{fmt.Sprintf("640KIN%d", gens-1), fmt.Sprintf("640KIN%d", gens-2)}
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		if !slices.ContainsFunc(young, func(p string) bool { return strings.HasPrefix(id, p) }) {
			continue
		}
		if f.Animals[id].Sex == "Male" && len(rs) < rams {
			rs = append(rs, id)
		} else if f.Animals[id].Sex == "Female" && len(es) < ewes {
			es = append(es, id)
		}
	}
	return f, rs, es
}

// With the breed's pass held, every pair's COI is its coancestry over the
// breed's whole pedigree: equal to the tabular method over the same rows,
// no lineage read, none unresolved, and the answer says where they came
// from. One ram at a time with a cap of 1 mates every ewe, so that every
// pair's COI is shown; then all rams at once, with a cap some pairs
// exceed, leave unmated only ewes over it with every ram.
func TestPlanFromHeldPass(t *testing.T) {
	f, rams, ewes := planOf(8, 6, 60, 5, 30)
	src := analysistest.HoldPass(f, 640)
	want := analysistest.TabularCOI(f, 640)
	checked, related := 0, 0
	var a planPass
	for _, ram := range rams {
		analysistest.MustRunSource(t, PlanMatings, src, map[string]any{"ram_lpn_ids": []any{ram}, "ewe_lpn_ids": analysistest.ToAny(ewes),
			"weights": map[string]any{"WWT": 1.0}, "max_coi": 1.0, "max_ewes_per_ram": 100}, &a)
		if a.Mated != len(ewes) || a.Unresolved.Pairs != 0 || a.UnknownN != 0 {
			t.Fatalf("%s: %d mated of %d, %d unresolved pairs, %d of unknown COI", ram, a.Mated, len(ewes), a.Unresolved.Pairs, a.UnknownN)
		}
		for _, row := range a.ByRam[ram] {
			c, ok := row[1].(float64)
			w := want(ram, row[0].(string))
			if !ok || math.Abs(c-w) > 1e-12 {
				t.Fatalf("%s x %s: COI %v, tabular %v", ram, row[0], row[1], w)
			}
			checked++
			if w > 0 {
				related++
			}
		}
	}
	if checked != len(rams)*len(ewes) || related < 10 {
		t.Errorf("%d pairs checked, %d related: the test proves little", checked, related)
	}
	analysistest.MustRunSource(t, PlanMatings, src, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(ewes),
		"weights": map[string]any{"WWT": 1.0}, "max_coi": 0.05, "max_ewes_per_ram": 10}, &a)
	for _, es := range a.Unassigned {
		for _, e := range es {
			for _, r := range rams {
				if w := want(r, e); w <= 0.05 {
					t.Errorf("%s unmated though %s's lamb with her has COI %v", e, r, w)
				}
			}
		}
	}
	if n := f.CallsOf("lineage"); n != 0 || a.Computed.LineagesRead != 0 {
		t.Errorf("%d lineages asked, %d read, with the pass held; want none", n, a.Computed.LineagesRead)
	}
	v := a.Computed.Via
	if v == nil || v.Evaluation != f.Evaluation || v.Animals != len(f.Animals) || len(v.LineagesFor) != 0 || v.EquivalentGenerations.Mean == nil || v.EquivalentGenerations.FewestLPNID == "" {
		t.Fatalf("computed.via %+v, want the pass of all %d animals", v, len(f.Animals))
	}
	if !strings.Contains(a.Computed.Method, "whole pedigree") {
		t.Errorf("method %q does not say the COIs are the breed's", a.Computed.Method)
	}
}

// A ewe the pass lacks (of another breed) has her lineage read; her pairs
// are computed over it and the rams' whole pedigrees, and she is named.
func TestPlanEweOutsideThePass(t *testing.T) {
	f, rams, ewes := planOf(8, 5, 40, 3, 6)
	// A daughter of the first ram, of another breed.
	f.Add(&analysistest.FakeAnimal{ID: "641KINXF001", Sex: "Female", Breed: 641, Sire: rams[0], EBV: map[string]float64{"WWT": 1}})
	src := analysistest.HoldPass(f, 640)
	var a planPass
	analysistest.MustRunSource(t, PlanMatings, src, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(append(ewes, "641KINXF001")),
		"weights": map[string]any{"WWT": 1.0}, "max_coi": 0.2}, &a)
	if v := a.Computed.Via; v == nil || !slices.Equal(v.LineagesFor, []string{"641KINXF001"}) {
		t.Fatalf("computed.via %+v, want the other breed's ewe named", v)
	}
	if f.CallsOf("lineage") == 0 {
		t.Error("her lineage was not read")
	}
	if ram := a.RamOf()["641KINXF001"]; ram == rams[0] {
		t.Errorf("the ewe was mated to her own sire (COI 0.25 over max_coi 0.2)")
	}
}

// sameStore hands back the one pass it keeps, as the gateway's store does
// after its first read: the pedigree built with it is built once.
type sameStore struct {
	*analysistest.MemPasses
	p *breedpass.BreedPass
}

func (s sameStore) Load(context.Context, int, string) *breedpass.BreedPass { return s.p }

type sameSource struct {
	*analysistest.FakeSource
	store sameStore
}

func (s sameSource) Passes() analysis.Passes { return s.store }

// A plan of 10 rams and 100 ewes from a held pass of a breed of 2,430
// animals over 9 generations: all 1,000 pairs' COIs from the breed's
// pedigree, built once with the pass, and no lineage read; beside it the
// same plan gathering lineages from the fake, which answers at once.
func BenchmarkPlanFromHeldPass(b *testing.B) {
	f, rams, ewes := planOf(9, 9, 270, 10, 100)
	held := analysistest.HoldPass(f, 640)
	p := held.Load(context.Background(), 640, f.Evaluation)
	sent := map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(ewes), "weights": map[string]any{"WWT": 1.0}, "max_ewes_per_ram": 20}
	args := analysistest.Valid(b, PlanMatings, sent)
	if len(rams) != 10 || len(ewes) != 100 {
		b.Fatalf("%d rams, %d ewes", len(rams), len(ewes))
	}
	for _, c := range []struct {
		name string
		src  analysis.Source
	}{
		{"held pass", sameSource{FakeSource: f, store: sameStore{MemPasses: held.MemPasses, p: p}}},
		{"lineages", f},
	} {
		b.Run(c.name, func(b *testing.B) {
			before := f.CallsOf("lineage")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := analysis.Run(context.Background(), PlanMatings, c.src, analysistest.Discard(), param.SentOf(sent), args); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(f.CallsOf("lineage")-before)/float64(b.N), "lineages/op")
		})
	}
}

// The COI matrix from a held pass: every cell is the tabular coancestry
// of its pair, exact (a number, no ">=" bound), no lineage is read, and
// the answer says it came from the breed's pedigree.
func TestMatrixFromHeldPass(t *testing.T) {
	f, rams, ewes := planOf(8, 6, 60, 3, 5)
	src := analysistest.HoldPass(f, 640)
	want := analysistest.TabularCOI(f, 640)
	var a struct {
		COI      map[string][]any `json:"coi"`
		Ewes     []string         `json:"ewes"`
		Computed struct {
			LineagesRead int    `json:"lineages_read"`
			Method       string `json:"method"`
			Via          *struct {
				Animals int `json:"animals"`
			} `json:"via"`
		} `json:"computed"`
	}
	analysistest.MustRunSource(t, PlanMatings, src, map[string]any{"ram_lpn_ids": analysistest.ToAny(rams), "ewe_lpn_ids": analysistest.ToAny(ewes), "coi_only": true}, &a)
	if a.Computed.LineagesRead != 0 || a.Computed.Via == nil || a.Computed.Via.Animals == 0 || !strings.Contains(a.Computed.Method, "whole pedigree") {
		t.Fatalf("computed %+v: want no lineage read and the breed's pedigree named", a.Computed)
	}
	if n := f.CallsOf("lineage"); n != 0 {
		t.Errorf("%d lineage reads with the pass held, want 0", n)
	}
	for _, ram := range rams {
		for ei, ewe := range a.Ewes {
			c, ok := a.COI[ram][ei].(float64)
			if w := want(ram, ewe); !ok || math.Abs(c-w) > 1e-12 {
				t.Errorf("%s x %s: cell %v, tabular %v", ram, ewe, a.COI[ram][ei], w)
			}
		}
	}
}
