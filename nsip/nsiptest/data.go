package nsiptest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// traitCodes are the thirteen EBV traits in the order the API lists them.
var traitCodes = []string{"BWT", "WWT", "PWWT", "YWT", "FAT", "EMD", "NLB", "NWT", "PWT", "DAG", "WGR", "WEC", "FEC"}

// TraitCodes returns the thirteen trait codes every animal carries, in the
// order the stand-in writes them; breeds add their own after them (see
// BreedTraitCodes).
func TraitCodes() []string { return slices.Clone(traitCodes) }

// traitModel drives the generator: the spread of the trait between animals,
// how many decimals the API shows, and how much harder it is to estimate
// than body weight (lowers accuracy).
var traitModel = map[string]struct {
	sd       float64
	decimals int
	accShift float64
	trend    float64 // genetic progress per year
}{
	"BWT":  {0.30, 3, 8, 0.004},
	"WWT":  {1.50, 3, 6, 0.06},
	"PWWT": {2.50, 3, 3, 0.09},
	"YWT":  {3.00, 3, 0, 0.08},
	"FAT":  {0.05, 3, -4, 0},
	"EMD":  {0.80, 3, -4, 0.02},
	"NLB":  {0.08, 3, -10, 0.003},
	"NWT":  {0.07, 3, -12, 0.002},
	"PWT":  {1.50, 3, -8, 0.05},
	"DAG":  {0.30, 3, -6, 0},
	"WGR":  {4.00, 2, -15, 0},
	"WEC":  {20.0, 2, -5, -0.4},
	"FEC":  {25.0, 2, -10, -0.5},
}

// Statuses the API reports, in its order.
var statuses = []string{"CURRENT", "SOLD", "DEAD", "COMMERCIAL", "CULL", "EXPORTED"}

// Breed is one breed of a breed group.
type Breed struct {
	ID   int
	Name string
}

// BreedGroup is a family of breeds as getAvailableBreedGroups lists it.
type BreedGroup struct {
	ID     int
	Name   string
	Breeds []Breed
}

// Contact is a flock's breeder contact block. Empty fields are the ones the
// stand-in leaves out (null in the current format, "" in the legacy one).
type Contact struct {
	FlockCode   string
	FarmName    string
	ContactName string
	Phone       string
	Email       string
	Address     string
	City        string
	State       string
	ZipCode     string
}

// Trait is one EBV with its accuracy in whole percent (0..100), or -1 for a
// trait NSIP publishes without accuracy (MWWT). The camelCase formats serve
// Accuracy/100 (e.g. 0.8), the legacy one the percent itself.
type Trait struct {
	Code     string
	Value    float64
	Accuracy int
	text     string // sent in place of Value when set: see Handler.SetTraitText
}

// Index is one selection index of an animal.
type Index struct {
	Name  string  // as the lineage fragment shows it: "US Index", "US Hair Index" or "SRC$ Index"
	Field string  // the row field in the current format: usIndex, usHairIndex or srcIndex
	Value float64 // two decimals
}

// Animal is one generated animal exactly as the stand-in serves it.
type Animal struct {
	LPNID          string
	RegNumber      string // "" for most animals; details also answers to it
	BreedID        int
	BreedName      string
	BreedGroupID   int
	BreedGroupName string
	FlockCode      string // e.g. "640238": breed code and flock number
	Born           time.Time
	Gender         string // "Male" or "Female"
	Status         string
	Sire           string // "" for founders
	Dam            string // "" for founders
	Genotyped      string // "50K Genotyped", "HD Genotyped" or ""
	FlockCount     string // "1".."3"
	Traits         []Trait
	Indexes        []Index
	ProgenyCount   int
	Contact        Contact
	// Content is the HTML fragment getLineage sends for this animal.
	Content string
}

// DateOfBirth is the birth date as details, search rows and lineage show it
// ("2/13/2024").
func (a Animal) DateOfBirth() string { return a.Born.Format("1/2/2006") }

// Trait returns the named trait (code in any case).
func (a Animal) Trait(code string) (Trait, bool) {
	for _, t := range a.Traits {
		if strings.EqualFold(t.Code, code) {
			return t, true
		}
	}
	return Trait{}, false
}

