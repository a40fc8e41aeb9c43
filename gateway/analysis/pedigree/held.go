package pedigree

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// A breed's pass, kept under the evaluation NSIP gives now, holds every
// animal's sire and dam: the breed's whole pedigree, with no lineage to
// read. A mating's COI is then the coancestry of its parents over every
// ancestor NSIP records (breeding.BreedPedigree.Coancestry), exact and no
// lower bound, where lineages gathered within a window and a lookup
// ceiling often give one. A pass is used only when the source keeps it
// (no pass is read for a COI: a breed's pages cost more than lineages),
// and an animal the pass does not hold (of another breed) has its
// pedigree gathered by lineages as without one.

// Held is a breed's whole pedigree, from the pass kept of it.
type Held struct {
	Breed      int
	Evaluation string
	Ped        *breeding.BreedPedigree
	pass       *breedpass.BreedPass
	records    atomic.Int64 // animals' records taken from the pass's rows
}

// MayHold reports, with no lookup, whether the source may keep a pass of
// the breed the LPN ID id carries (of any, for an ID of no usual form): a call that may answer from one asks
// no lineage ahead (Builder.Prefetch) before it knows.
func MayHold(ctx context.Context, r *analysis.Call, id string) bool {
	store := r.Src.Passes()
	if store == nil {
		return false
	}
	l, ok := nsip.ParseLPN(id)
	return !ok || store.Holds(ctx, l.Breed) // an ID of no usual form may be of any breed
}

// HeldFor is breed's pedigree from its pass kept under the evaluation
// NSIP gives now; nil when none is kept. It reads the date (one lookup)
// only when the source keeps a pass of breed under some evaluation, so a
// question no pass can answer costs what it did before passes. A date
// that cannot be read leaves the lineages to answer, as does a pass whose
// rows make no pedigree; only the call's end fails it.
func HeldFor(ctx context.Context, r *analysis.Call, breed int) (*Held, error) {
	store := r.Src.Passes()
	if store == nil || breed <= 0 || !store.Holds(ctx, breed) {
		return nil, nil
	}
	eval, err := r.Evaluation(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil || eval == "":
		return nil, nil
	}
	p := store.Load(ctx, breed, eval)
	if p == nil {
		return nil, nil
	}
	ped, err := p.BreedPedigree()
	if err != nil {
		r.Log.Warn("a kept breed pass makes no pedigree", "breed_id", breed, "evaluation", eval, "error", err)
		return nil, nil
	}
	return &Held{Breed: breed, Evaluation: eval, Ped: ped, pass: p}, nil
}

// Animal is id's number in the breed's pedigree; false when the pass
// holds no row of id (a parent the rows name is not enough: its own
// parents are not known to the pass).
func (h *Held) Animal(id string) (int32, bool) {
	if h == nil {
		return -1, false
	}
	j, ok := h.pass.RowOf(id)
	if !ok {
		return -1, false
	}
	return h.Ped.Animal(j), true
}

