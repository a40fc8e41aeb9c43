package rank

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/analysistest"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/mating"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// checkedMean is a ram's lambs' mean COI with ewes, each pair asked of
// nsip_check_mating itself on a fresh copy of the same records: nil when
// no pair's COI is known, and the pairs known.
func checkedMean(t *testing.T, f *analysistest.FakeSource, ram string, ewes []string) (*float64, int) {
	t.Helper()
	sum, known := 0.0, 0
	for _, e := range ewes {
		g := analysistest.NewFake()
		for _, a := range f.Animals {
			g.Add(a)
		}
		var m analysistest.MatingAnswer
		analysistest.MustRun(t, mating.CheckMating, g, map[string]any{"sire_lpn_id": ram, "dam_lpn_id": e}, &m)
		if m.COI != nil {
			sum += *m.COI
			known++
		}
	}
	if known == 0 {
		return nil, 0
	}
	v := sum / float64(known)
	return &v, known
}

type ewesAnswer struct {
	Columns []string `json:"columns"`
	Top     [][]any  `json:"top"`
	ForEwes struct {
		Exact       bool `json:"exact"`
		RamsChecked int  `json:"rams_checked"`
		OverMax     struct {
			Count  int      `json:"count"`
			LPNIDs []string `json:"lpn_ids"`
		} `json:"over_max"`
		Unresolved struct {
			Count  int      `json:"count"`
			LPNIDs []string `json:"lpn_ids"`
		} `json:"unresolved"`
		Short      string `json:"short"`
		COIUnknown struct {
			Count int `json:"count"`
		} `json:"coi_unknown"`
		NotChecked *struct {
			Count int `json:"count"`
		} `json:"not_checked"`
	} `json:"for_ewes"`
	Computed struct {
		Exact bool `json:"exact"`
	} `json:"computed"`
}

// The rams shown are the best by index whose lambs' mean COI with the ewes,
// each pair as nsip_check_mating computes it, is within max_mean_coi: brute
// force over every ram of the breed, by weights and by NSIP's index.
func TestRankForEwesMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		seed    uint64
		by      map[string]any
		topN    int
		maxMean float64
	}{
		{1, map[string]any{"weights": map[string]any{"WWT": 1.0, "BWT": -0.5}}, 5, 0.03},
		{2, map[string]any{"index": "US Hair Index"}, 4, 0.02},
		{3, map[string]any{"weights": map[string]any{"WWT": 1.0}}, 6, 0.0},
	} {
		t.Run(fmt.Sprint("seed", c.seed), func(t *testing.T) {
			f := analysistest.Kin(c.seed)
			ewes := analysistest.YoungEwes(f, 5)
			sent := map[string]any{"breed_id": 640, "top_n": c.topN, "for_ewes": analysistest.AnyList(ewes), "max_mean_coi": c.maxMean}
			for k, v := range c.by {
				sent[k] = v
			}
			var a ewesAnswer
			analysistest.MustRun(t, Rank, f, sent, &a)

			// Brute force: every ram by index, best first, then the first
			// top_n whose mean is within the cap.
			var all []analysistest.Scored
			w := breeding.Weights{}
			if ws, ok := c.by["weights"].(map[string]any); ok {
				for k, v := range ws {
					w[k] = v.(float64)
				}
			}
			for _, an := range f.Animals {
				if an.Sex != "Male" {
					continue
				}
				v, ok := an.Index["US Hair Index"]
				if len(w) > 0 {
					v, _, ok = w.Index(an.EBV)
				}
				if ok {
					all = append(all, analysistest.Scored{ID: an.ID, Value: v})
				}
			}
			analysistest.BestFirst(all)
			var want []string
			var means []float64
			over, unknown := 0, 0
			// The ranking reads the best K by index exactly, and no further.
			k := (&eweSet{max: new(float64)}).candidates(c.topN)
			for _, rm := range all[:min(k, len(all))] {
				if len(want) == c.topN {
					break
				}
				m, _ := checkedMean(t, f, rm.ID, ewes)
				if m == nil {
					unknown++
					continue
				}
				if *m > c.maxMean+1e-12 {
					over++
					continue
				}
				want, means = append(want, rm.ID), append(means, *m)
			}
			// Proven the best passing rams when top_n passed among the K;
			// otherwise the answer says the rest were not read.
			if !a.Computed.Exact || a.ForEwes.Exact != (len(want) == c.topN || len(all) <= k) || !a.ForEwes.Exact && !strings.Contains(a.ForEwes.Short, "were not read") {
				t.Fatalf("ranking exact %v, for ewes exact %v with %d of %d passing: %+v", a.Computed.Exact, a.ForEwes.Exact, len(want), c.topN, a.ForEwes)
			}
			if !slices.Equal(a.Columns[:5], []string{"rank", "lpn_id", "index", "mean_coi", "ewes_known"}) {
				t.Errorf("columns %v", a.Columns)
			}
			var got []string
			for i, row := range a.Top {
				got = append(got, row[1].(string))
				if i < len(means) && (row[0] != float64(i+1) || math.Abs(row[3].(float64)-means[i]) > 1e-6) {
					t.Errorf("row %d = %v, want mean COI %v", i+1, row[:5], means[i])
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("rams %v, want %v", got, want)
			}
			if a.ForEwes.OverMax.Count != over || a.ForEwes.COIUnknown.Count != unknown {
				t.Errorf("%d left out over the cap and %d of unknown COI, want %d and %d", a.ForEwes.OverMax.Count, a.ForEwes.COIUnknown.Count, over, unknown)
			}
			if over == 0 {
				t.Errorf("no ram was over the cap: the case tests nothing")
			}
		})
	}
}