// animal is the generator's record: the public view plus links.
type animal struct {
	Animal
	idx     int
	year    int
	progeny []int
	depth   int // complete generations of ancestry, cached
	// variant picks the lines the lineage fragment leaves out (content);
	// the fragment is written when served, not held for every animal.
	variant int8
}

// Dataset is the generated world a stand-in serves. It is read-only once
// built and shared by every server made with the same seed and size.
type Dataset struct {
	seed        int64
	lastUpdated string
	groups      []BreedGroup
	breeds      map[int]*breedInfo
	flocks      []*Contact
	animals     []*animal
	byID        map[string]*animal
	byReg       map[string]*animal
	ranges      map[int]map[string][2]float64
	orders      orderCache // served orders of recent searches
}

type breedInfo struct {
	Breed
	groupID   int
	groupName string
	share     float64
	hair      bool
	terminal  bool
}

// the breed catalogue: group, breed id, name, share of the animals.
var breedCatalogue = []struct {
	group     int
	groupName string
	id        int
	name      string
	share     float64
}{
	{61, "Range", 486, "South African Meat Merino", 0.02},
	{61, "Range", 487, "Rambouillet", 0.04},
	{61, "Range", 488, "Targhee", 0.04},
	{61, "Range", 489, "Columbia", 0.02},
	{62, "Maternal Wool", 620, "Polypay", 0.11},
	{62, "Maternal Wool", 621, "Border Leicester", 0.02},
	{62, "Maternal Wool", 622, "Finnsheep", 0.02},
	{62, "Maternal Wool", 623, "Romney", 0.02},
	{64, "Hair", 640, "Katahdin", 0.40},
	{64, "Hair", 641, "St. Croix", 0.03},
	{64, "Hair", 642, "Dorper", 0.05},
	{64, "Hair", 643, "White Dorper", 0.03},
	{64, "Hair", 644, "Barbados Blackbelly", 0.02},
	{69, "Terminal", 690, "Suffolk", 0.08},
	{69, "Terminal", 691, "Hampshire", 0.03},
	{69, "Terminal", 692, "Texel", 0.04},
	{69, "Terminal", 693, "Southdown", 0.02},
	{69, "Terminal", 694, "Oxford", 0.01},
}

const (
	firstYear   = 2007
	lastYear    = 2025
	founderEnd  = 2008 // animals born up to this year have no recorded parents
	defaultSize = 4000
)

var datasetCache sync.Map // key {seed, size, big breed} -> *Dataset

type datasetKey struct {
	seed int64
	size int
	big  int
}

// NewDataset builds (or returns the cached) world for seed with about n
// animals; n <= 0 means the default of 4000.
func NewDataset(seed int64, n int) *Dataset { return NewDatasetWithBigBreed(seed, n, 0) }

// NewDatasetWithBigBreed is NewDataset's world plus, when big > 0, the
// generated breed BigBreedID of big animals (see Options.BigBreed). The
// other breeds are the same animal for animal as without it.
func NewDatasetWithBigBreed(seed int64, n, big int) *Dataset {
	if n <= 0 {
		n = defaultSize
	}
	n = max(n, 200)
	big = max(big, 0)
	k := datasetKey{seed, n, big}
	if d, ok := datasetCache.Load(k); ok {
		return d.(*Dataset)
	}
	d, _ := datasetCache.LoadOrStore(k, generateWithBig(seed, n, big))
	return d.(*Dataset)
}

type gen struct {
	r *rand.Rand
	d *Dataset
}

