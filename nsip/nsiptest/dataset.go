package nsiptest

import (
	"math"
	"slices"
	"strings"
)

// Seed is the seed the dataset was generated from.
func (d *Dataset) Seed() int64 { return d.seed }

// Len is the number of animals, which is also the recordCount of a search
// with no breed and empty criteria.
func (d *Dataset) Len() int { return len(d.animals) }

// LastUpdated is the date getDateLastUpdated answers, e.g. "09/23/2025".
func (d *Dataset) LastUpdated() string { return d.lastUpdated }

// BreedGroups lists the groups with their breeds, in served order.
func (d *Dataset) BreedGroups() []BreedGroup {
	out := slices.Clone(d.groups)
	for i := range out {
		out[i].Breeds = slices.Clone(out[i].Breeds)
	}
	return out
}

// BreedIDs lists every breed id, ascending.
func (d *Dataset) BreedIDs() []int {
	var out []int
	for _, g := range d.groups {
		for _, b := range g.Breeds {
			out = append(out, b.ID)
		}
	}
	slices.Sort(out)
	return out
}

// Statuses is the list getStatusesByBreedGroup answers.
func (d *Dataset) Statuses() []string { return slices.Clone(statuses) }

// TraitRanges is what getTraitRangesByBreed answers for a breed: trait code
// to the lowest and highest value among its animals. ok is false for an
// unknown breed and for NoTraitDataBreed, which is answered with HTTP 400.
func (d *Dataset) TraitRanges(breedID int) (map[string]Range, bool) {
	rg, ok := d.ranges[breedID]
	if !ok || rg == nil {
		return nil, false
	}
	out := make(map[string]Range, len(rg))
	for k, v := range rg {
		out[k] = Range{Min: v[0], Max: v[1]}
	}
	return out, true
}

// Animal returns the animal with this LPN ID (exact, upper case).
func (d *Dataset) Animal(lpnID string) (Animal, bool) {
	a, ok := d.byID[lpnID]
	if !ok {
		return Animal{}, false
	}
	return a.public(), true
}

// lookup resolves a details search string: an LPN ID in any case or a
// registration number.
func (d *Dataset) lookup(s string) *animal {
	if a, ok := d.byID[strings.ToUpper(strings.TrimSpace(s))]; ok {
		return a
	}
	return d.byReg[strings.TrimSpace(s)]
}

func (a *animal) public() Animal {
	p := a.Animal
	p.Content = content(a, int(a.variant))
	p.Traits = slices.Clone(a.Traits)
	p.Indexes = slices.Clone(a.Indexes)
	return p
}

// AnimalIDs lists every LPN ID in generation order (breed by breed, oldest
// first).
func (d *Dataset) AnimalIDs() []string { return ids(d.animals) }

// Progeny lists the LPN IDs of an animal's offspring (the animals whose sire
// or dam it is) in the order getPageOfProgeny serves them: newest first.
func (d *Dataset) Progeny(lpnID string) []string {
	a, ok := d.byID[lpnID]
	if !ok {
		return nil
	}
	out := make([]string, len(a.progeny))
	for i, k := range a.progeny {
		out[i] = d.animals[k].LPNID
	}
	return out
}

// PedigreeDepth is the number of complete generations of recorded
// ancestors: 0 for a founder, 1 when the parents are founders, and so on.
// It is -1 for an unknown animal.
func (d *Dataset) PedigreeDepth(lpnID string) int {
	a, ok := d.byID[lpnID]
	if !ok {
		return -1
	}
	return a.depth
}

// MostProgeny is the animal with the most offspring (at least 150 with the
// default dataset size).
func (d *Dataset) MostProgeny() string {
	return d.best(func(a *animal) float64 { return float64(a.ProgenyCount) })
}

// NoProgeny is a recent animal without offspring.
func (d *Dataset) NoProgeny() string {
	return d.best(func(a *animal) float64 {
		if a.ProgenyCount > 0 {
			return math.Inf(-1)
		}
		return float64(a.year)
	})
}

// DeepPedigree is a recent animal with the deepest complete pedigree
// (at least LineageDepth generations with the default dataset size), so its
// lineage is a full tree down to the depth cap.
func (d *Dataset) DeepPedigree() string {
	return d.best(func(a *animal) float64 { return float64(a.depth*100 + a.year - firstYear) })
}

// Founder is an animal without recorded parents that has offspring.
func (d *Dataset) Founder() string {
	return d.best(func(a *animal) float64 {
		if a.Sire != "" {
			return math.Inf(-1)
		}
		return float64(a.ProgenyCount)
	})
}

// best is the first animal with the highest score.
func (d *Dataset) best(score func(*animal) float64) string {
	var top *animal
	bs := math.Inf(-1)
	for _, a := range d.animals {
		if s := score(a); s > bs {
			top, bs = a, s
		}
	}
	if top == nil {
		return ""
	}
	return top.LPNID
}

// Flocks lists every flock's contact record, in generation order.
func (d *Dataset) Flocks() []Contact {
	out := make([]Contact, len(d.flocks))
	for i, c := range d.flocks {
		out[i] = *c
	}
	return out
}

// flock is the contact record of the flock with this code.
func (d *Dataset) flock(code string) *Contact {
	for _, c := range d.flocks {
		if c.FlockCode == code {
			return c
		}
	}
	panic("nsiptest: no flock " + code)
}
