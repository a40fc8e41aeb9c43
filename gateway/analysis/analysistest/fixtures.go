package analysistest

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

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// Population is n animals of breed 640 and a tenth as many of 641, each
// EBV present 19 times in 20 and given to two decimals, so that ties on
// the sort trait are common, as in NSIP's data.
func Population(seed uint64, n int) *FakeSource {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := NewFake()
	means := map[string][2]float64{"BWT": {0.3, 0.4}, "WWT": {2, 2.5}, "YWT": {3, 4}, "FAT": {0, 0.3}}
	for i := range n + n/10 {
		a := &FakeAnimal{ID: fmt.Sprintf("640%04dPOP%05d", seed, i), Sex: []string{"Male", "Female"}[rng.IntN(2)], EBV: map[string]float64{}}
		if i >= n {
			a.Breed = 641
		}
		for _, c := range slices.Sorted(maps.Keys(means)) { // in one order, so that a seed is one population
			m := means[c]
			if rng.IntN(20) > 0 {
				a.EBV[c] = math.Round((m[0]+m[1]*rng.NormFloat64())*100) / 100
			}
		}
		f.Add(a)
	}
	return f
}

// BruteTop is the top n of breed by the index over every animal the fake
// holds (of sex, when given): each one scored, all sorted, ties by LPN ID
// as the answer breaks them. The index itself is breeding.Weights.Index,
// so that scores equal to the last bit sort alike in both.
func BruteTop(f *FakeSource, breed int, sex string, w breeding.Weights, n int) []breeding.Scored {
	var all []breeding.Scored
	for _, a := range f.Animals {
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

// Indexed is population(seed, n) with NSIP's own indexes: US Hair Index on
// all but one animal in 25, SRC$ Index on half, to two decimals so that
// ties occur, and every third animal 50K genotyped.
func Indexed(seed uint64, n int) *FakeSource {
	f := Population(seed, n)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		a := f.Animals[id]
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

// BruteIndexTop is the top n of breed (of sex, when given) by NSIP's index
// name over every animal the fake holds, ties by LPN ID.
func BruteIndexTop(f *FakeSource, breed int, sex, name string, n int) []string {
	var all []Scored
	for _, a := range f.Animals {
		if v, ok := a.Index[name]; ok && a.Breed == breed && (sex == "" || a.Sex == sex) {
			all = append(all, Scored{a.ID, v})
		}
	}
	var out []string
	for _, x := range BestFirst(all)[:min(n, len(all))] {
		out = append(out, x.ID)
	}
	return out
}

// Kin is a closed breed of five generations: ten founder rams and twenty
// founder ewes, then forty lambs a year by rams and ewes of earlier years,
// so that rams share ancestors with the ewes they might serve.
func Kin(seed uint64) *FakeSource { return KinBreed(seed, 5, 30, 40) }

// KinBreed is Kin of gens generations, founders founders and perGen
// lambs a generation (at most 1000), IDs "640KIN<generation><sex><n>".
func KinBreed(seed uint64, gens, founders, perGen int) *FakeSource {
	rng := rand.New(rand.NewPCG(seed, 3))
	f := NewFake()
	var rams, ewes []string
	for g := range gens {
		var newRams, newEwes []string
		n := perGen
		if g == 0 {
			n = founders
		}
		for i := range n {
			sex := []string{"Male", "Female"}[rng.IntN(2)]
			if g == 0 {
				sex = []string{"Male", "Female", "Female"}[i%3]
			}
			a := &FakeAnimal{ID: fmt.Sprintf("640KIN%d%s%03d", g, sex[:1], i), Sex: sex,
				EBV:   map[string]float64{"WWT": math.Round(rng.NormFloat64()*300) / 100, "BWT": math.Round(rng.NormFloat64()*30) / 100},
				Index: map[string]float64{"US Hair Index": math.Round((100+rng.NormFloat64()*10)*100) / 100}}
			if g > 0 {
				a.Sire, a.Dam = rams[rng.IntN(len(rams))], ewes[rng.IntN(len(ewes))]
			}
			f.Add(a)
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

// YoungEwes are the first n ewes of the youngest year, as arguments.
func YoungEwes(f *FakeSource, n int) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		if strings.HasPrefix(id, "640KIN4F") && len(out) < n {
			out = append(out, id)
		}
	}
	return out
}

func AnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Herd builds a fake from lines "ID SIRE DAM SEX", "-" for an unknown
// parent; animals named only as parents get records without parents.
func Herd(lines ...string) *FakeSource {
	f := NewFake()
	for _, l := range lines {
		p := strings.Fields(l)
		a := &FakeAnimal{ID: p[0], Sex: p[3], Status: "CURRENT"}
		if p[1] != "-" {
			a.Sire = p[1]
		}
		if p[2] != "-" {
			a.Dam = p[2]
		}
		f.Add(a)
	}
	for _, a := range f.Animals {
		for i, par := range []string{a.Sire, a.Dam} {
			if par != "" && f.Animals[par] == nil {
				f.Add(&FakeAnimal{ID: par, Sex: []string{"Male", "Female"}[i], Status: "CURRENT"})
			}
		}
	}
	return f
}

// Each pedigree's COI worked by Wright's rule, F = sum over common
// ancestors A and path pairs of (1/2)^(n1+n2+1) (1+F_A).
var MatingCases = []struct {
	Name      string
	Herd      []string
	COI       float64
	Rating    string
	Ancestors []string // common ancestors, largest contribution first
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

func FmtPtr(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// FlockOf is n animals of flock 640238 (dates in NSIP's three forms, sex
// as words, codes and blanks) among animals of other flocks.
func FlockOf(seed uint64, n int) *FakeSource {
	rng := rand.New(rand.NewPCG(seed, 2))
	f := NewFake()
	sexes := []string{"Male", "Female", "1", "2", ""}
	dates := []string{"2/13/%d", "%d-03-01T00:00:00", "%d-04-20", ""}
	for i := range n + 40 {
		y := 2019 + rng.IntN(6)
		d := dates[rng.IntN(len(dates))]
		if d != "" {
			d = fmt.Sprintf(d, y)
		}
		a := &FakeAnimal{ID: fmt.Sprintf("6402382%03dFLK%04d", seed, i), Flock: "640238", Sex: sexes[rng.IntN(len(sexes))], Born: d,
			Status: []string{"CURRENT", "SOLD", ""}[rng.IntN(3)], EBV: map[string]float64{}}
		if i >= n {
			a.Flock = "999999"
		}
		for _, c := range []string{"BWT", "WWT", "NLB"} {
			if rng.IntN(10) > 0 {
				a.EBV[c] = math.Round(rng.NormFloat64()*1000) / 100
			}
		}
		f.Add(a)
	}
	return f
}

// ProgenyFlock is FlockOf with every animal of the flock an offspring of
// SIRE0001 (half of them of one dam), the strays of others.
func ProgenyFlock(seed uint64, n int) *FakeSource {
	f := FlockOf(seed, n)
	f.Add(&FakeAnimal{ID: "SIRE0001", Sex: "Male"})
	f.Add(&FakeAnimal{ID: "DAM00001", Sex: "Female"})
	for _, a := range f.Animals {
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

func CompareHerd() *FakeSource {
	return NewFake(
		&FakeAnimal{ID: "ANIM1", Sire: "SIRE1", Sex: "Male", EBV: map[string]float64{"WWT": 5, "BWT": 0.4, "YWT": 3, "NWT": 0.1, "EMD": 1.0}},
		&FakeAnimal{ID: "ANIM2", Sire: "SIRE2", Sex: "Female", EBV: map[string]float64{"WWT": 7, "BWT": 0.2, "YWT": 3, "NWT": 0.3}},
		&FakeAnimal{ID: "ANIM3", Sire: "SIRE3", Sex: "Female", EBV: map[string]float64{"WWT": 7, "BWT": 0.6, "YWT": 3, "NWT": 0.2, "EMD": 0.5}},
	)
}

func PlanHerd() *FakeSource {
	f := Herd(
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
		f.Animals[id].EBV = map[string]float64{"WWT": e[0], "BWT": e[1]}
	}
	return f
}

var PlanSent = map[string]any{"ram_lpn_ids": []any{"RAM01", "RAM02"}, "ewe_lpn_ids": []any{"EWE01", "EWE02", "EWE03"},
	"weights": map[string]any{"WWT": 1.0, "BWT": -1.0}}

func WithArgs(m map[string]any, kv ...any) map[string]any {
	out := maps.Clone(m)
	for i := 0; i < len(kv); i += 2 {
		out[kv[0+i].(string)] = kv[i+1]
	}
	return out
}

func ToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// RestCallSet is what the call for the rest of answer v sets, as JSON.
func RestCallSet(t *testing.T, v any) string {
	t.Helper()
	var raw struct {
		NotShown struct {
			Call struct {
				Set json.RawMessage `json:"set"`
			} `json:"call"`
		} `json:"not_shown"`
	}
	Decode(t, v, &raw)
	return string(raw.NotShown.Call.Set)
}

// DeepHerd gives each of ids a full pedigree gens generations deep, every
// ancestor its own, so that no two animals are related.
func DeepHerd(f *FakeSource, gens int, ids ...string) {
	var grow func(id, sex string, g int)
	grow = func(id, sex string, g int) {
		a := &FakeAnimal{ID: id, Sex: sex, EBV: map[string]float64{"WWT": float64(len(id) % 7), "BWT": 0.3}}
		f.Add(a)
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

// Short drops the last n rows of page p, the count unchanged.
func Short(p, n int) func(int, []nsip.AnimalRow) []nsip.AnimalRow {
	return func(page int, rows []nsip.AnimalRow) []nsip.AnimalRow {
		if page == p {
			return rows[:len(rows)-n]
		}
		return rows
	}
}

func MustRunSource(t *testing.T, d *analysis.Def, src analysis.Source, sent map[string]any, out any) {
	t.Helper()
	args, errs := d.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v, err := analysis.Run(t.Context(), d, src, Discard(), param.SentOf(sent), args)
	if err != nil {
		t.Fatal(err)
	}
	Decode(t, v, out)
}

// BrutePercent is top_percent by counting every animal of the breed: the
// share with code whose value is as good as v or better (higher for WWT
// and YWT, lower for BWT and FAT, lower first for NWT, which has no
// direction).
func BrutePercent(f *FakeSource, breed int, code string, v float64) float64 {
	info, _ := nsip.LookupTrait(code)
	n, good := 0, 0
	for _, a := range f.Animals {
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

// Pick is n animals of breed 640 chosen by seed.
func Pick(f *FakeSource, seed uint64, n int) []any {
	rng := rand.New(rand.NewPCG(seed, 5))
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(f.Animals)) {
		if f.Animals[id].Breed == 640 {
			ids = append(ids, id)
		}
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return AnyList(ids[:n])
}

// Scored is an animal's value under a ranking, as brute force works it
// out to check an answer against.
type Scored struct {
	ID    string
	Value float64
}

// BestFirst sorts all in the order every ranking answers in: best value
// first, ties by LPN ID.
func BestFirst(all []Scored) []Scored {
	slices.SortFunc(all, func(x, y Scored) int { return cmp.Or(cmp.Compare(y.Value, x.Value), strings.Compare(x.ID, y.ID)) })
	return all
}