func generate(seed int64, n int) *Dataset {
	g := &gen{
		r: rand.New(rand.NewPCG(uint64(seed), 0x6e7369702d737562)),
		d: &Dataset{
			seed:   seed,
			breeds: map[int]*breedInfo{},
			byID:   map[string]*animal{},
			byReg:  map[string]*animal{},
			ranges: map[int]map[string][2]float64{},
		},
	}
	d := g.d
	d.lastUpdated = fmt.Sprintf("%02d/%02d/2025", 7+g.r.IntN(3), 1+g.r.IntN(28))
	for _, c := range breedCatalogue {
		if len(d.groups) == 0 || d.groups[len(d.groups)-1].ID != c.group {
			d.groups = append(d.groups, BreedGroup{ID: c.group, Name: c.groupName})
		}
		grp := &d.groups[len(d.groups)-1]
		grp.Breeds = append(grp.Breeds, Breed{c.id, c.name})
		d.breeds[c.id] = &breedInfo{Breed: Breed{c.id, c.name}, groupID: c.group, groupName: c.groupName,
			share: c.share, hair: c.group == 64, terminal: c.group == 69}
	}
	for _, c := range breedCatalogue {
		g.breed(d.breeds[c.id], n)
	}
	lr := liveRand(seed)
	g.examples(lr)
	g.finish()
	d.exampleFacts()
	g.extras(lr)
	return d
}

// breed generates a breed's share of a world of total animals.
func (g *gen) breed(b *breedInfo, total int) {
	g.breedOf(b, int(math.Round(float64(total)*b.share)))
}

func (g *gen) add(a *animal) {
	d := g.d
	a.idx = len(d.animals)
	d.animals = append(d.animals, a)
	d.byID[a.LPNID] = a
	if a.Sire != "" {
		d.byID[a.Sire].progeny = append(d.byID[a.Sire].progeny, a.idx)
		d.byID[a.Dam].progeny = append(d.byID[a.Dam].progeny, a.idx)
	}
}

// traits draws the EBVs: the parents' mean plus Mendelian sampling, with a
// slow genetic trend; founders draw around the breed's base.
func (g *gen) traits(a, sire, dam *animal) {
	// Room for the group's own traits, which extras appends later.
	a.Traits = make([]Trait, len(traitCodes), len(traitCodes)+len(groupTraits[a.BreedGroupID]))
	for i, code := range traitCodes {
		m := traitModel[code]
		var v float64
		if sire == nil {
			v = g.r.NormFloat64() * m.sd
		} else {
			v = (sire.Traits[i].Value+dam.Traits[i].Value)/2 + g.r.NormFloat64()*m.sd*0.7 + m.trend
		}
		a.Traits[i] = Trait{Code: code, Value: round(v, m.decimals)}
	}
}

// finish fills in what depends on the whole population: progeny counts,
// accuracies, indexes, statuses, registration numbers, trait ranges and the
// lineage fragments.
func (g *gen) finish() { g.finishAnimals(g.d.animals) }

// finishAnimals is finish for the animals as, whose parents and offspring
// are all among them.
func (g *gen) finishAnimals(as []*animal) {
	r, d := g.r, g.d
	for _, a := range as {
		a.ProgenyCount = len(a.progeny)
		age := lastYear - a.year
		switch x := r.Float64(); {
		case x < 0.22+0.01*float64(age):
			a.Genotyped = ""
		case x < 0.9:
			a.Genotyped = "50K Genotyped"
		default:
			a.Genotyped = "HD Genotyped"
		}
		if age > 12 {
			a.Genotyped = ""
		}
		geno := 0.0
		if a.Genotyped != "" {
			geno = 14
		}
		parents := 0.0
		if a.Sire != "" {
			parents = 8
		}
		for i := range a.Traits {
			m := traitModel[a.Traits[i].Code]
			acc := 22 + geno + parents + 58*(1-math.Exp(-float64(a.ProgenyCount)/10)) + m.accShift + r.NormFloat64()*6
			a.Traits[i].Accuracy = int(math.Round(math.Max(5, math.Min(99, acc))))
		}
		a.Status = status(r, age)
		a.FlockCount = "1"
		if x := r.Float64(); x < 0.04 {
			a.FlockCount = "3"
		} else if x < 0.14 {
			a.FlockCount = "2"
		}
		if r.Float64() < 0.4 {
			a.RegNumber = fmt.Sprintf("%d", 1000000+a.idx*10+r.IntN(10))
			d.byReg[a.RegNumber] = a
		}
		a.Indexes = indexes(d.breeds[a.BreedID], a.Traits)
		a.variant = int8(r.IntN(24))
		rg := d.ranges[a.BreedID]
		if rg == nil {
			rg = map[string][2]float64{}
			d.ranges[a.BreedID] = rg
		}
		for _, t := range a.Traits {
			cur, ok := rg[t.Code]
			if !ok {
				cur = [2]float64{t.Value, t.Value}
			}
			rg[t.Code] = [2]float64{math.Min(cur[0], t.Value), math.Max(cur[1], t.Value)}
		}
	}
	for _, a := range as {
		sort.Slice(a.progeny, func(i, j int) bool {
			x, y := d.animals[a.progeny[i]], d.animals[a.progeny[j]]
			if !x.Born.Equal(y.Born) {
				return x.Born.After(y.Born)
			}
			return x.LPNID < y.LPNID
		})
		a.depth = -1
	}
	for _, a := range as {
		d.depthOf(a)
	}
}

