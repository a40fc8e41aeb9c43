package pedigree

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// MatingGenerations is how far behind each parent the pedigree is extended
// by fetching the lineage of ancestors whose own parents are not yet known.
const MatingGenerations = 6

// Builder gathers the pedigree behind a set of animals through an
// analysis, fetching lineages until every animal within MatingGenerations
// behind each subject has its parents recorded or has been looked up.
type Builder struct {
	r       *analysis.Call
	Ped     *breeding.Pedigree
	Sex     map[string]string
	fetched map[string]bool
	// read are the animals whose lineage was read or which NSIP has none
	// of: an animal not among them with no parents recorded may have
	// parents NSIP knows and the pedigree does not.
	read map[string]bool
	// broken are the animals recorded with one animal as both sire and
	// dam, or as their own parent: no COI through them can be trusted.
	broken map[string]string
	// lone are the animals a lineage node showed with one parent. NSIP
	// may list one parent alone where the animal has two (a lone child is
	// all a node shows of the parent it drops), so the other parent of
	// such an animal is not known to be unrecorded until its own record,
	// which names both, is read (own).
	lone map[string]bool
	// own are the animals whose parents were read from their own record;
	// recordSought those whose record was sought for that (read or not).
	own, recordSought map[string]bool
	// Distrust makes every animal a lineage shows with one parent
	// doubtful. A plan sets it: it mates a pair whose pedigree was read,
	// missing slots and all, so a parent a lineage left out would make its
	// COI a lower bound taken for the whole. A mating check sets it once a
	// subject's record names two parents where its lineage shows one:
	// otherwise its answer already calls a COI with a missing slot a lower
	// bound, and the records would only sharpen it.
	Distrust bool
	// dropped are the ancestors whose lineage listed one parent where
	// their own record names two, as "id: sire s, dam d".
	dropped []string
	// BySubject orders lookups subject by subject (see next).
	BySubject bool
	// Optional are subjects whose lineage may be missing or fail without
	// failing the analysis (candidates it found itself, not ones the
	// caller named): their pairs are then unresolved, and said so.
	Optional map[string]bool
	Lookups  int // lineages sought
	Records  int // ancestors' own records sought
	// refused are the lineages and records sought that a limit (the
	// ceiling, the call's time) refused unread: sought, not read.
	refused [2]int
	Notes   []string
	// early are subjects' lineages asked beside their own records
	// (prefetch), which extend takes in place of asking again; settle
	// stops those it never takes.
	early       map[string]chan lineageRead
	earlyCancel context.CancelFunc
	earlyWG     sync.WaitGroup
}

// lineageRead is one lineage asked ahead.
type lineageRead struct {
	l   *nsip.Lineage
	err error
}

// Prefetch asks the lineages of subjects at once, beside their own
// records, where they would be asked once the records are in: a new
// builder's first round reads exactly these (no subject is doubtful before
// a lineage is read), so the lookups are the same, made sooner. Only when
// records and lineages together fit in the lookups the call has under way
// at once (a mating's two parents): more would only take turns from the
// records, which every answer needs first, and leave a call stopped by its
// time limit with fewer of them. And only when the first round reads them
// all (budget) and the call's lookups left cover both, so that no record
// is refused a lookup a lineage took.
func (b *Builder) Prefetch(ctx context.Context, subjects []string, budget int) {
	if len(b.fetched) > 0 || len(b.read) > 0 || budget < len(subjects) || 2*len(subjects) > b.r.Parallel() {
		return
	}
	if u := b.r.Src.Upstream(); u.Ceiling > 0 && u.Ceiling-u.Lookups < 2*len(subjects) {
		return
	}
	ectx, cancel := context.WithCancel(ctx)
	b.early, b.earlyCancel = map[string]chan lineageRead{}, cancel
	for _, id := range subjects {
		if _, dup := b.early[id]; dup {
			continue
		}
		ch := make(chan lineageRead, 1)
		b.early[id] = ch
		b.earlyWG.Add(1)
		go func() {
			defer b.earlyWG.Done()
			l, err := b.r.Lineage(ectx, id)
			ch <- lineageRead{l, err}
		}()
	}
}

// Settle stops the lineages asked ahead that extend did not take (the
// call ended before, on an error) and waits for them, so that no lookup
// outlives the call.
func (b *Builder) Settle() {
	if b.earlyCancel != nil {
		b.earlyCancel()
	}
	b.earlyWG.Wait()
}

// LineagesRead and RecordsRead are the lineages and ancestors' records
// read, for an answer: those a limit refused were sought and not read.
func (b *Builder) LineagesRead() int { return b.Lookups - b.refused[0] }
func (b *Builder) RecordsRead() int  { return b.Records - b.refused[1] }