// A lineage that fails behind a ewe leaves every ram's mean unproven: they
// are named as unresolved and left out, never counted as COI 0.
func TestRankForEwesUnresolvedNeverZero(t *testing.T) {
	f := analysistest.Kin(4)
	f.LineageGens = 2 // each lineage shows the parents only
	ewe := analysistest.YoungEwes(f, 1)[0]
	// Her dam's lineage fails: her grandparents on that side are unread.
	f.Fail = map[string]error{f.Animals[ewe].Dam: errors.New("NSIP busy")}
	var a ewesAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "top_n": 3, "weights": map[string]any{"WWT": 1.0}, "for_ewes": []any{ewe}, "max_mean_coi": 0.5}, &a)
	if len(a.Top) != 0 || a.ForEwes.Unresolved.Count == 0 || a.ForEwes.Exact {
		t.Errorf("top %v unresolved %+v exact %v: want every ram unresolved and none shown", a.Top, a.ForEwes.Unresolved, a.ForEwes.Exact)
	}
	// Without a cap the rams are shown, their mean COI null.
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "top_n": 3, "weights": map[string]any{"WWT": 1.0}, "for_ewes": []any{ewe}}, &a)
	if len(a.Top) != 3 || a.Top[0][3] != nil || a.Top[0][4] != "0/1" {
		t.Errorf("without a cap: %v, want three rams with mean_coi null and 0/1 ewes known", a.Top)
	}
}

func TestRankForEwesArguments(t *testing.T) {
	f := analysistest.Kin(5)
	_, err := analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "max_mean_coi": 0.1})
	var ae *analysis.ArgError
	if !errors.As(err, &ae) || ae.Field != "max_mean_coi" {
		t.Errorf("max_mean_coi alone: %v", err)
	}
	ewe := analysistest.YoungEwes(f, 1)[0]
	// A limit out of range is refused naming it, and the example of a
	// correct call takes the usual limit instead of the refused one.
	_, err = analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "for_ewes": []any{ewe}, "max_mean_coi": 6.25})
	var fe *analysis.FixedArgError
	if !errors.As(err, &fe) || fe.Field != "max_mean_coi" || !strings.Contains(fe.Problem, "fraction") {
		t.Fatalf("max_mean_coi as a percent: %v", err)
	}
	ex := param.Example(Rank.Args.Specs, param.SentOf(map[string]any{"breed_id": 640, "max_mean_coi": 6.25}))
	ex.Apply(fe.Fix...)
	if got, _ := ex.Value("max_mean_coi"); got != 0.0625 {
		t.Errorf("the example's max_mean_coi is %v, want 0.0625", got)
	}
	_, err = analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "for_ewes": []any{ewe},
		"search_criteria": map[string]any{"gender": "Female"}})
	if !errors.As(err, &ae) || ae.Field != "search_criteria.gender" {
		t.Errorf("ewes as candidates: %v", err)
	}
	_, err = analysistest.Run(t, Rank, f, map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1.0}, "for_ewes": []any{ewe, "NOBODY99"}})
	var ab *analysis.AboutError
	if !errors.As(err, &ab) || ab.Field != "for_ewes[1]" {
		t.Errorf("unknown ewe: %v", err)
	}
	if n := f.CallsOf("search"); n != 0 {
		t.Errorf("%d searches before the ewes were known", n)
	}
}

