// Package source is NSIP's reads as the server itself makes them, one
// typed method per NSIP endpoint. Each read is keyed from its typed
// arguments exactly as the lookup tool's own call of the same thing is
// (lookup.Def.Keyed), so a user's call and the server's read share one
// cache entry; how a read is obtained (through the cache and the upstream
// pool, counted against an analysis's ceiling, or fresh from NSIP) is the
// caller's, given as functions.
package source

import (
	"context"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// An Obtain is how a read's answer is had.
type Obtain func(ctx context.Context, r lookup.Read) (toolcall.Obtained, error)

// Reads are NSIP's reads over Obtain; Fresh, when set, obtains the reads
// that must be NSIP's as of now (LastUpdate with fresh).
type Reads struct {
	Obtain Obtain
	Fresh  Obtain
}

// Details is the record of the animal id (an LPN ID or a registration
// number).
func (s Reads) Details(ctx context.Context, id string) (*nsip.AnimalDetails, error) {
	return read[nsip.AnimalDetails](ctx, s.Obtain, lookup.Animal, lookup.DetailsArgs{SearchString: id})
}

// Lineage is the pedigree of the animal id.
func (s Reads) Lineage(ctx context.Context, id string) (*nsip.Lineage, error) {
	return read[nsip.Lineage](ctx, s.Obtain, lookup.Lineage, lookup.LPNArgs{LPNID: id})
}

// Search is one page of NSIP's search, read under the evaluation eval
// when it is set: a page cached under an earlier evaluation is then not
// read under a later one (lookup.SearchArgs.Evaluation).
func (s Reads) Search(ctx context.Context, p nsip.SearchParams, eval string) (*nsip.SearchResults, error) {
	return read[nsip.SearchResults](ctx, s.Obtain, lookup.SearchAnimals, lookup.SearchArgsOf(p, eval))
}

// Progeny is one page of the offspring of the animal id.
func (s Reads) Progeny(ctx context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	return read[nsip.ProgenyPage](ctx, s.Obtain, lookup.Progeny, lookup.ProgenyArgs{LPNID: id, Page: page, PageSize: size})
}

// TraitRanges are the ranges of the traits breed has.
func (s Reads) TraitRanges(ctx context.Context, breed int) (*nsip.TraitRanges, error) {
	return read[nsip.TraitRanges](ctx, s.Obtain, lookup.TraitRanges, lookup.BreedArgs{BreedID: breed})
}

// LastUpdate is the date of NSIP's latest evaluation; fresh reads it from
// NSIP now, since a date cached before a new evaluation would vouch for
// pages of the new one. A fresh answer is cached all the same.
func (s Reads) LastUpdate(ctx context.Context, fresh bool) (*nsip.LastUpdate, error) {
	if fresh && s.Fresh != nil {
		return read[nsip.LastUpdate](ctx, s.Fresh, lookup.LastUpdate, lookup.NoArgs{})
	}
	return read[nsip.LastUpdate](ctx, s.Obtain, lookup.LastUpdate, lookup.NoArgs{})
}

// Breeds are NSIP's breeds by group.
func (s Reads) Breeds(ctx context.Context) (*nsip.BreedGroups, error) {
	return read[nsip.BreedGroups](ctx, s.Obtain, lookup.ListBreeds, lookup.NoArgs{})
}

// Statuses are the statuses NSIP gives animals.
func (s Reads) Statuses(ctx context.Context) (*nsip.Statuses, error) {
	return read[nsip.Statuses](ctx, s.Obtain, lookup.Statuses, lookup.NoArgs{})
}

// read is the answer of lookup d with its typed arguments a, obtained by
// obtain, as the model *T that d's answers decode to.
func read[T any](ctx context.Context, obtain Obtain, d *lookup.Def, a any) (*T, error) {
	r, err := d.Keyed(a)
	if err != nil {
		return nil, err
	}
	ob, err := obtain(ctx, r)
	if err != nil {
		return nil, err
	}
	t, ok := ob.A.Value.(*T)
	if !ok {
		return nil, fmt.Errorf("internal: %s answered a %T, not a %T", d.Name, ob.A.Value, t)
	}
	return t, nil
}