func NewBuilder(r *analysis.Call) *Builder {
	return &Builder{r: r, Ped: breeding.NewPedigree(), Sex: map[string]string{}, fetched: map[string]bool{},
		read: map[string]bool{}, broken: map[string]string{}, lone: map[string]bool{}, own: map[string]bool{}, recordSought: map[string]bool{}}
}

// Details records an animal's parents from its own record (a subject's,
// or an ancestor's read because a lineage showed it with one parent),
// which says which parent is which, and names both, where its lineage may
// not.
func (b *Builder) Details(id string, d *nsip.AnimalDetails) {
	if d.Gender != "" && b.Sex[id] == "" {
		b.Sex[id] = d.Gender
	}
	s, dam := strings.ToUpper(d.Sire), strings.ToUpper(d.Dam)
	if b.lone[id] && s != "" && dam != "" {
		if ks, kd := b.Ped.Parents(id); ks == "" || kd == "" {
			b.dropped = append(b.dropped, fmt.Sprintf("%s: sire %s, dam %s", id, s, dam))
		}
	}
	b.own[id] = true
	b.Add(id, s, dam)
}

// doubtful reports whether id may have a parent NSIP knows and the
// pedigree lacks: a lineage showed it with one parent, its own record
// was not read, and a parent is missing.
func (b *Builder) doubtful(id string) bool {
	if !b.Distrust || !b.lone[id] || b.own[id] {
		return false
	}
	s, d := b.Ped.Parents(id)
	return s == "" || d == ""
}

// DoubtfulWithin are the doubtful animals among ids and their ancestors
// within MatingGenerations-1 generations: those whose parents the window
// holds.
func (b *Builder) DoubtfulWithin(ids ...string) []string {
	var out []string
	seen := map[string]bool{}
	level := slices.Clone(ids)
	for g := 0; g < MatingGenerations && len(level) > 0; g++ {
		var up []string
		for _, a := range level {
			if a == "" || seen[a] {
				continue
			}
			seen[a] = true
			if b.doubtful(a) {
				out = append(out, a)
			}
			s, d := b.Ped.Parents(a)
			up = append(up, s, d)
		}
		level = up
	}
	slices.Sort(out)
	return out
}

// addNode records a lineage node and its ancestors.
func (b *Builder) addNode(n *nsip.LineageNode) {
	if n == nil || n.LPNID == "" {
		return
	}
	id := strings.ToUpper(n.LPNID)
	if n.Sex != "" && b.Sex[id] == "" {
		b.Sex[id] = n.Sex
	}
	var s, d string
	if n.Sire != nil {
		s = strings.ToUpper(n.Sire.LPNID)
	}
	if n.Dam != nil {
		d = strings.ToUpper(n.Dam.LPNID)
	}
	if (s == "") != (d == "") {
		b.lone[id] = true
		if ks, kd := b.Ped.Parents(id); b.own[id] && ks != "" && kd != "" && !b.Distrust {
			b.Distrust = true
			b.note(fmt.Sprintf("NSIP's lineage shows %s with one parent where its own record names sire %s and dam %s, "+
				"so every ancestor a lineage shows with one parent has its own record read for its parents, as the lookup ceiling allows", id, ks, kd))
		}
	}
	if s != "" && n.Dam == nil {
		// One child may be a sire with the dam unknown or the only known
		// parent listed alone, either one: NSIP does not say which. A
		// parent already recorded settles it (the subjects' own records
		// come first), then the parent's sex; with neither it is left out.
		s, d = b.place(id, s, n.Sire.Sex)
	}
	b.Add(id, s, d)
	b.addNode(n.Sire)
	b.addNode(n.Dam)
}

// place puts a lineage's lone parent p of id in the slot its record or
// its sex shows, "" for both where nothing shows which.
func (b *Builder) place(id, p, sex string) (sire, dam string) {
	ks, kd := b.Ped.Parents(id)
	switch {
	case p == ks:
		return p, ""
	case p == kd:
		return "", p
	case facts.IsSex(sex, "male"):
		return p, ""
	case facts.IsSex(sex, "female"):
		return "", p
	}
	b.note(fmt.Sprintf("the lineage of %s names %s as its only parent without saying whether sire or dam, so %s was left out", id, p, p))
	return "", ""
}

