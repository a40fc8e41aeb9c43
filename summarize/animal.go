package summarize

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// animalBlock is what FR-005a keeps of an animal's details.
type animalBlock struct {
	Summary      bool   `json:"summary,omitempty"`
	Kind         Kind   `json:"kind,omitempty"`
	LPNID        string `json:"lpn_id"`
	Breed        string `json:"breed,omitempty"`
	BreedID      int    `json:"breed_id,omitempty"`
	Sire         string `json:"sire,omitempty"`
	Dam          string `json:"dam,omitempty"`
	TotalProgeny int    `json:"total_progeny"`
	Status       string `json:"status,omitempty"`
	DOB          string `json:"dob,omitempty"`
	Gender       string `json:"gender,omitempty"`
	// Genotyped is as NSIP's record states it ("50K Genotyped"), or says
	// the record did not: what NSIP sends for an animal not genotyped has
	// not been seen, so an absence is not read as "no".
	Genotyped string        `json:"genotyped"`
	Contact   *contactBlock `json:"contact,omitempty"`
	TopTraits []traitObject `json:"top_traits"`
}

// contactBlock is the breeder's contact, every non-empty field of it.
type contactBlock struct {
	Flock   string `json:"flock,omitempty"`
	Farm    string `json:"farm,omitempty"`
	Name    string `json:"name,omitempty"`
	Phone   string `json:"phone,omitempty"`
	Email   string `json:"email,omitempty"`
	Address string `json:"address,omitempty"`
	City    string `json:"city,omitempty"`
	State   string `json:"state,omitempty"`
	Zip     string `json:"zip,omitempty"`
}

// traitObject is a trait outside tables, where a few keys read better.
type traitObject struct {
	Code     string  `json:"code"`
	Value    float64 `json:"value"`
	Accuracy float64 `json:"accuracy"`
}

func newAnimalBlock(v *nsip.AnimalDetails, c int) *animalBlock {
	a := &animalBlock{
		LPNID: clip(v.LPNID, c), Breed: clip(v.Breed, c), BreedID: v.BreedID,
		Sire: clip(v.Sire, c), Dam: clip(v.Dam, c), TotalProgeny: v.TotalProgeny,
		Status: clip(v.Status, c), DOB: clip(v.DateOfBirth, c), Gender: clip(v.Gender, c),
		Genotyped: clip(v.Genotyped, c), TopTraits: []traitObject{},
	}
	if a.Genotyped == "" {
		a.Genotyped = "not stated by NSIP"
	}
	if ci := v.Contact; !ci.IsZero() {
		a.Contact = &contactBlock{
			Flock: clip(ci.FlockCode, c), Farm: clip(ci.FarmName, c), Name: clip(ci.ContactName, c),
			Phone: clip(ci.Phone, c), Email: clip(ci.Email, c), Address: clip(ci.Address, c),
			City: clip(ci.City, c), State: clip(ci.State, c), Zip: clip(ci.ZipCode, c),
		}
	}
	for _, t := range topTraits(v.Traits, 3) {
		a.TopTraits = append(a.TopTraits, traitObject{Code: clip(t.Code, c), Value: t.Value, Accuracy: round(t.Accuracy, 2)})
	}
	return a
}

func animalSummary(f *fitter, v *nsip.AnimalDetails, c int) ([]byte, bool, error) {
	a := newAnimalBlock(v, c)
	a.Summary, a.Kind = true, KindAnimal
	b, err := nsip.PlainJSON(a)
	if err != nil || !f.fits(b) {
		return nil, false, err
	}
	return b, true, nil
}

// profileBlock is the by-LPN composite: the animal with its EBVs and
// indexes, its parents and grandparents from the pedigree, and the first
// page of its progeny.
type profileBlock struct {
	Summary bool         `json:"summary"`
	Kind    Kind         `json:"kind"`
	Animal  *animalBlock `json:"animal,omitempty"`
	// EBVs are the animal's traits beyond its top traits (only those asked
	// for, when traits were) as [code, value, accuracy], accuracy null when
	// NSIP gave none, most accurate first.
	EBVCell     []string           `json:"ebv_cell,omitempty"`
	EBVs        [][]any            `json:"ebvs,omitempty"`
	Indexes     map[string]float64 `json:"indexes,omitempty"`
	Sire        *nodeBlock         `json:"sire,omitempty"`
	Dam         *nodeBlock         `json:"dam,omitempty"`
	GrandColumn []string           `json:"grandparent_columns,omitempty"`
	Grand       [][]string         `json:"grandparents,omitempty"`
	Progeny     *pageSummary       `json:"progeny,omitempty"`
	Omitted     []omission         `json:"omitted,omitempty"`
}

