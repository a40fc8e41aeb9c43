package breedpass

import (
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

// lpnYear is the birth year an LPN ID carries, 0 when it is not one.
func lpnYear(id string) int {
	if l, ok := nsip.ParseLPN(id); ok {
		return l.Year
	}
	return 0
}