// Add records parents, noting (not failing on) records that contradict the
// pedigree gathered so far, and marking records no pedigree can hold.
func (b *Builder) Add(id, s, d string) {
	switch {
	case s != "" && s == d:
		b.broken[id] = fmt.Sprintf("%s is recorded with %s as both sire and dam", id, s)
		return
	case id == s || id == d:
		b.broken[id] = fmt.Sprintf("%s is recorded as its own parent", id)
		return
	}
	ks, kd := b.Ped.Parents(id)
	if s != "" && s == kd || d != "" && d == ks {
		b.note(fmt.Sprintf("ignored a record of %s's parents that swaps them, sire %s and dam %s against sire %s and dam %s read first",
			id, orUnknown(s), orUnknown(d), orUnknown(ks), orUnknown(kd)))
		return
	}
	if err := b.Ped.Add(id, s, d); err != nil {
		b.note(fmt.Sprintf("ignored a record of %s's parents that contradicts the rest of the pedigree, sire %s and dam %s against sire %s and dam %s read first (%v)",
			id, orUnknown(s), orUnknown(d), orUnknown(ks), orUnknown(kd), err))
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// BrokenBehind are the broken records among ids and their ancestors.
func (b *Builder) BrokenBehind(ids ...string) []string {
	var out []string
	for _, id := range ids {
		for _, a := range append([]string{id}, b.Ped.Ancestors(id)...) {
			if w, ok := b.broken[a]; ok && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Unread reports whether the pedigree within the window behind id was not
// read whole: id or an ancestor within MatingGenerations-1 generations,
// with no parents recorded, whose lineage was not read.
func (b *Builder) Unread(id string) bool {
	if parentsUnknown(b.Ped, id) && !b.read[id] {
		return true
	}
	return slices.ContainsFunc(b.Ped.Leaves(id, MatingGenerations-1), func(a string) bool { return !b.read[a] }) ||
		len(b.DoubtfulWithin(id)) > 0
}

// Open reports whether id's own inbreeding may depend on pedigree not
// read: it or an ancestor has no parents recorded and its lineage was
// not read (it lies beyond the window, or the lookup failed), or is
// doubtful.
func (b *Builder) Open(id string) bool {
	for _, a := range append([]string{id}, b.Ped.Ancestors(id)...) {
		if parentsUnknown(b.Ped, a) && !b.read[a] || b.doubtful(a) {
			return true
		}
	}
	return false
}

func (b *Builder) note(s string) {
	if !slices.Contains(b.Notes, s) && len(b.Notes) < 8 {
		b.Notes = append(b.Notes, s)
	}
}

// Extend fetches the lineage of each subject, then of ancestors within
// MatingGenerations whose parents are unknown, and the own record of
// those a lineage showed with one parent (doubtful), round by round,
// stopping at the analysis's ceiling. A lineage NSIP does not have ends
// that branch.
func (b *Builder) Extend(ctx context.Context, subjects []string, budget int) error {
	defer func() {
		if len(b.dropped) > 0 {
			b.note(fmt.Sprintf("NSIP's lineages show %d ancestors with one parent where their own records name two (%s); their parents are taken from those records", len(b.dropped), b.dropped[0]))
		}
	}()
	todo := slices.Clone(subjects)
	timeUp := false
	for len(todo) > 0 {
		if budget <= 0 {
			b.note(fmt.Sprintf("stopped extending the pedigree at the ceiling of lookups with at least %d ancestors' lineages or records still to read, so the COI may be understated", len(todo)))
			return nil
		}
		if len(todo) > budget {
			todo = todo[:budget]
		}
		budget -= len(todo)
		lins := make([]*nsip.Lineage, len(todo))
		recs := make([]*nsip.AnimalDetails, len(todo))
		errs := make([]error, len(todo))
		own := make([]bool, len(todo))
		var wg sync.WaitGroup
		for i, id := range todo {
			own[i] = b.doubtful(id)
			if own[i] {
				b.recordSought[id] = true
			} else {
				b.fetched[id] = true
			}
			early := b.early[id]
			delete(b.early, id)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if own[i] {
					recs[i], errs[i] = b.r.Details(ctx, id)
					return
				}
				if early != nil {
					got := <-early
					lins[i], errs[i] = got.l, got.err
					return
				}
				lins[i], errs[i] = b.r.Lineage(ctx, id)
			}()
		}
		wg.Wait()
		for i, o := range own {
			if o {
				b.Records++
			} else {
				b.Lookups++
			}
			switch {
			case !errors.Is(errs[i], analysis.ErrCeiling):
			case o:
				b.refused[1]++
			default:
				b.refused[0]++
			}
		}
		for i, l := range lins {
			var ne *nsip.Error
			if own[i] {
				if errs[i] != nil && ctx.Err() != nil {
					return errs[i]
				}
				b.ownRecord(todo[i], recs[i], errs[i])
				continue
			}
			switch {
			case errs[i] == nil:
				b.read[todo[i]] = true
				b.addNode(&l.Subject)
			case errors.As(errs[i], &ne) && ne.Kind == nsip.KindNotFound:
				b.read[todo[i]] = true
				if !slices.Contains(subjects, todo[i]) || b.Optional[todo[i]] {
					continue // an ancestor without a lineage of its own
				}
				return analysis.About("lpn_id", todo[i], errs[i])
			case errors.Is(errs[i], analysis.ErrTimeLimit):
				b.note("stopped extending the pedigree at the call's time limit, so the COI may be understated; the lineages read are cached, so calling again reads further")
				timeUp = true
			case errors.Is(errs[i], analysis.ErrCeiling):
				b.note("stopped extending the pedigree at the ceiling of lookups, so the COI may be understated")
			case ctx.Err() != nil || slices.Contains(subjects, todo[i]) && !b.Optional[todo[i]]:
				return errs[i]
			default:
				// One ancestor's lineage failing (NSIP busy or down) leaves
				// that branch where it is; the answer says so.
				b.note(fmt.Sprintf("the lineage of ancestor %s could not be read (%s), so the COI may be understated", todo[i], b.r.Src.ErrorCode(errs[i])))
			}
		}
		if timeUp {
			return nil // every further lookup would be refused the same way
		}
		todo = b.next(subjects)
	}
	return nil
}

// ownRecord takes the parents of doubtful ancestor id from its own
// record, or says why they could not be.
func (b *Builder) ownRecord(id string, d *nsip.AnimalDetails, err error) {
	var ne *nsip.Error
	switch {
	case err == nil:
		b.Details(id, d)
		if parentsUnknown(b.Ped, id) {
			b.read[id] = true // NSIP records no parents
		}
	case errors.As(err, &ne) && ne.Kind == nsip.KindNotFound:
		b.note(fmt.Sprintf("the lineage of %s lists one parent and NSIP has no record of %s to say whether it has another, so the COI may be understated", id, id))
	case errors.Is(err, analysis.ErrCeiling):
		b.note("stopped extending the pedigree at the ceiling of lookups, so the COI may be understated")
	default:
		b.note(fmt.Sprintf("the record of ancestor %s, whose lineage lists one parent, could not be read (%s), so the COI may be understated", id, b.r.Src.ErrorCode(err)))
	}
}

// next are the ancestors whose lineages extend the pedigree, in the order
// they settle most. For a pair: nearest generation first (a near ancestor
// is in more paths, and weighs more in each). For a plan (BySubject): one
// subject's before the next's, so that lookups cut short by the ceiling
// leave whole pedigrees read rather than every one part read, since a pair
// counts only once both its animals' are; a plan lists its rams first, and
// each ram is in every ewe's pair.
func (b *Builder) next(subjects []string) []string {
	type leaf struct {
		id         string
		gen, owner int
	}
	var ls []leaf
	at := map[string]int{}
	for si, s := range subjects {
		level, seen := []string{s}, map[string]bool{}
		for g := 0; g < MatingGenerations && len(level) > 0; g++ {
			var up []string
			for _, a := range level {
				if seen[a] {
					continue
				}
				seen[a] = true
				if g > 0 && (parentsUnknown(b.Ped, a) && !b.fetched[a] && !b.read[a] || b.doubtful(a) && !b.recordSought[a]) {
					if i, ok := at[a]; !ok {
						at[a] = len(ls)
						ls = append(ls, leaf{a, g, si})
					} else if g < ls[i].gen {
						ls[i].gen, ls[i].owner = g, si
					}
				}
				for _, q := range b.parents(a) {
					if q != "" {
						up = append(up, q)
					}
				}
			}
			level = up
		}
	}
	slices.SortFunc(ls, func(x, y leaf) int {
		if b.BySubject {
			return cmp.Or(cmp.Compare(x.owner, y.owner), cmp.Compare(x.gen, y.gen), strings.Compare(x.id, y.id))
		}
		return cmp.Or(cmp.Compare(x.gen, y.gen), cmp.Compare(x.owner, y.owner), strings.Compare(x.id, y.id))
	})
	var out []string
	for i, l := range ls {
		// Subject by subject, a round reads a few subjects' next leaves,
		// whole, and is not cut across many (a few run at once).
		if b.BySubject && len(out) >= 2*analysis.RoundSize && l.owner != ls[i-1].owner {
			break
		}
		out = append(out, l.id)
	}
	return out
}

func (b *Builder) parents(id string) [2]string {
	s, d := b.Ped.Parents(id)
	return [2]string{s, d}
}
