package plan

import (
	"cmp"
	"context"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"
)

// With the breed's pass of the current evaluation kept, the plan's COIs
// are its pairs' coancestries over the breed's whole pedigree: no lineage
// is read for an animal the pass holds, and its pairs are never
// unresolved. Only animals it lacks (of another breed) have their
// lineages read, and their pairs are computed over those and the held
// animals' whole pedigrees.

// holdPedigree finds the breed's pass, and is the animals whose lineages
// are to be read: all of them without a pass, those it lacks with one.
func (p *planRun) holdPedigree(ctx context.Context) ([]string, error) {
	breed := 0
	for _, d := range append(p.rd, p.ed...) {
		breed = cmp.Or(breed, d.BreedID)
	}
	held, err := pedigree.HeldAgain(ctx, p.r, p.held, breed) // p.held: read with the rams' records
	if err != nil || held == nil {
		p.held = nil
		return p.subjects(), err
	}
	p.held, p.absent = held, held.Absent(p.subjects())
	if len(p.absent) > 0 {
		p.b.Seed(held, p.subjects()...)
	}
	return p.absent, nil
}

// lambCOIs are the COIs of every ram's lamb with every ewe, [ram][ewe]:
// from the breed's pedigree where its pass holds both, else over the
// lineages read; nil where unknown.
func (p *planRun) lambCOIs(ctx context.Context) ([][]*float64, error) {
	pairs := make([][2]string, 0, len(p.rams)*len(p.ewes))
	for _, ram := range p.rams {
		for _, ewe := range p.ewes {
			pairs = append(pairs, [2]string{ram, ewe})
		}
	}
	cois, _, err := pedigree.LambCOIs(ctx, p.held, p.b, pairs)
	if err != nil {
		return nil, err
	}
	out := make([][]*float64, len(p.rams))
	for ri := range p.rams {
		out[ri] = cois[ri*len(p.ewes) : (ri+1)*len(p.ewes)]
	}
	return out, nil
}

// heldMethod is how COIs are computed with the breed's pedigree held.
const heldMethod = "COI by the parents' coancestry over the breed's whole pedigree from its pass (Colleau's method, exact over every ancestor NSIP records; computed.via), or, for an animal the pass lacks, "

// pedigreeVia says in c how the COIs were computed when the breed's
// pedigree was held.
func (p *planRun) pedigreeVia(c *PlanComputed) {
	if p.held == nil {
		return
	}
	c.Via = p.held.Via(p.subjects(), p.absent, false)
	c.Method = strings.Replace(c.Method, "COI by ", heldMethod, 1)
}
