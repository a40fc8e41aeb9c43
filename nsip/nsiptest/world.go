package nsiptest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// How a breed is bred, chosen so that its recorded pedigree looks like a
// real recorded breed's: flocks of 20 to 500 animals, home rams used for
// two or three seasons and a few AI sires used across flocks, breeders who
// avoid mating close relatives (with a few lapses), and some animals
// registered without recorded parents. With these settings the mean
// inbreeding of the default world's breeds is a few percent (see
// TestWorldIsLikeARealBreed), where a closed herd mated at random reaches
// ten percent and more within twenty years.
const (
	// flockTarget is the average flock size a breed is split into.
	flockTarget = 130
	// minFlock and maxFlock bound the animals a flock is expected to hold.
	minFlock, maxFlock = 30, 400
	// lambsPerSire is about how many lambs a home ram sires in a season.
	lambsPerSire = 16
	// homeSeasons is how many seasons a home ram is used.
	homeSeasons = 2
	// aiShare is the share of a breed's lambs an AI sire sires while used,
	// aiSeasons how many seasons that is, and aiMinBreed the smallest
	// breed that uses AI sires at all.
	aiShare    = 0.2
	aiSeasons  = 7
	aiMinBreed = 300
	// unrecorded is the chance that a lamb born after the founders is
	// registered without recorded parents (graded-up ewes, imported
	// stock); small breeds, which import more, add up to smallImports.
	unrecorded   = 0.06
	smallImports = 0.5
	// lapse is the chance that a mating skips the breeder's check for
	// close relatives: the few close matings every real breed records.
	lapse = 0.01
	// damAges is the range of ages at which ewes lamb.
	damMinAge, damMaxAge = 1, 4
)

// flock is a breeder flock of one breed.
type flock struct {
	number  int
	letters string
	contact *Contact
	weight  float64
	seq     map[int]int // tattoo sequence per year
}

// fixedFlocks are the flocks the example animals belong to, so that they
// are real flocks of the breed with animals of their own: 640238 (NCS, the
// example ram's breeder in Raleigh, NC), 640046 (VPI, his sire's) and
// 640149 (FLE, where his offspring were born).
var fixedFlocks = map[int][]struct {
	number  int
	letters string
	city    string
	state   string
}{
	640: {{238, "NCS", "Raleigh", "NC"}, {46, "VPI", "", ""}, {149, "FLE", "", ""}},
}

// flocksOf draws the flocks of a breed of count animals, with weights
// large enough that every flock is expected to hold at least minFlock.
func (g *gen) flocksOf(b *breedInfo, count int) []*flock {
	r := g.r
	fixed := fixedFlocks[b.ID]
	nf := max(1, len(fixed), min(int(math.Round(float64(count)/flockTarget)), 900, count/minFlock))
	flocks := make([]*flock, nf)
	used := map[int]bool{}
	for i := range flocks {
		f := &flock{weight: 0.4 + r.ExpFloat64(), seq: map[int]int{}}
		if i < len(fixed) {
			f.number, f.letters = fixed[i].number, fixed[i].letters
		} else {
			f.number = 1 + r.IntN(998)
			for used[f.number] {
				f.number = 1 + r.IntN(998)
			}
			f.letters = letters(r)
		}
		used[f.number] = true
		f.contact = g.contact(b.ID, f.number)
		if i < len(fixed) && fixed[i].city != "" {
			f.contact.City, f.contact.State = fixed[i].city, fixed[i].state
		}
		flocks[i] = f
	}
	sum := 0.0
	for _, f := range flocks {
		sum += f.weight
	}
	floor, ceiling := sum*minFlock/float64(count), sum*maxFlock/float64(count)
	for _, f := range flocks {
		f.weight = min(max(f.weight, floor), ceiling)
	}
	return flocks
}

// nextID gives the next LPN ID of flock f for year y, skipping the IDs the
// example animals hold.
func (f *flock) nextID(breedID, y int) string {
	for {
		f.seq[y]++
		id := fmt.Sprintf("%03d%03d%04d%s%03d", breedID, f.number, y, f.letters, f.seq[y])
		if !exampleIDs[id] {
			return id
		}
	}
}

