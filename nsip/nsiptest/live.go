package nsiptest

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Breeds publish traits beyond the thirteen, and not all the same ones: a
// live session showed MWWT, NLW, WFEC and PFEC for Katahdins, and breed
// documentation names YGFW, YFD and YSL for wool breeds and YEMD, YFAT,
// PEMD and PFAT for terminal sires. MWWT comes without an accuracy.
type extraTrait struct {
	code     string
	sd       float64
	decimals int
	accuracy bool
}

var groupTraits = map[int][]extraTrait{
	61: {{"YGFW", 4.0, 2, true}, {"YFD", 0.6, 2, true}, {"YSL", 3.0, 2, true}},
	62: {{"YGFW", 4.0, 2, true}, {"YFD", 0.6, 2, true}, {"YSL", 3.0, 2, true}},
	64: {{"MWWT", 1.2, 3, false}, {"NLW", 0.9, 3, true}, {"WFEC", 25, 2, true}, {"PFEC", 25, 2, true}},
	69: {{"YEMD", 0.9, 3, true}, {"YFAT", 0.06, 3, true}, {"PEMD", 0.8, 3, true}, {"PFAT", 0.05, 3, true}},
}

// NoTraitDataBreed is a breed whose getTraitRangesByBreed answers HTTP 400,
// as NSIP is taken to do for a breed with too few evaluated animals. Its
// animals still carry traits.
const NoTraitDataBreed = 641

// AllTraitCodes lists every trait code some breed of the stand-in carries:
// the thirteen, then the others alphabetically.
func AllTraitCodes() []string {
	var extra []string
	for _, ts := range groupTraits {
		for _, t := range ts {
			if !slices.Contains(extra, t.code) {
				extra = append(extra, t.code)
			}
		}
	}
	slices.Sort(extra)
	return append(slices.Clone(traitCodes), extra...)
}

// BreedTraitCodes lists the trait codes of a breed, in the order its
// animals and trait ranges carry them.
func (d *Dataset) BreedTraitCodes(breedID int) []string { return d.breedCodes(breedID) }

func (d *Dataset) breedCodes(breedID int) []string {
	out := slices.Clone(traitCodes)
	if b, ok := d.breeds[breedID]; ok {
		for _, t := range groupTraits[b.groupID] {
			out = append(out, t.code)
		}
	}
	return out
}

// traitValue returns an animal's value of code (any case).
func (a *animal) traitValue(code string) (float64, bool) {
	for _, t := range a.Traits {
		if strings.EqualFold(t.Code, code) {
			return t.Value, true
		}
	}
	return 0, false
}

// knownCode reports whether any breed carries code (any case).
func knownCode(code string) bool {
	return slices.ContainsFunc(AllTraitCodes(), func(c string) bool { return strings.EqualFold(c, code) })
}

// liveRand draws what the live shapes add, from its own stream, so that
// everything generated before stays as it was for a seed.
func liveRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x6c6976652d736870))
}

// extras gives every animal its breed's further traits, in birth order so
// that parents have theirs first, and widens the breed's trait ranges. The
// NoTraitDataBreed loses its ranges.
func (g *gen) extras(r *rand.Rand) {
	g.extrasOf(r, g.d.animals)
	g.d.ranges[NoTraitDataBreed] = nil
}

// extrasOf is extras for the animals as, parents before their lambs.
func (g *gen) extrasOf(r *rand.Rand, as []*animal) {
	d := g.d
	for _, a := range as {
		ets := groupTraits[a.BreedGroupID]
		var sire, dam *animal
		if a.Sire != "" {
			sire, dam = d.byID[a.Sire], d.byID[a.Dam]
		}
		for _, et := range ets {
			v := r.NormFloat64() * et.sd
			if sire != nil {
				sv, _ := sire.traitValue(et.code)
				dv, _ := dam.traitValue(et.code)
				v = (sv+dv)/2 + r.NormFloat64()*et.sd*0.7
			}
			acc := -1
			if et.accuracy {
				base := 18 + 58*(1-math.Exp(-float64(a.ProgenyCount)/10)) + r.NormFloat64()*6
				if a.Sire != "" {
					base += 8
				}
				acc = int(math.Round(math.Max(5, math.Min(99, base))))
			}
			a.Traits = append(a.Traits, Trait{Code: et.code, Value: round(v, et.decimals), Accuracy: acc})
			rg := d.ranges[a.BreedID]
			cur, ok := rg[et.code]
			if !ok {
				cur = [2]float64{v, v}
			}
			rg[et.code] = [2]float64{math.Min(cur[0], round(v, et.decimals)), math.Max(cur[1], round(v, et.decimals))}
		}
	}
}

