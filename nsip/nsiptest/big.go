package nsiptest

import (
	"math/rand/v2"
)

// BigBreedID is the breed Options.BigBreed generates: a Hair breed (the
// thirteen traits, MWWT, NLW, WFEC, PFEC, US Hair Index and SRC$ Index, as
// Katahdins carry) of as many animals as asked, so that analyses can be
// measured against a breed of NSIP's largest size and beyond.
const (
	BigBreedID   = 649
	BigBreedName = "Big Hair Breed (generated)"
)

// generateWithBig is generate's world plus, when big > 0, the big breed
// drawn from its own stream: every other animal is the same as without it.
func generateWithBig(seed int64, n, big int) *Dataset {
	d := generate(seed, n)
	if big <= 0 {
		return d
	}
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x6269672d62726565)), d: d}
	b := &breedInfo{Breed: Breed{BigBreedID, BigBreedName}, groupID: 64, groupName: "Hair", share: 1, hair: true}
	d.breeds[b.ID] = b
	for i := range d.groups {
		if d.groups[i].ID == b.groupID {
			d.groups[i].Breeds = append(d.groups[i].Breeds, b.Breed)
		}
	}
	start := len(d.animals)
	g.breedOf(b, big)
	as := d.animals[start:]
	g.finishAnimals(as)
	g.extrasOf(g.r, as)
	return d
}

// BreedSize is how many animals a breed holds: the recordCount of a search
// of that breed with no criteria.
func (d *Dataset) BreedSize(breedID int) int {
	n := 0
	for _, a := range d.animals {
		if a.BreedID == breedID {
			n++
		}
	}
	return n
}