// exampleIDs are the LPN IDs live.go gives the example animals.
var exampleIDs = func() map[string]bool {
	m := map[string]bool{ExampleRam: true, ExampleSire: true, ExampleDam: true, ExampleEwe: true}
	for i := 1; i <= ExampleOffspring; i++ {
		m[exampleOffspringID(i)] = true
	}
	return m
}()

func exampleOffspringID(i int) string { return fmt.Sprintf("6401492025FLE%03d", i) }

// sireUse is a ram in service and the seasons he has left.
type sireUse struct {
	a    *animal
	left int
	ai   bool
}

// herdState is a breed as it is bred year by year.
type herdState struct {
	b       *breedInfo
	count   int // animals the breed will hold
	flocks  []*flock
	fw      []float64
	herd    []*animal // the breed so far, in birth order
	flockOf map[*animal]*flock
	sires   []sireUse
	aiUsed  int
}

// breedOf generates count animals of breed b, year by year, so parents
// always exist before their lambs.
func (g *gen) breedOf(b *breedInfo, count int) {
	h := &herdState{b: b, count: count, flocks: g.flocksOf(b, count), flockOf: map[*animal]*flock{}}
	h.fw = cumulative(len(h.flocks), func(i int) float64 { return h.flocks[i].weight })
	// Lambs per year grow as the breed's recording grows.
	years := lastYear - firstYear + 1
	yw := cumulative(years, func(i int) float64 { return 1 + 0.12*float64(i) })
	for yi := range years {
		prev := 0.0
		if yi > 0 {
			prev = yw[yi-1]
		}
		k := int(math.Round(float64(count)*yw[yi]/yw[years-1])) - int(math.Round(float64(count)*prev/yw[years-1]))
		g.season(h, firstYear+yi, k)
	}
}

// season breeds the k lambs of year y.
func (g *gen) season(h *herdState, y, k int) {
	r := g.r
	g.chooseSires(h, y, k)
	dams := map[*flock][]*animal{}
	var allDams []*animal
	for _, a := range h.herd {
		if age := y - a.year; a.Gender == "Female" && age >= damMinAge && age <= damMaxAge {
			dams[h.flockOf[a]] = append(dams[h.flockOf[a]], a)
			allDams = append(allDams, a)
		}
	}
	sw := cumulative(len(h.sires), func(i int) float64 {
		if h.sires[i].ai {
			return 0
		}
		return 1
	})
	home := 0.0 // the home rams' total weight
	if len(sw) > 0 {
		home = sw[len(sw)-1]
	}
	for range k {
		f := h.flocks[pick(r, h.fw)]
		a := &animal{year: y}
		a.LPNID = f.nextID(h.b.ID, y)
		b := h.b
		a.BreedID, a.BreedName, a.BreedGroupID, a.BreedGroupName = b.ID, b.Name, b.groupID, b.groupName
		a.FlockCode = f.contact.FlockCode
		a.Contact = *f.contact
		a.Born = time.Date(y, time.January, 10, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(130))
		a.Gender = "Female"
		if r.IntN(2) == 0 {
			a.Gender = "Male"
		}
		var sire, dam *animal
		if y > founderEnd && len(h.sires) > 0 && len(allDams) > 0 && r.Float64() >= h.unrecorded() {
			pool := dams[f]
			if len(pool) == 0 {
				pool = allDams
			}
			sire, dam = g.mate(h, pool, sw, home)
			a.Sire, a.Dam = sire.LPNID, dam.LPNID
		}
		g.traits(a, sire, dam)
		g.add(a)
		h.herd = append(h.herd, a)
		h.flockOf[a] = f
	}
}

// unrecorded is the chance that a lamb of this breed has no recorded
// parents: a small breed's stock is often imported or graded up.
func (h *herdState) unrecorded() float64 {
	return unrecorded + smallImports*math.Exp(-float64(h.count)/150)
}

// mate picks a sire and a dam that are not close relatives: the breeder
// tries a few pairs and, on a lapse or when none fits, takes the last.
func (g *gen) mate(h *herdState, dams []*animal, sw []float64, home float64) (sire, dam *animal) {
	r := g.r
	check := r.Float64() >= lapse
	for try := 0; try < 30; try++ {
		dam = dams[r.IntN(len(dams))]
		sire = h.pickSire(r, sw, home)
		if !check || !g.close(sire, dam) {
			return sire, dam
		}
	}
	return sire, dam
}

