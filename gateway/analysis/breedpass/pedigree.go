package breedpass

import (
	"slices"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// Pedigree is the breed's whole pedigree from the pass's own rows, with no
// NSIP request: every animal of the pass, and every parent its rows name
// that the pass does not hold (an import, an animal of another breed),
// added as a founder. The pedigree shares the pass's IDs rather than
// copying them; it holds about 40 bytes an animal (breeding.BreedPedigree).
// A cycle in the rows is cut where the LPN IDs' birth years say a record
// names a younger animal as parent; the pedigree lists what was cut.
func (p *BreedPass) Pedigree() (*breeding.BreedPedigree, error) {
	return breeding.NewBreedPedigree(breeding.BreedRows{IDs: p.IDs, Names: p.Parents, Sire: p.Sire, Dam: p.Dam, Year: lpnYear})
}

// heldPedigree is a pass's pedigree, built once, and its rows in LPN ID
// order, to find an animal's row without a map of the breed.
type heldPedigree struct {
	once sync.Once
	ped  *breeding.BreedPedigree
	err  error
	byID []int32
}

// BreedPedigree is the pass's Pedigree, built on first use and kept with
// the pass, so that the calls a kept pass answers share one pedigree and
// its inbreeding, computed once (breeding.BreedPedigree.Inbreeding), and
// drop it with the pass: the pass's Bytes count it from the start, so a
// store's bound holds whether it is built or not. A pass not made by
// NewPassOf or UnmarshalBinary builds a new one each time.
func (p *BreedPass) BreedPedigree() (*breeding.BreedPedigree, error) {
	h := p.held
	if h == nil {
		return p.Pedigree()
	}
	h.once.Do(func() { h.ped, h.err = p.Pedigree() })
	return h.ped, h.err
}

// RowOf is the row of the animal id (in any case), false when the pass
// holds none.
func (p *BreedPass) RowOf(id string) (int, bool) {
	h := p.held
	if h == nil {
		j := slices.IndexFunc(p.IDs, func(x string) bool { return strings.EqualFold(x, id) })
		return j, j >= 0
	}
	h.once.Do(func() { h.ped, h.err = p.Pedigree() })
	k, ok := slices.BinarySearchFunc(h.byID, id, func(j int32, id string) int { return compareFold(p.IDs[j], id) })
	if !ok {
		return -1, false
	}
	return int(h.byID[k]), true
}

// compareFold orders IDs as their upper case does, so that one NSIP sent
// in lower case is found by the upper case arguments are put in.
func compareFold(a, b string) int {
	return strings.Compare(strings.ToUpper(a), strings.ToUpper(b))
}

// newHeld is a pass's place for its pedigree, with its rows sorted by ID.
func newHeld(ids []string) *heldPedigree {
	byID := make([]int32, len(ids))
	for j := range byID {
		byID[j] = int32(j)
	}
	slices.SortFunc(byID, func(a, b int32) int { return compareFold(ids[a], ids[b]) })
	return &heldPedigree{byID: byID}
}

// pedigreeBytes is about what the pass's pedigree and its row index take
// once built: breeding.BreedPedigree's 40 bytes an animal, over the rows
// and every parent named (the most animals it can have), a row's number
// in the pedigree and in the index.
func (p *BreedPass) pedigreeBytes() int64 {
	return int64(len(p.IDs)+len(p.Parents))*40 + int64(len(p.IDs))*8 + 256
}

// lpnYear is the birth year an LPN ID carries, 0 when it is not one.
func lpnYear(id string) int {
	if l, ok := nsip.ParseLPN(id); ok {
		return l.Year
	}
	return 0
}
