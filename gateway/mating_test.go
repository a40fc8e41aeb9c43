package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// lpn turns a short pedigree name into a valid LPN ID.
func lpn(name string) string { return "640T" + strings.ToUpper(name) }

func lpnLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		for j, x := range f {
			if x != "-" {
				f[j] = lpn(x)
			}
		}
		out[i] = strings.Join(f, " ")
	}
	return out
}

type matingAnswer struct {
	COI             *float64 `json:"coi"`
	Rating          string   `json:"rating"`
	Basis           string   `json:"basis"`
	CommonAncestors struct {
		Count int `json:"count"`
		Top   []struct {
			LPNID        string   `json:"lpn_id"`
			Paths        [][3]int `json:"paths"`
			AncestorCOI  float64  `json:"ancestor_coi"`
			Contribution float64  `json:"contribution"`
		} `json:"top"`
	} `json:"common_ancestors"`
	Completeness struct {
		Sire []float64 `json:"sire"`
		Dam  []float64 `json:"dam"`
	} `json:"completeness"`
	Midparent map[string]struct {
		EBV     float64  `json:"ebv"`
		SireAcc *float64 `json:"sire_acc"`
		DamAcc  *float64 `json:"dam_acc"`
	} `json:"midparent_ebvs"`
	MidUnknown []string `json:"midparent_unknown"`
	Warnings   []string `json:"warnings"`
	Computed   struct {
		Method       string `json:"method"`
		LineagesRead int    `json:"lineages_read"`
		PedigreeSize int    `json:"pedigree_animals"`
		Upstream     struct {
			Lookups    int    `json:"lookups"`
			CachedNote string `json:"cached_note"`
		} `json:"upstream"`
		GenerationsSo int `json:"generations_sought"`
	} `json:"computed"`
}

func checkMating(t *testing.T, e *env, sire, dam string) matingAnswer {
	t.Helper()
	r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": sire, "dam_lpn_id": dam}).mustOK(t)
	var a matingAnswer
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatalf("answer is not the mating JSON: %v: %s", err, r.text)
	}
	if r.meta["summarized"] != false || r.metaInt(t, "tokens") > 2000 {
		t.Errorf("answer not within the budget unsummarized: %v", r.meta)
	}
	return a
}

// Each expected COI is Wright's sum worked by hand: every pair of paths
// from S and D up to a common ancestor A adds (1/2)^(n1+n2+1) (1+F_A).
// The stand-in's lineages are three generations deep, so the deeper cases
// also prove the pedigree is extended by further lookups.
func TestCheckMatingHandWorked(t *testing.T) {
	cases := []struct {
		name     string
		lines    []string
		want     float64
		ancestor string
		paths    string
		lineages int // getLineage requests: S, D, then leaves within five generations
	}{
		{"half-sibs", []string{"S X -", "D X -"}, 0.125, "X", "[[1 1 1]]", 3},
		{"full-sibs", []string{"S X Y", "D X Y"}, 0.25, "X", "[[1 1 1]]", 4},
		{"sire x his daughter", []string{"D S Y"}, 0.25, "S", "[[0 1 1]]", 3},
		{"first cousins", []string{"A G1 G2", "B G1 G2", "S A M1", "D B M2"}, 0.0625, "G1", "[[2 2 1]]", 6},
		{"half-sibs by a sire from a full-sib mating", []string{"P G1 G2", "Q G1 G2", "X P Q", "S X -", "D X -"}, 0.15625, "X", "[[1 1 1]]", 4},
		{"unrelated", []string{"S A B", "D C E"}, 0, "", "", 6},
		{"a common ancestor five generations behind both", []string{
			"S S1 -", "S1 S2 -", "S2 S3 -", "S3 S4 -", "S4 A -",
			"D - D1", "D1 - D2", "D2 D3 -", "D3 - D4", "D4 A -",
		}, math.Ldexp(1, -11), "A", "[[5 5 1]]", 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHerd()
			h.pedigree(lpnLines(c.lines)...)
			h.get(lpn("S")).sex = "Male"
			e := herdEnv(t, h)
			a := checkMating(t, e, lpn("S"), lpn("D"))
			if a.COI == nil || *a.COI != c.want {
				t.Fatalf("coi = %v, want %v", a.COI, c.want)
			}
			if c.ancestor != "" {
				top := a.CommonAncestors.Top[0]
				if top.LPNID != lpn(c.ancestor) || strings.ReplaceAll(param.JSONText(top.Paths), ",", " ") != c.paths {
					t.Errorf("top ancestor %s paths %v, want %s %s", top.LPNID, top.Paths, lpn(c.ancestor), c.paths)
				}
			} else if a.CommonAncestors.Count != 0 {
				t.Errorf("unrelated parents have common ancestors %+v", a.CommonAncestors)
			}
			if got := h.count("details/getLineage"); got != c.lineages || a.Computed.LineagesRead != c.lineages {
				t.Errorf("lineage requests %d (reported %d), want %d", got, a.Computed.LineagesRead, c.lineages)
			}
			if a.Computed.Upstream.Lookups != c.lineages+2 || a.Computed.Method == "" {
				t.Errorf("computed block %+v does not account for %d lookups", a.Computed, c.lineages+2)
			}
		})
	}
}