// pickSire draws a ram in service: each AI sire takes aiShare of the
// lambs, home rams share the rest evenly.
func (h *herdState) pickSire(r *rand.Rand, sw []float64, home float64) *animal {
	x := r.Float64()
	for _, s := range h.sires {
		if s.ai {
			if x < aiShare {
				return s.a
			}
			x -= aiShare
		}
	}
	if home == 0 {
		for _, s := range h.sires {
			if s.ai {
				return s.a
			}
		}
	}
	return h.sires[pick(r, sw)].a
}

// close reports whether one animal is the other's parent, grandparent or
// great-grandparent, or the two share one: the matings breeders avoid.
func (g *gen) close(x, y *animal) bool {
	ax, ay := g.near(x), g.near(y)
	if slices.Contains(ax, y.LPNID) || slices.Contains(ay, x.LPNID) {
		return true
	}
	for _, id := range ax {
		if slices.Contains(ay, id) {
			return true
		}
	}
	return false
}

// near lists an animal's recorded ancestors up to its great-grandparents.
func (g *gen) near(a *animal) []string {
	var out []string
	level := []string{a.Sire, a.Dam}
	for range 3 {
		var next []string
		for _, p := range level {
			if p == "" {
				continue
			}
			out = append(out, p)
			if pa := g.d.byID[p]; pa != nil {
				next = append(next, pa.Sire, pa.Dam)
			}
		}
		level = next
	}
	return out
}

// chooseSires settles the rams in service in year y for k lambs: home rams
// serve homeSeasons seasons and are replaced by the best young rams of the
// breed by weaning weight; a large breed takes an AI sire, a proven ram,
// for aiSeasons seasons from time to time.
func (g *gen) chooseSires(h *herdState, y, k int) {
	kept := h.sires[:0]
	for _, s := range h.sires {
		if s.left--; s.left > 0 {
			kept = append(kept, s)
		}
	}
	h.sires = kept
	homeNow := 0
	for _, s := range h.sires {
		if !s.ai {
			homeNow++
		}
	}
	want := max(1, int(math.Round(float64(k)/lambsPerSire)))
	if homeNow < want {
		for _, a := range g.youngRams(h, y, want-homeNow) {
			h.sires = append(h.sires, sireUse{a: a, left: homeSeasons})
		}
	}
	if h.count >= aiMinBreed && h.aiUsed < 3 && (y-firstYear)%6 == 4 {
		if ai := g.provenRam(h, y); ai != nil {
			h.sires = append(h.sires, sireUse{a: ai, left: aiSeasons, ai: true})
			h.aiUsed++
		}
	}
}

// youngRams picks n rams aged one or two not yet in service, best by
// weaning weight, from flocks chosen at random so that rams move between
// flocks as breeders buy them.
func (g *gen) youngRams(h *herdState, y, n int) []*animal {
	var c []*animal
	for _, a := range h.herd {
		if age := y - a.year; a.Gender == "Male" && age >= 1 && age <= 2 && !h.inService(a) {
			c = append(c, a)
		}
	}
	g.r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	// Of every four candidates, the one with the best weaning weight.
	var out []*animal
	for i := 0; i < len(c) && len(out) < n; i += 4 {
		best := c[i]
		for _, x := range c[i:min(i+4, len(c))] {
			if x.Traits[1].Value > best.Traits[1].Value {
				best = x
			}
		}
		out = append(out, best)
	}
	return out
}

// provenRam is the ram aged three to six with the best weaning weight that
// is not in service.
func (g *gen) provenRam(h *herdState, y int) *animal {
	var best *animal
	for _, a := range h.herd {
		if age := y - a.year; a.Gender == "Male" && age >= 3 && age <= 6 && !h.inService(a) {
			if best == nil || a.Traits[1].Value > best.Traits[1].Value {
				best = a
			}
		}
	}
	return best
}

func (h *herdState) inService(a *animal) bool {
	return slices.ContainsFunc(h.sires, func(s sireUse) bool { return s.a == a })
}