// The animals the README and tool descriptions use as examples, so that a
// first call against the stand-in finds them: the ram whose live progeny
// answer was captured, with his 25 offspring, sire and dam.
const (
	ExampleRam  = "6402382024NCS310"
	ExampleSire = "6400462020VPI007"
	ExampleDam  = "6402382022NCS087"
	// ExampleEwe is a CURRENT ewe of the ram's flock that shares no
	// recorded ancestor with him: the ewe the tool descriptions pair him
	// with, so that their example mating, comparison and plan are of
	// animals a breeder could mate.
	ExampleEwe = "6402382022NCS120"
	// ExampleOffspring is how many offspring the example ram has, as in
	// the capture.
	ExampleOffspring = 25
)

// examples adds the example animals to the Katahdins, drawing from r. Their
// parents' parents are generated Katahdins of suitable age when there are
// any.
func (g *gen) examples(r *rand.Rand) {
	d := g.d
	b := d.breeds[640]
	saved := g.r
	g.r = r
	defer func() { g.r = saved }()
	pickParent := func(gender string, from, to int) *animal {
		var c []*animal
		for _, a := range d.animals {
			if a.BreedID == 640 && a.Gender == gender && a.year >= from && a.year <= to {
				c = append(c, a)
			}
		}
		if len(c) == 0 {
			return nil
		}
		return c[r.IntN(len(c))]
	}
	add := func(id string, born time.Time, gender string, sire, dam *animal, contact *Contact) *animal {
		a := &animal{year: born.Year()}
		a.LPNID = id
		a.BreedID, a.BreedName, a.BreedGroupID, a.BreedGroupName = b.ID, b.Name, b.groupID, b.groupName
		a.Contact = *contact
		a.FlockCode = contact.FlockCode
		a.Born, a.Gender = born, gender
		if sire != nil && dam != nil {
			a.Sire, a.Dam = sire.LPNID, dam.LPNID
		} else {
			sire, dam = nil, nil
		}
		g.traits(a, sire, dam)
		g.add(a)
		return a
	}
	ncs, vpi, fle := d.flock("640238"), d.flock("640046"), d.flock("640149")
	sire := add(ExampleSire, time.Date(2020, 2, 20, 0, 0, 0, 0, time.UTC), "Male",
		pickParent("Male", 2016, 2018), pickParent("Female", 2016, 2018), vpi)
	dam := add(ExampleDam, time.Date(2022, 3, 2, 0, 0, 0, 0, time.UTC), "Female",
		pickParent("Male", 2018, 2020), pickParent("Female", 2018, 2020), ncs)
	ram := add(ExampleRam, time.Date(2024, 2, 13, 0, 0, 0, 0, time.UTC), "Male", sire, dam, ncs)
	kin := g.ancestry(ram)
	unrelated := func(gender string, from, to int) *animal {
		var c []*animal
		for _, a := range d.animals {
			if a.BreedID == 640 && a.Gender == gender && a.year >= from && a.year <= to && !g.sharesAncestry(a, kin) {
				c = append(c, a)
			}
		}
		if len(c) == 0 {
			return nil
		}
		return c[r.IntN(len(c))]
	}
	add(ExampleEwe, time.Date(2022, 3, 10, 0, 0, 0, 0, time.UTC), "Female", unrelated("Male", 2015, 2021), unrelated("Female", 2015, 2021), ncs)
	for i := 1; i <= ExampleOffspring; i++ {
		ewe := pickParent("Female", 2021, 2023)
		if ewe == nil {
			ewe = dam
		}
		gender := "Female"
		if r.IntN(2) == 0 {
			gender = "Male"
		}
		born := time.Date(2025, 1, 20, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(60))
		add(exampleOffspringID(i), born, gender, ram, ewe, fle)
	}
}

// exampleFacts settles what the capture says of the example ram once the
// population's facts are drawn: status CURRENT, 50K genotyped.
func (d *Dataset) exampleFacts() {
	a, ok := d.byID[ExampleRam]
	if !ok {
		return
	}
	a.Status, a.Genotyped = "CURRENT", "50K Genotyped"
	a.variant = 0
	if e, ok := d.byID[ExampleEwe]; ok {
		e.Status = "CURRENT"
	}
}

// ancestry is a and every recorded ancestor of it.
func (g *gen) ancestry(a *animal) map[string]bool {
	out := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if id == "" || out[id] {
			return
		}
		out[id] = true
		if p := g.d.byID[id]; p != nil {
			walk(p.Sire)
			walk(p.Dam)
		}
	}
	walk(a.LPNID)
	return out
}

// sharesAncestry reports whether a or any recorded ancestor of it is in kin.
func (g *gen) sharesAncestry(a *animal, kin map[string]bool) bool {
	for id := range g.ancestry(a) {
		if kin[id] {
			return true
		}
	}
	return false
}