func (d *Dataset) depthOf(a *animal) int {
	if a.depth >= 0 {
		return a.depth
	}
	if a.Sire == "" {
		a.depth = 0
		return 0
	}
	a.depth = 1 + min(d.depthOf(d.byID[a.Sire]), d.depthOf(d.byID[a.Dam]))
	return a.depth
}

func status(r *rand.Rand, age int) string {
	var w []float64 // weights in the order of statuses
	switch {
	case age <= 3:
		w = []float64{80, 10, 2, 4, 4, 0}
	case age <= 9:
		w = []float64{35, 25, 20, 5, 10, 5}
	default:
		w = []float64{3, 20, 60, 2, 12, 3}
	}
	return statuses[pick(r, cumulative(len(w), func(i int) float64 { return w[i] }))]
}

// indexes computes the selection indexes the breed's group publishes.
func indexes(b *breedInfo, t []Trait) []Index {
	v := func(code string) float64 {
		return t[slices.Index(traitCodes, code)].Value
	}
	us := 100 + 1.6*v("WWT") + 0.9*v("PWWT") + 40*v("NLB") + 50*v("NWT") + 1.1*v("PWT") - 0.05*v("FEC")
	src := 100 + 1.1*v("WWT") + 0.7*v("PWWT") + 3*v("EMD") - 20*v("FAT") + 30*v("NWT")
	name, field := "US Index", "usIndex"
	if b.hair {
		name, field = "US Hair Index", "usHairIndex"
	}
	out := []Index{{name, field, round(us, 2)}}
	if !b.terminal {
		out = append(out, Index{"SRC$ Index", "srcIndex", round(src, 2)})
	}
	return out
}

// content renders the lineage fragment. variant occasionally drops a line,
// as the real site does when a value is unknown.
func content(a *animal, variant int) string {
	var sb strings.Builder
	div := func(s string) { sb.WriteString("<div>" + s + "</div>") }
	div(htmlEscape(a.Contact.FarmName))
	if variant != 5 {
		for _, ix := range a.Indexes {
			div(fmt.Sprintf("%s: %.2f", htmlEscape(ix.Name), ix.Value))
		}
	}
	if variant != 9 {
		div("DOB: " + a.DateOfBirth())
	}
	div("Sex: " + a.Gender)
	if variant != 13 {
		div("Status: " + a.Status)
	}
	return sb.String()
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func letters(r *rand.Rand) string {
	b := make([]byte, 3)
	for i := range b {
		b[i] = byte('A' + r.IntN(26))
	}
	return string(b)
}

func cumulative(n int, w func(int) float64) []float64 {
	out := make([]float64, n)
	s := 0.0
	for i := range out {
		s += w(i)
		out[i] = s
	}
	return out
}

// pick draws an index with probability proportional to its weight, given
// cumulative weights.
func pick(r *rand.Rand, cw []float64) int {
	x := r.Float64() * cw[len(cw)-1]
	i := sort.SearchFloat64s(cw, x)
	return min(i, len(cw)-1)
}

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	v = math.Round(v*p) / p
	if v == 0 {
		return 0 // no negative zero
	}
	return v
}
