package analysis

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// population is n animals of breed 640 and a tenth as many of 641, each
// EBV present 19 times in 20 and given to two decimals, so that ties on
// the sort trait are common, as in NSIP's data.
func population(seed uint64, n int) *fakeSource {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := newFake()
	means := map[string][2]float64{"BWT": {0.3, 0.4}, "WWT": {2, 2.5}, "YWT": {3, 4}, "FAT": {0, 0.3}}
	for i := range n + n/10 {
		a := &fakeAnimal{ID: fmt.Sprintf("640%04dPOP%05d", seed, i), Sex: []string{"Male", "Female"}[rng.IntN(2)], EBV: map[string]float64{}}
		if i >= n {
			a.Breed = 641
		}
		for _, c := range slices.Sorted(maps.Keys(means)) { // in one order, so that a seed is one population
			m := means[c]
			if rng.IntN(20) > 0 {
				a.EBV[c] = math.Round((m[0]+m[1]*rng.NormFloat64())*100) / 100
			}
		}
		f.add(a)
	}
	return f
}

// bruteTop is the top n of breed by the index over every animal the fake
// holds (of sex, when given): each one scored, all sorted, ties by LPN ID
// as the answer breaks them. The index itself is breeding.Weights.Index,
// so that scores equal to the last bit sort alike in both.
func bruteTop(f *fakeSource, breed int, sex string, w breeding.Weights, n int) []breeding.Scored {
	var all []breeding.Scored
	for _, a := range f.animals {
		if a.Breed != breed || (sex != "" && a.Sex != sex) {
			continue
		}
		if v, _, ok := w.Index(a.EBV); ok {
			all = append(all, breeding.Scored{ID: a.ID, Score: v})
		}
	}
	slices.SortFunc(all, func(x, y breeding.Scored) int {
		if c := cmp.Compare(y.Score, x.Score); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return all[:min(n, len(all))]
}

// indexed is population(seed, n) with NSIP's own indexes: US Hair Index on
// all but one animal in 25, SRC$ Index on half, to two decimals so that
// ties occur, and every third animal 50K genotyped.
func indexed(seed uint64, n int) *fakeSource {
	f := population(seed, n)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, id := range slices.Sorted(maps.Keys(f.animals)) {
		a := f.animals[id]
		a.Index = map[string]float64{}
		if rng.IntN(25) > 0 {
			a.Index["US Hair Index"] = math.Round((100+8*rng.NormFloat64())*10) / 10
		}
		if rng.IntN(2) == 0 {
			a.Index["SRC$ Index"] = math.Round((100+5*rng.NormFloat64())*100) / 100
		}
		if rng.IntN(3) == 0 {
			a.Genotyped = "50K Genotyped"
		}
	}
	return f
}

// bruteIndexTop is the top n of breed (of sex, when given) by NSIP's index
// name over every animal the fake holds, ties by LPN ID.
func bruteIndexTop(f *fakeSource, breed int, sex, name string, n int) []string {
	var all []scored
	for _, a := range f.animals {
		if v, ok := a.Index[name]; ok && a.Breed == breed && (sex == "" || a.Sex == sex) {
			all = append(all, scored{a.ID, v})
		}
	}
	var out []string
	for _, x := range bestFirst(all)[:min(n, len(all))] {
		out = append(out, x.id)
	}
	return out
}

// kin is a closed breed of five generations: ten founder rams and twenty
// founder ewes, then forty lambs a year by rams and ewes of earlier years,
// so that rams share ancestors with the ewes they might serve.
func kin(seed uint64) *fakeSource {
	rng := rand.New(rand.NewPCG(seed, 3))
	f := newFake()
	var rams, ewes []string
	for g := range 5 {
		var newRams, newEwes []string
		n := 40
		if g == 0 {
			n = 30
		}
		for i := range n {
			sex := []string{"Male", "Female"}[rng.IntN(2)]
			if g == 0 {
				sex = []string{"Male", "Female", "Female"}[i%3]
			}
			a := &fakeAnimal{ID: fmt.Sprintf("640KIN%d%s%03d", g, sex[:1], i), Sex: sex,
				EBV:   map[string]float64{"WWT": math.Round(rng.NormFloat64()*300) / 100, "BWT": math.Round(rng.NormFloat64()*30) / 100},
				Index: map[string]float64{"US Hair Index": math.Round((100+rng.NormFloat64()*10)*100) / 100}}
			if g > 0 {
				a.Sire, a.Dam = rams[rng.IntN(len(rams))], ewes[rng.IntN(len(ewes))]
			}
			f.add(a)
			if sex == "Male" {
				newRams = append(newRams, a.ID)
			} else {
				newEwes = append(newEwes, a.ID)
			}
		}
		rams, ewes = append(rams, newRams...), append(ewes, newEwes...)
	}
	return f
}

// youngEwes are the first n ewes of the youngest year, as arguments.
func youngEwes(f *fakeSource, n int) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(f.animals)) {
		if strings.HasPrefix(id, "640KIN4F") && len(out) < n {
			out = append(out, id)
		}
	}
	return out
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// herd builds a fake from lines "ID SIRE DAM SEX", "-" for an unknown
// parent; animals named only as parents get records without parents.
func herd(lines ...string) *fakeSource {
	f := newFake()
	for _, l := range lines {
		p := strings.Fields(l)
		a := &fakeAnimal{ID: p[0], Sex: p[3], Status: "CURRENT"}
		if p[1] != "-" {
			a.Sire = p[1]
		}
		if p[2] != "-" {
			a.Dam = p[2]
		}
		f.add(a)
	}
	for _, a := range f.animals {
		for i, par := range []string{a.Sire, a.Dam} {
			if par != "" && f.animals[par] == nil {
				f.add(&fakeAnimal{ID: par, Sex: []string{"Male", "Female"}[i], Status: "CURRENT"})
			}
		}
	}
	return f
}

// Each pedigree's COI worked by Wright's rule, F = sum over common
// ancestors A and path pairs of (1/2)^(n1+n2+1) (1+F_A).
var matingCases = []struct {
	name      string
	herd      []string
	coi       float64
	rating    string
	ancestors []string // common ancestors, largest contribution first
}{
	// No animal in common: nothing to sum.
	{"unrelated", []string{"SIRE1 GSIR1 GDAM1 Male", "DAM01 GSIR2 GDAM2 Female"}, 0, "low", nil},
	// Shared sire X: one path pair, n1 = n2 = 1: (1/2)^3 = 1/8.
	{"half sibs", []string{"SIRE1 XXXXX GDAM1 Male", "DAM01 XXXXX GDAM2 Female"}, 1.0 / 8, "very high", []string{"XXXXX"}},
	// Shared sire X and dam Y: 1/8 each, 1/4 in all.
	{"full sibs", []string{"SIRE1 XXXXX YYYYY Male", "DAM01 XXXXX YYYYY Female"}, 1.0 / 4, "very high", []string{"XXXXX", "YYYYY"}},
	// Their fathers are full sibs: grandparents X and Y, n1 = n2 = 2 each:
	// 2 x (1/2)^5 = 1/16, the first-cousin mating the rating starts
	// "high" at.
	{"first cousins", []string{"SIRE1 PAPA1 GDAM1 Male", "DAM01 PAPA2 GDAM2 Female", "PAPA1 XXXXX YYYYY Male", "PAPA2 XXXXX YYYYY Male"},
		1.0 / 16, "high", []string{"XXXXX", "YYYYY"}},
	// Their fathers are half sibs through X only: (1/2)^5 = 1/32, where
	// "moderate" starts.
	{"half first cousins", []string{"SIRE1 PAPA1 GDAM1 Male", "DAM01 PAPA2 GDAM2 Female", "PAPA1 XXXXX MUM01 Male", "PAPA2 XXXXX MUM02 Male"},
		1.0 / 32, "moderate", []string{"XXXXX"}},
	// The sire is the dam's father: A is the sire, n1 = 0, n2 = 1:
	// (1/2)^2 = 1/4.
	{"parent x offspring", []string{"SIRE1 GSIR1 GDAM1 Male", "DAM01 SIRE1 GDAM2 Female"}, 1.0 / 4, "very high", []string{"SIRE1"}},
	// Half sibs through X, whose parents P and Q are full sibs, so F_X =
	// 1/4: (1/2)^3 (1 + 1/4) = 5/32. Paths through X's own ancestors pass
	// through X on both sides and do not count.
	{"half sibs by an inbred sire", []string{"SIRE1 XXXXX GDAM1 Male", "DAM01 XXXXX GDAM2 Female", "XXXXX PPPPP QQQQQ Male",
		"PPPPP GGGG1 GGGG2 Male", "QQQQQ GGGG1 GGGG2 Female"}, 5.0 / 32, "very high", []string{"XXXXX"}},
	// Related only through great-great-grandparent X, four generations
	// behind each: n1 = n2 = 4, (1/2)^9 = 1/512; found only by extending
	// a short lineage.
	{"distant", []string{"SIRE1 AAAA1 GDAM1 Male", "AAAA1 BBBB1 GDAM3 Male", "BBBB1 CCCC1 GDAM4 Male", "CCCC1 XXXXX GDAM5 Male",
		"DAM01 AAAA2 GDAM2 Female", "AAAA2 BBBB2 GDAM6 Male", "BBBB2 CCCC2 GDAM7 Male", "CCCC2 XXXXX GDAM8 Male"}, 1.0 / 512, "low", []string{"XXXXX"}},
}

func fmtPtr(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// flockOf is n animals of flock 640238 (dates in NSIP's three forms, sex
// as words, codes and blanks) among animals of other flocks.
func flockOf(seed uint64, n int) *fakeSource {
	rng := rand.New(rand.NewPCG(seed, 2))
	f := newFake()
	sexes := []string{"Male", "Female", "1", "2", ""}
	dates := []string{"2/13/%d", "%d-03-01T00:00:00", "%d-04-20", ""}
	for i := range n + 40 {
		y := 2019 + rng.IntN(6)
		d := dates[rng.IntN(len(dates))]
		if d != "" {
			d = fmt.Sprintf(d, y)
		}
		a := &fakeAnimal{ID: fmt.Sprintf("6402382%03dFLK%04d", seed, i), Flock: "640238", Sex: sexes[rng.IntN(len(sexes))], Born: d,
			Status: []string{"CURRENT", "SOLD", ""}[rng.IntN(3)], EBV: map[string]float64{}}
		if i >= n {
			a.Flock = "999999"
		}
		for _, c := range []string{"BWT", "WWT", "NLB"} {
			if rng.IntN(10) > 0 {
				a.EBV[c] = math.Round(rng.NormFloat64()*1000) / 100
			}
		}
		f.add(a)
	}
	return f
}

// progenyFlock is flockOf with every animal of the flock an offspring of
// SIRE0001 (half of them of one dam), the strays of others.
func progenyFlock(seed uint64, n int) *fakeSource {
	f := flockOf(seed, n)
	f.add(&fakeAnimal{ID: "SIRE0001", Sex: "Male"})
	f.add(&fakeAnimal{ID: "DAM00001", Sex: "Female"})
	for _, a := range f.animals {
		switch {
		case a.Flock == "640238" && strings.HasPrefix(a.ID, "640"):
			a.Sire = "SIRE0001"
		case a.Flock == "999999":
			a.Sire = "OTHER001"
		}
		if a.Sire == "SIRE0001" && len(a.ID)%2 == 0 {
			a.Dam = "DAM00001"
		}
	}
	return f
}

func compareHerd() *fakeSource {
	return newFake(
		&fakeAnimal{ID: "ANIM1", Sire: "SIRE1", Sex: "Male", EBV: map[string]float64{"WWT": 5, "BWT": 0.4, "YWT": 3, "NWT": 0.1, "EMD": 1.0}},
		&fakeAnimal{ID: "ANIM2", Sire: "SIRE2", Sex: "Female", EBV: map[string]float64{"WWT": 7, "BWT": 0.2, "YWT": 3, "NWT": 0.3}},
		&fakeAnimal{ID: "ANIM3", Sire: "SIRE3", Sex: "Female", EBV: map[string]float64{"WWT": 7, "BWT": 0.6, "YWT": 3, "NWT": 0.2, "EMD": 0.5}},
	)
}

func planHerd() *fakeSource {
	f := herd(
		// RAM01 and EWE01 are half sibs through XXXXX: 1/8.
		"RAM01 XXXXX MUM01 Male", "EWE01 XXXXX MUM02 Female",
		// RAM02 and EWE03 are first cousins (their sires full sibs): 1/16.
		"RAM02 AAAA1 MUM03 Male", "AAAA1 GGGG1 GGGG2 Male",
		"EWE03 AAAA2 MUM04 Female", "AAAA2 GGGG1 GGGG2 Male",
		// EWE02 is related to neither ram: 0, as are the other pairs.
		"EWE02 SSSS2 MUM05 Female",
	)
	// Indexes WWT - BWT: RAM01 6 - 0.2 = 5.8, RAM02 4 - 0.4 = 3.6,
	// EWE01 2.7, EWE02 1.9, EWE03 4.5.
	for id, e := range map[string][2]float64{"RAM01": {6, 0.2}, "RAM02": {4, 0.4}, "EWE01": {3, 0.3}, "EWE02": {2, 0.1}, "EWE03": {5, 0.5}} {
		f.animals[id].EBV = map[string]float64{"WWT": e[0], "BWT": e[1]}
	}
	return f
}

var planSent = map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01", "EWE02", "EWE03"},
	"weights": map[string]any{"WWT": 1.0, "BWT": -1.0}}

func withArgs(m map[string]any, kv ...any) map[string]any {
	out := maps.Clone(m)
	for i := 0; i < len(kv); i += 2 {
		out[kv[0+i].(string)] = kv[i+1]
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// restCallSet is what the call for the rest of answer v sets, as JSON.
func restCallSet(t *testing.T, v any) string {
	t.Helper()
	var raw struct {
		NotShown struct {
			Call struct {
				Set json.RawMessage `json:"set"`
			} `json:"call"`
		} `json:"not_shown"`
	}
	decode(t, v, &raw)
	return string(raw.NotShown.Call.Set)
}

// deepHerd gives each of ids a full pedigree gens generations deep, every
// ancestor its own, so that no two animals are related.
func deepHerd(f *fakeSource, gens int, ids ...string) {
	var grow func(id, sex string, g int)
	grow = func(id, sex string, g int) {
		a := &fakeAnimal{ID: id, Sex: sex, EBV: map[string]float64{"WWT": float64(len(id) % 7), "BWT": 0.3}}
		f.add(a)
		if g == gens {
			return
		}
		a.Sire, a.Dam = id+"S", id+"D"
		grow(a.Sire, "Male", g+1)
		grow(a.Dam, "Female", g+1)
	}
	for i, id := range ids {
		grow(id, []string{"Male", "Female"}[min(i, 1)], 0)
	}
}

// short drops the last n rows of page p, the count unchanged.
func short(p, n int) func(int, []nsip.AnimalRow) []nsip.AnimalRow {
	return func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page == p {
			return rows[:len(rows)-n]
		}
		return rows
	}
}

func mustRunSource(t *testing.T, d *Def, src Source, sent map[string]any, out any) {
	t.Helper()
	args, errs := d.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v, err := Run(t.Context(), d, src, discard(), param.SentOf(sent), args)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, v, out)
}

// brutePercent is top_percent by counting every animal of the breed: the
// share with code whose value is as good as v or better (higher for WWT
// and YWT, lower for BWT and FAT, lower first for NWT, which has no
// direction).
func brutePercent(f *fakeSource, breed int, code string, v float64) float64 {
	info, _ := nsip.LookupTrait(code)
	n, good := 0, 0
	for _, a := range f.animals {
		x, ok := a.EBV[code]
		if a.Breed != breed || !ok {
			continue
		}
		n++
		if x == v || info.Direction == "higher" && x > v || info.Direction != "higher" && x < v {
			good++
		}
	}
	return math.Round(10000*float64(good)/float64(n)) / 100
}

// pick is n animals of breed 640 chosen by seed.
func pick(f *fakeSource, seed uint64, n int) []any {
	rng := rand.New(rand.NewPCG(seed, 5))
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(f.animals)) {
		if f.animals[id].Breed == 640 {
			ids = append(ids, id)
		}
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return anyList(ids[:n])
}

// scored is an animal's value under a ranking, as brute force works it
// out to check an answer against.
type scored struct {
	id string
	v  float64
}

// bestFirst sorts all in the order every ranking answers in: best value
// first, ties by LPN ID.
func bestFirst(all []scored) []scored {
	slices.SortFunc(all, func(x, y scored) int { return cmp.Or(cmp.Compare(y.v, x.v), strings.Compare(x.id, y.id)) })
	return all
}