// omission is a part of the profile left out to fit: what, how many
// entries, and the call that returns it.
type omission struct {
	Part  string    `json:"part"`
	Count int       `json:"count,omitempty"`
	Call  *NextCall `json:"call"`
}

// profilePlan is one candidate profile, from richest to leanest. Within
// each, offspring give way first (traits per row, then the statistics,
// then rows), then the grandparents, the EBVs beyond the top traits, and
// the parents' details.
type profilePlan struct {
	grand, allEBVs, parents bool
}

var profilePlans = []profilePlan{
	{true, true, true},
	{false, true, true},
	{false, false, true},
	{false, false, false},
}

// profileSummary fits the by-LPN composite to the budget, trying each
// plan from richest to leanest; within a plan the offspring give way first.
func profileSummary(f *fitter, v *nsip.AnimalProfile, req Request, c int) ([]byte, bool, error) {
	pp := newProfileParts(v, req, c)
	prog, err := profileProgeny(v, req, pp.id, c)
	if err != nil {
		return nil, false, err
	}
	p := &profileBlock{Summary: true, Kind: KindProfile, Animal: pp.base}
	out, _, err := firstComplete(len(profilePlans), func(i int) ([]byte, bool, error) {
		pp.lay(p, profilePlans[i], c)
		if prog == nil {
			b, err := nsip.PlainJSON(p)
			if err != nil || !f.fits(b) {
				return nil, false, err
			}
			return b, true, nil
		}
		base := p.Omitted
		out, complete, err := fitLayouts(f, prog.ps, prog.stats, prog.pg, prog.layouts, prog.fallback, func(s *pageSummary) any {
			p.Progeny, p.Omitted = s, base
			if s.Omitted != nil {
				p.Omitted = append(slices.Clone(base), omission{Part: "offspring " + omitStats, Call: prog.pg.call(prog.pg.page, prog.pg.size, 0)})
			}
			if n := prog.pg.unshown(s.Shown); n > 0 {
				p.Omitted = append(slices.Clone(p.Omitted), omission{Part: "offspring", Count: n, Call: s.Next})
			}
			return p
		})
		return out, complete || (i == len(profilePlans)-1 && out != nil), err
	})
	if errors.Is(err, errNoFit) {
		return nil, false, nil
	}
	return out, out != nil, err
}

// profileParts are the profile's parts other than its offspring, read
// once from the record and lineage and laid out by each plan.
type profileParts struct {
	id          string
	base        *animalBlock
	traits      []nsip.Trait // the EBVs beyond the top traits, most accurate first
	indexes     map[string]float64
	sire, dam   *nodeBlock
	grand       [][]string // [path, lpn_id] of each grandparent
	beyond      int        // ancestors beyond the grandparents
	lineageCall *NextCall
	animalCall  *NextCall
}

// newProfileParts reads the parts from v; the LPN ID asked is the one
// used when NSIP sent no record.
func newProfileParts(v *nsip.AnimalProfile, req Request, c int) *profileParts {
	pp := &profileParts{indexes: map[string]float64{}}
	if v.Details != nil {
		pp.id = v.Details.LPNID
		pp.base = newAnimalBlock(v.Details, c)
		pp.traits = profileTraits(v.Details.Traits, req.Traits)
		for _, ix := range v.Details.Indexes {
			pp.indexes[clip(ix.Name, c)] = ix.Value
		}
	}
	if pp.id == "" {
		pp.id, _ = req.Args["lpn_id"].(string)
	}
	pp.lineageCall = &NextCall{Tool: toolname.GetLineage, Arguments: map[string]any{"lpn_id": pp.id}}
	pp.animalCall = &NextCall{Tool: toolname.GetAnimal, Arguments: map[string]any{"search_string": pp.id}}
	if v.Lineage != nil {
		pp.sire, pp.dam = newNodeBlock(v.Lineage.Subject.Sire, c), newNodeBlock(v.Lineage.Subject.Dam, c)
		gens := ancestors(&v.Lineage.Subject)
		if len(gens) > 1 {
			for _, a := range gens[1] {
				pp.grand = append(pp.grand, []string{a.path, clip(a.node.LPNID, c)})
			}
		}
		for _, g := range gens[min(2, len(gens)):] {
			pp.beyond += len(g)
		}
	}
	return pp
}