func TestCheckMatingCOIUnknownNotZero(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"D X Y"})...)
	h.get(lpn("S")).sex = "Male"
	e := herdEnv(t, h)
	a := checkMating(t, e, lpn("S"), lpn("D"))
	if a.COI != nil || a.Rating != "unknown" || a.Basis != "unknown" {
		t.Errorf("a sire without recorded parents: coi %v rating %q basis %q, want null, unknown", a.COI, a.Rating, a.Basis)
	}
	if a.Completeness.Sire[0] != 0 || a.Completeness.Dam[0] != 1 {
		t.Errorf("completeness %+v, want sire 0 and dam 1 in the first generation", a.Completeness)
	}
}

func TestCheckMatingWarnsAndAverages(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"S X -", "D X -"})...)
	h.get(lpn("S")).ebv = map[string][2]float64{"BWT": {0.5, 0.8}, "WWT": {2, 0.7}}
	h.get(lpn("D")).ebv = map[string][2]float64{"BWT": {-0.1, 0.6}}
	e := herdEnv(t, h)
	// Both are recorded female: S is nobody's sire in this herd.
	a := checkMating(t, e, lpn("S"), lpn("D"))
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "not male") {
		t.Errorf("warnings %q, want one saying the sire is not male", a.Warnings)
	}
	m := a.Midparent["BWT"]
	// (0.5 + -0.1) / 2 = 0.2; accuracies reported in percent.
	if m.EBV != 0.2 || m.SireAcc == nil || *m.SireAcc != 80 || *m.DamAcc != 60 {
		t.Errorf("BWT midparent %+v, want 0.2 with accuracies 80 and 60", m)
	}
	if param.JSONText(a.MidUnknown) != `["WWT"]` {
		t.Errorf("midparent unknown %v, want WWT (only the sire has it)", a.MidUnknown)
	}
	if *a.COI != 0.125 || a.Rating != "very high" {
		t.Errorf("coi %v rated %q, want 0.125 very high", *a.COI, a.Rating)
	}
}

func TestCheckMatingErrorsNameTheField(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{"S X -"})...)
	e := herdEnv(t, h)
	te := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": lpn("S"), "dam_lpn_id": lpn("NOBODY")}).errorBody(t)
	if te.Code != toolerr.CodeNotFound || te.Field != "dam_lpn_id" || te.Value != lpn("NOBODY") {
		t.Errorf("unknown dam: %+v", te)
	}
	te = e.call("nsip_check_mating", map[string]any{"sire_lpn_id": lpn("S"), "dam_lpn": lpn("X")}).errorBody(t)
	if te.Code != toolerr.CodeInvalidArgument || te.Field != "dam_lpn_id" || len(te.Also) != 1 || !strings.Contains(te.Also[0].Problem, `"dam_lpn_id"`) {
		t.Errorf("misspelt dam: %+v", te)
	}
	te = e.call("nsip_check_mating", map[string]any{"sire_lpn_id": lpn("S"), "dam_lpn_id": strings.ToLower(lpn("S"))}).errorBody(t)
	if te.Field != "dam_lpn_id" || !strings.Contains(te.Problem, "same animal") {
		t.Errorf("self-mating: %+v", te)
	}
}