// Absent are the ids the pass holds no row of, in order, each once.
func (h *Held) Absent(ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, ok := h.Animal(id); !ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// generationsMeans says what equivalent complete generations are.
const generationsMeans = "equivalent complete generations: the sum over every known ancestor, by each path, of (1/2)^g, g generations back; " +
	"a pedigree complete to 6 generations gives 6, one with no parent known 0"

// Via is the computed block's account of the pedigree: the pass's
// evaluation and size, how complete the pedigrees of ids are (a mating's
// sire and dam, else the mean and the fewest), and absent, the animals
// whose pedigrees were gathered by lineages instead.
func (h *Held) Via(ids, absent []string, pair bool) *analysis.PedigreeVia {
	var nums []int32
	var named []string
	for _, id := range ids {
		if k, ok := h.Animal(id); ok {
			nums, named = append(nums, k), append(named, id)
		}
	}
	g := analysis.Generations{Means: generationsMeans}
	eg := h.Ped.EquivalentGenerations(nums)
	switch {
	case pair && len(ids) == 2:
		// A parent the pass lacks has no figure: its lineages were read.
		for i, id := range named {
			v := facts.Round4(eg[i])
			if id == ids[0] {
				g.Sire = &v
			} else {
				g.Dam = &v
			}
		}
	case len(eg) > 0:
		least, sum := 0, 0.0
		for i, v := range eg {
			sum += v
			if v < eg[least] {
				least = i
			}
		}
		mean, few := facts.Round4(sum/float64(len(eg))), facts.Round4(eg[least])
		g.Mean, g.Fewest, g.FewestLPNID = &mean, &few, named[least]
	}
	v := &analysis.PedigreeVia{
		Animals:               h.Ped.Len(),
		EquivalentGenerations: g,
		Evaluation:            h.Evaluation,
		Pedigree:              fmt.Sprintf("the breed's whole pedigree from its pass of evaluation %s, %d animals, with no lineage read: every ancestor NSIP records, however far back", h.Evaluation, h.Ped.Len()),
	}
	if n := h.records.Load(); n > 0 {
		v.Records = fmt.Sprintf("%d animals' records from the pass's rows, not read from NSIP: the EBVs and indexes NSIP's search gives, without accuracies", n)
	}
	if len(absent) > 0 {
		v.LineagesFor = absent
		v.Pedigree = fmt.Sprintf("the breed's whole pedigree from its pass of evaluation %s, %d animals, for the animals it holds: every ancestor NSIP records, however far back; "+
			"the pass of breed %d lacks those of lineages_for, whose pedigrees were gathered from lineages", h.Evaluation, h.Ped.Len(), h.Breed)
	}
	return v
}

// COIs are the lamb COIs of pairs (sire, dam) whose animals the pass
// both holds, from one Coancestry of them all, keyed by the pair; nil
// where unknown, as LambCOI says: a COI of 0 where a parent has no known
// sire or dam is no evidence of unrelated parents.
func (h *Held) COIs(pairs [][2]string) map[[2]string]*float64 {
	out := map[[2]string]*float64{}
	if h == nil {
		return out
	}
	var nums [][2]int32
	var held [][2]string
	for _, pr := range pairs {
		s, okS := h.Animal(pr[0])
		d, okD := h.Animal(pr[1])
		if okS && okD {
			nums, held = append(nums, [2]int32{s, d}), append(held, pr)
		}
	}
	for i, c := range h.Ped.Coancestry(nums) {
		if c == 0 && (h.noParents(nums[i][0]) || h.noParents(nums[i][1])) {
			out[held[i]] = nil
			continue
		}
		out[held[i]] = &c
	}
	return out
}

func (h *Held) noParents(k int32) bool {
	s, d := h.Ped.Parents(k)
	return s < 0 && d < 0
}

// Seed copies into the builder's pedigree the animals of ids the pass
// holds and every ancestor of theirs, parents first, each counted as read
// from its own record (the pass's row names both parents, or none NSIP
// knows), so that a pair with an animal the pass lacks is computed over
// the held one's whole pedigree and the other's lineages.
func (b *Builder) Seed(h *Held, ids ...string) {
	var nums []int32
	for _, id := range ids {
		if k, ok := h.Animal(id); ok {
			nums = append(nums, k)
		}
	}
	id := func(k int32) string {
		if k < 0 {
			return ""
		}
		return strings.ToUpper(h.Ped.ID(k))
	}
	for _, k := range h.Ped.Ancestry(nums) {
		s, d := h.Ped.Parents(k)
		a := id(k)
		b.Add(a, id(s), id(d))
		b.read[a], b.own[a] = true, true
	}
}

// LambCOIs are the COIs of pairs (sire, dam), in order: from held's
// breed pedigree where its pass holds both animals, else from the
// lineages the builder gathered (LambCOI); nil where unknown. fromPass
// says which pairs the pass answered.
func LambCOIs(ctx context.Context, h *Held, b *Builder, pairs [][2]string) (cois []*float64, fromPass []bool, err error) {
	held := h.COIs(pairs)
	cois, fromPass = make([]*float64, len(pairs)), make([]bool, len(pairs))
	for i, pr := range pairs {
		if c, ok := held[pr]; ok {
			cois[i], fromPass[i] = c, true
			continue
		}
		if cois[i], err = LambCOI(ctx, b.Ped, pr[0], pr[1]); err != nil {
			return nil, nil, err
		}
	}
	return cois, fromPass, nil
}

// Records are the records of the animals ids, field naming their list:
// from the pass of breed (0: the one the first LPN ID carries) kept under
// NSIP's evaluation where it holds them, else read from NSIP. held is
// that breed's pedigree, nil when no pass is kept, for the caller to go on
// with, so that the evaluation is read once.
func Records(ctx context.Context, r *analysis.Call, field string, ids []string, breed int) ([]*nsip.AnimalDetails, *Held, error) {
	var held *Held
	var err error
	if breed > 0 {
		held, err = HeldFor(ctx, r, breed)
	} else {
		held, err = HeldByLPN(ctx, r, ids[0])
	}
	if err != nil {
		return nil, nil, err
	}
	ds, err := analysis.DetailsKnown(ctx, r, field, ids, held.Record)
	return ds, held, err
}

// HeldAgain is h when it is breed's pedigree, else HeldFor breed: a call
// that found the pass with its animals' records does not read the date
// again.
func HeldAgain(ctx context.Context, r *analysis.Call, h *Held, breed int) (*Held, error) {
	if h != nil && h.Breed == breed {
		return h, nil
	}
	return HeldFor(ctx, r, breed)
}

// HeldByLPN is HeldFor the breed the LPN ID id carries, with no lookup
// where no pass of it may be kept.
func HeldByLPN(ctx context.Context, r *analysis.Call, id string) (*Held, error) {
	l, ok := nsip.ParseLPN(id)
	if !ok || !MayHold(ctx, r, id) {
		return nil, nil
	}
	return HeldFor(ctx, r, l.Breed)
}

// Record is id's record from its row in the pass, nil when the pass (or
// h itself) holds none: what the row carries, which is what an analysis
// reads of a record but the accuracies, the registration number, the
// progeny counts and the contact.
func (h *Held) Record(id string) *nsip.AnimalDetails {
	if h == nil {
		return nil
	}
	j, ok := h.pass.RowOf(id)
	if !ok {
		return nil
	}
	row := h.pass.Row(j, true)
	h.records.Add(1)
	return &nsip.AnimalDetails{LPNID: row.LPNID, BreedID: row.BreedID, DateOfBirth: row.DateOfBirth, Gender: row.Sex, Status: row.Status,
		Sire: row.Sire, Dam: row.Dam, Genotyped: row.Genotyped, Traits: row.Traits, Indexes: row.Indexes}
}