// The fake's own ceiling at the tool's: the ranking and the pedigrees
// together never pass it.
func TestRankForEwesWithinCeiling(t *testing.T) {
	f := analysistest.Kin(6)
	f.Ceiling = Rank.Ceiling
	f.LineageGens = 2 // more lineages to read
	var a ewesAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "top_n": 50, "weights": map[string]any{"WWT": 1.0}, "for_ewes": analysistest.AnyList(analysistest.YoungEwes(f, 20)), "max_mean_coi": 0.01}, &a)
	if f.Refused != 0 || f.Lookups > Rank.Ceiling {
		t.Errorf("%d lookups, %d refused; ceiling %d", f.Lookups, f.Refused, Rank.Ceiling)
	}
}

// Rams behind pedigrees far larger than the lookups allow: the ranking
// stops reading at its bound, names the rams it could not settle, and is
// not called exact.
func TestRankForEwesLookupsRunOut(t *testing.T) {
	f := analysistest.NewFake()
	f.LineageGens = 2
	analysistest.DeepHerd(f, 9, "XEWE00001")
	f.Animals["XEWE00001"].Sex = "Female"
	for i := range 12 {
		analysistest.DeepHerd(f, 9, fmt.Sprintf("RAM%06d", i))
		f.Animals[fmt.Sprintf("RAM%06d", i)].EBV["WWT"] = 100 + float64(i)
	}
	f.Ceiling = Rank.Ceiling
	var a ewesAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "top_n": 10, "weights": map[string]any{"WWT": 1.0}, "for_ewes": []any{"XEWE00001"}, "max_mean_coi": 0.5}, &a)
	if f.Refused != 0 || f.Lookups > Rank.Ceiling || f.CallsOf("lineage") > ewesLookups {
		t.Errorf("%d lookups (%d lineages), %d refused; ceiling %d", f.Lookups, f.CallsOf("lineage"), f.Refused, Rank.Ceiling)
	}
	if a.ForEwes.Exact || a.ForEwes.Unresolved.Count+notChecked(a) == 0 {
		t.Errorf("for ewes %+v: want the rams left unsettled named and exact false", a.ForEwes)
	}
	for _, row := range a.Top {
		if row[3] == nil {
			t.Errorf("row %v shown under max_mean_coi without a proven mean", row)
		}
	}
}

func notChecked(a ewesAnswer) int {
	if a.ForEwes.NotChecked == nil {
		return 0
	}
	return a.ForEwes.NotChecked.Count
}

// A ram sent among the ewes is no mate of himself: his pair is unsettled,
// so he is named, not ranked on the COI of a lamb by himself.
func TestRankForEwesRamAmongEwes(t *testing.T) {
	f := analysistest.Kin(7)
	best, top := "", math.Inf(-1)
	for _, a := range f.Animals {
		if a.Sex == "Male" && a.Sire != "" && a.EBV["WWT"] > top {
			best, top = a.ID, a.EBV["WWT"]
		}
	}
	var a ewesAnswer
	analysistest.MustRun(t, Rank, f, map[string]any{"breed_id": 640, "top_n": 3, "weights": map[string]any{"WWT": 1.0},
		"for_ewes": []any{analysistest.YoungEwes(f, 1)[0], best}, "max_mean_coi": 0.5}, &a)
	for _, row := range a.Top {
		if row[1] == best {
			t.Errorf("%s ranked with mean COI %v over a pair with himself", best, row[3])
		}
	}
	if !slices.ContainsFunc(a.ForEwes.Unresolved.LPNIDs, func(s string) bool { return strings.HasPrefix(s, best) }) {
		t.Errorf("unresolved %v, want %s named", a.ForEwes.Unresolved.LPNIDs, best)
	}
}