// On the stand-in's generated breed the answer is bracketed by two COIs
// built straight from the stand-in's dataset (not through NSIP's lineage
// answers): at least the one over the six generations the check seeks,
// and at most the one over every recorded ancestor, which it equals when
// it does not call itself a lower bound. NSIP's lineages are four
// generations deep, so the check reads the ancestors at their edge again
// and may see further than six. It stays within the budget unsummarized.
func TestCheckMatingOnTheStandInsPedigrees(t *testing.T) {
	e := newEnv(t)
	d := e.up.Data()
	rams, ewes := deepKatahdins(t, d, 3, 3, 3)
	for i := range rams {
		ram, ewe := rams[i], ewes[i]
		sought := datasetCOI(t, d, ram, ewe, pedigree.MatingGenerations)
		all := datasetCOI(t, d, ram, ewe, 1<<10)
		r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": ram, "dam_lpn_id": ewe}).mustOK(t)
		var a matingAnswer
		if err := json.Unmarshal([]byte(r.text), &a); err != nil {
			t.Fatalf("%v: %.300s", err, r.text)
		}
		lower := strings.HasPrefix(a.Basis, "lower bound")
		if a.COI == nil || *a.COI < sought-1e-12 || *a.COI > all+1e-12 || (!lower && math.Abs(*a.COI-all) > 1e-12) {
			t.Errorf("%s x %s: coi %v (%s); over six generations %v, over every ancestor %v", ram, ewe, fmtCOI(a.COI), a.Basis, sought, all)
		}
		if r.meta["summarized"] != false {
			t.Errorf("%s x %s: summarized at %v tokens", ram, ewe, r.meta["original_tokens"])
		}
		t.Logf("%s x %s: coi %v (%s), six generations %.6f, all %.6f, %d common ancestors, %v tokens", ram, ewe, fmtCOI(a.COI), a.Basis, sought, all, a.CommonAncestors.Count, r.meta["tokens"])
	}
}

// datasetCOI is the COI of a lamb of sire and dam over the ancestors the
// stand-in's dataset records within gens generations of either parent.
func datasetCOI(t *testing.T, d *nsiptest.Dataset, sire, dam string, gens int) float64 {
	t.Helper()
	ped := breeding.NewPedigree()
	level, seen := []string{sire, dam}, map[string]bool{}
	for gen := 0; gen < gens && len(level) > 0; gen++ {
		var next []string
		for _, id := range level {
			if seen[id] {
				continue
			}
			seen[id] = true
			a, _ := d.Animal(id)
			if err := ped.Add(id, a.Sire, a.Dam); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{a.Sire, a.Dam} {
				if p != "" {
					next = append(next, p)
				}
			}
		}
		level = next
	}
	coi, err := ped.MatingCOI(context.Background(), sire, dam)
	if err != nil {
		t.Fatal(err)
	}
	return coi
}

func fmtCOI(c *float64) string {
	if c == nil {
		return "null"
	}
	return fmt.Sprintf("%.6f", *c)
}

// Half-sibs by a sire with a complete eight-generation pedigree of distinct
// animals: 512 upward paths from each parent, over the itemising limit, so
// the COI comes from the tabular method; the value is still the half-sib
// 0.125 (the sire is not inbred).
func TestCheckMatingTooManyPathsFallsBackToTabular(t *testing.T) {
	h := newHerd()
	h.depth = 10
	var lines []string
	var grow func(id string, gen int)
	grow = func(id string, gen int) {
		if gen == 8 {
			return
		}
		lines = append(lines, id+" "+id+"S "+id+"D")
		grow(id+"S", gen+1)
		grow(id+"D", gen+1)
	}
	grow("X", 0)
	lines = append(lines, "S X -", "D X -")
	h.pedigree(lpnLines(lines)...)
	e := herdEnv(t, h)
	r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": lpn("S"), "dam_lpn_id": lpn("D")}).mustOK(t)
	var a struct {
		COI             float64        `json:"coi"`
		CommonAncestors map[string]any `json:"common_ancestors"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatal(err)
	}
	if a.COI != 0.125 || a.CommonAncestors["not_itemised"] == nil {
		t.Errorf("coi %v, common ancestors %v; want 0.125, not itemised", a.COI, a.CommonAncestors)
	}
}

// An ancestor's lineage NSIP fails to serve leaves its branch unextended:
// the common ancestor five generations back is then out of sight, and the
// answer says the COI may be understated instead of failing or claiming 0
// is the whole truth.
func TestCheckMatingAncestorLineageFailureIsNoted(t *testing.T) {
	h := newHerd()
	h.pedigree(lpnLines([]string{
		"S S1 -", "S1 S2 -", "S2 S3 -", "S3 S4 -", "S4 A -",
		"D D1 -", "D1 D2 -", "D2 D3 -", "D3 D4 -", "D4 A -",
	})...)
	h.broken = map[string]int{lpn("S3"): 503}
	e := herdEnv(t, h)
	r := e.call("nsip_check_mating", map[string]any{"sire_lpn_id": lpn("S"), "dam_lpn_id": lpn("D")}).mustOK(t)
	var a struct {
		COI   *float64 `json:"coi"`
		Basis string   `json:"basis"`
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(r.text), &a); err != nil {
		t.Fatal(err)
	}
	if a.COI == nil || *a.COI != 0 || !strings.HasPrefix(a.Basis, "lower bound") {
		t.Errorf("coi %v basis %q, want 0 as a lower bound", a.COI, a.Basis)
	}
	if len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "640TS3 could not be read (upstream_error)") {
		t.Errorf("notes %q", a.Notes)
	}
}
