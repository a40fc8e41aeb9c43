package summarize

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// animalBlock is what FR-005a keeps of an animal's details.
type animalBlock struct {
	Summary      bool          `json:"summary,omitempty"`
	Kind         Kind          `json:"kind,omitempty"`
	LPNID        string        `json:"lpn_id"`
	Breed        string        `json:"breed,omitempty"`
	BreedID      int           `json:"breed_id,omitempty"`
	Sire         string        `json:"sire,omitempty"`
	Dam          string        `json:"dam,omitempty"`
	TotalProgeny int           `json:"total_progeny"`
	Status       string        `json:"status,omitempty"`
	DOB          string        `json:"dob,omitempty"`
	Gender       string        `json:"gender,omitempty"`
	Contact      *contactBlock `json:"contact,omitempty"`
	TopTraits    []traitObject `json:"top_traits"`
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
		TopTraits: []traitObject{},
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
	b, err := marshal(a)
	if err != nil || !f.fits(b) {
		return nil, false, err
	}
	return b, true, nil
}

// profileSummary is the by-LPN composite: the animal, its parents' details
// from the pedigree, and as many first progeny as fit.
type profileBlock struct {
	Summary bool         `json:"summary"`
	Kind    Kind         `json:"kind"`
	Animal  *animalBlock `json:"animal,omitempty"`
	Sire    *nodeBlock   `json:"sire,omitempty"`
	Dam     *nodeBlock   `json:"dam,omitempty"`
	Progeny *pageSummary `json:"progeny,omitempty"`
	Omitted []string     `json:"omitted,omitempty"` // parts left out to fit, and where to get them
}

// omitParents tells the reader of a tight profile summary where the
// parents' details went.
const omitParents = "sire and dam details: nsip_get_lineage"

func profileSummary(f *fitter, v *nsip.AnimalProfile, c int) ([]byte, bool, error) {
	p := &profileBlock{Summary: true, Kind: KindProfile}
	if v.Details != nil {
		p.Animal = newAnimalBlock(v.Details, c)
	}
	var sire, dam *nodeBlock
	if v.Lineage != nil {
		sire, dam = newNodeBlock(v.Lineage.Subject.Sire, c), newNodeBlock(v.Lineage.Subject.Dam, c)
	}
	var (
		ps    *pageSummary
		rows  []json.RawMessage
		pg    pager
		stats *statsTable
	)
	if v.Progeny != nil {
		args := map[string]any{}
		if v.Details != nil {
			args["lpn_id"] = v.Details.LPNID
		}
		var err error
		if ps, rows, pg, err = progenyPage(v.Progeny, args, c); err != nil {
			return nil, false, err
		}
		ps.LPNID = "" // the animal's own, given above
		stats = ps.TraitStats
	}
	// What gives way, in turn: offspring rows, then the progeny
	// statistics, then the parents' details (their IDs stay in the animal
	// block). The animal itself, contact included, always stays.
	out, _, err := firstComplete(3, func(i int) ([]byte, bool, error) {
		p.Sire, p.Dam, p.Omitted = sire, dam, nil
		if i == 2 && (sire != nil || dam != nil) {
			p.Sire, p.Dam, p.Omitted = nil, nil, []string{omitParents}
		}
		if ps == nil {
			b, err := marshal(p)
			if err != nil || !f.fits(b) {
				return nil, false, err
			}
			return b, true, nil
		}
		ps.withStats(stats, i == 0)
		out, complete, err := fitPage(f, ps, rows, pg, func(s *pageSummary) any { p.Progeny = s; return p })
		return out, complete || (i == 2 && out != nil), err
	})
	if errors.Is(err, errNoFit) {
		return nil, false, nil
	}
	return out, out != nil, err
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
