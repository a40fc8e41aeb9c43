package rank

import (
	"cmp"
	"context"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// With the breed's pass of the current evaluation kept, the rams' mean
// COIs with the ewes are over the breed's whole pedigree: no lineage is
// read for an animal the pass holds, and its pairs are never unresolved
// for pedigree not read. Only animals it lacks have lineages read.

// hold finds the pass of the breed ranked (else the ewes'), and is the
// ewes whose lineages are to be read: all without a pass, those it lacks
// with one.
func (e *eweSet) hold(ctx context.Context, r *analysis.Call, ranked int, ds []*nsip.AnimalDetails) ([]string, error) {
	breed := ranked
	for _, d := range ds {
		breed = cmp.Or(breed, d.BreedID)
	}
	held, err := pedigree.HeldAgain(ctx, r, e.held, breed) // e.held: read with the ewes' records
	if err != nil || held == nil {
		e.held = nil
		return e.ids, err
	}
	e.held, e.absent = held, held.Absent(e.ids)
	return e.absent, nil
}

// lineagesOf are the rams of batch whose lineages are read: all of them
// without a pass, those it lacks with one. With some animal outside the
// pass, the held rams' pedigrees are copied in, for their pairs with it.
func (e *eweSet) lineagesOf(batch []string) []string {
	if e.held == nil {
		return batch
	}
	absent := e.held.Absent(batch)
	e.absent = append(e.absent, absent...)
	if len(e.absent) > 0 {
		// Copying an animal already copied adds nothing.
		e.b.Seed(e.held, append(append([]string(nil), e.ids...), batch...)...)
	}
	return absent
}

// open reports whether id's pedigree was not read whole or holds a record
// no pedigree can hold; never for an animal of the held pass.
func (e *eweSet) open(id string) bool {
	if _, whole := e.held.Animal(id); whole {
		return false
	}
	return e.b.Unread(id) || len(e.b.BrokenBehind(id)) > 0
}

// heldMethod is how the COIs are computed with the breed's pedigree held.
const heldMethod = "each by the parents' coancestry over the breed's whole pedigree from its pass (exact over every ancestor NSIP records; via), or, for an animal the pass lacks, as "

// via says in block how the COIs were computed when the breed's
// pedigree was held.
func (e *eweSet) via(block *ForEwes) {
	if e.held == nil {
		return
	}
	block.Via = e.held.Via(append(append([]string(nil), e.ids...), e.rams...), e.absent, false)
	block.Method = strings.Replace(block.Method, "each as ", heldMethod, 1)
}