// profileTraits are the EBVs beside the top traits, which the animal
// block has, only those asked for when traits were, most accurate first
// and a trait without accuracy after those with.
func profileTraits(all []nsip.Trait, asked []string) []nsip.Trait {
	top := topTraits(all, 3)
	traits := slices.DeleteFunc(slices.Clone(all), func(t nsip.Trait) bool {
		return slices.ContainsFunc(top, func(x nsip.Trait) bool { return x.Code == t.Code })
	})
	if len(asked) > 0 {
		traits = slices.DeleteFunc(traits, func(t nsip.Trait) bool {
			return !slices.ContainsFunc(asked, func(s string) bool { return strings.EqualFold(s, t.Code) })
		})
	}
	slices.SortStableFunc(traits, func(a, b nsip.Trait) int {
		return cmpAccuracy(b) - cmpAccuracy(a)
	})
	return traits
}

// lay sets p's parts as plan keeps them, naming each part it leaves out
// with the call that returns it.
func (pp *profileParts) lay(p *profileBlock, plan profilePlan, c int) {
	p.Omitted = nil
	omit := func(part string, n int, call *NextCall) {
		p.Omitted = append(p.Omitted, omission{Part: part, Count: n, Call: call})
	}
	p.EBVs, p.EBVCell = nil, nil
	shown := pp.traits
	if !plan.allEBVs {
		shown = nil
	}
	for _, t := range shown {
		p.EBVs = append(p.EBVs, append([]any{clip(t.Code, c)}, valueCell(t)...))
	}
	if len(p.EBVs) > 0 {
		p.EBVCell = topCellFormat
	}
	if n := len(pp.traits) - len(shown); n > 0 {
		omit("ebvs", n, pp.animalCall)
	}
	p.Indexes = nil
	if len(pp.indexes) > 0 {
		p.Indexes = pp.indexes
	}
	p.Sire, p.Dam, p.Grand, p.GrandColumn = nil, nil, nil, nil
	if plan.parents {
		p.Sire, p.Dam = pp.sire, pp.dam
	} else if pp.sire != nil || pp.dam != nil {
		omit("sire and dam details", 0, pp.lineageCall)
	}
	if plan.grand && len(pp.grand) > 0 {
		p.Grand, p.GrandColumn = pp.grand, []string{"path", "lpn_id"}
	} else if len(pp.grand) > 0 {
		omit("grandparents", len(pp.grand), pp.lineageCall)
	}
	if pp.beyond > 0 {
		omit("ancestors beyond the grandparents", pp.beyond, pp.lineageCall)
	}
}

// profileProgenyParts are the offspring's page laid out as a progeny
// lookup's would be, with the layouts it may fall back to.
type profileProgenyParts struct {
	ps       *pageSummary
	stats    *statsTable
	pg       pager
	layouts  []layout
	fallback int
}

// profileProgeny lays out v's first page of offspring as the progeny
// lookup of id would, with the call's traits and budget; nil when the
// profile has none.
func profileProgeny(v *nsip.AnimalProfile, req Request, id string, c int) (*profileProgenyParts, error) {
	if v.Progeny == nil {
		return nil, nil
	}
	preq := req
	preq.Args = map[string]any{"lpn_id": id, "page_size": nsip.ProfilePageSize}
	for _, k := range []string{"traits", "max_tokens"} {
		if a, ok := req.Args[k]; ok {
			preq.Args[k] = a
		}
	}
	preq.Skip = 0
	pr := &profileProgenyParts{}
	var err error
	if pr.ps, pr.stats, pr.pg, pr.layouts, pr.fallback, err = progenyLayouts(v.Progeny, preq, c); err != nil {
		return nil, err
	}
	pr.ps.LPNID = "" // the animal's own, given above
	return pr, nil
}

// cmpAccuracy orders traits by accuracy, those without one last.
func cmpAccuracy(t nsip.Trait) int {
	if !t.HasAccuracy {
		return -1
	}
	return int(t.Accuracy * 100)
}

// modelRaw returns the upstream bytes an nsip model carries in its Raw
// field, if it has one.
func modelRaw(v any) json.RawMessage {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	f := rv.FieldByName("Raw")
	if !f.IsValid() || !f.CanInterface() {
		return nil
	}
	raw, _ := f.Interface().(json.RawMessage)
	return raw
}
