package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// MatingGenerations is how far behind each parent the pedigree is extended
// by fetching the lineage of ancestors whose own parents are not yet known.
const MatingGenerations = 6

// Rating thresholds, as fractions: a lamb at or over each is rated the next
// level up. 0.0625 is a first-cousin mating, 0.125 a half-sib one.
const ratingThresholds = "low < 0.03125 <= moderate < 0.0625 <= high < 0.125 <= very high"

func rating(coi float64) string {
	switch {
	case coi < 0.03125:
		return "low"
	case coi < 0.0625:
		return "moderate"
	case coi < 0.125:
		return "high"
	}
	return "very high"
}

var CheckMating = &Def{
	Def: tooldef.Def{
		Name: toolname.CheckMating, Title: "Check a planned mating", Method: "check_mating",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `Coefficient of inbreeding (COI) of a planned mating's lamb by Wright's method, over NSIP's pedigree extended to at least 6 generations behind each parent ` +
			`(at most 60 NSIP lookups). Answers {"coi":0.125,...} with the common ancestors and their contributions, pedigree completeness, a rating and midparent EBVs ` +
			`(400-900 tokens); "coi" is null and "rating" "unknown" where no link shows and a pedigree is missing. ` +
			`Arguments: sire_lpn_id and dam_lpn_id, LPN IDs such as "6402382024NCS310". Next: ` + toolname.PlanMatings + ` for many ewes. Also max_tokens.`,
		Args: matingParams,
	},
	Ceiling: 60,
	Answers: []reflect.Type{reflect.TypeFor[MatingAnswer]()},
	Run:     typed(runCheckMating),
}

// matingArgs are nsip_check_mating's arguments, described once: the schema
// and validation derive from them (matingParams), and the run reads them.
type matingArgs struct {
	Sire string `json:"sire_lpn_id"`
	Dam  string `json:"dam_lpn_id"`
	param.Budget
}

var matingParams = param.MustStruct[matingArgs](param.Table{
	reflect.TypeFor[param.Budget](): param.BudgetFields, // max_tokens, which every tool takes
	reflect.TypeFor[matingArgs]():   {"Sire": lpnField(param.ExampleLPN), "Dam": lpnField(param.ExampleEwe)},
})

// lpnField is an argument that names one animal by LPN ID, upper-cased as
// NSIP writes them; the description says what it is.
func lpnField(example string) param.Spec {
	return param.Spec{Example: example, MinLen: nsip.MinLPNIDLength, MaxLen: nsip.MaxLPNIDLength, Pattern: param.AlnumPattern, Upper: true, Quiet: true}
}

// pedigreeBuilder gathers the pedigree behind a set of animals through an
// analysis, fetching lineages until every animal within MatingGenerations
// behind each subject has its parents recorded or has been looked up.
type pedigreeBuilder struct {
	r       *call
	ped     *breeding.Pedigree
	sex     map[string]string
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
	// distrust makes every animal a lineage shows with one parent
	// doubtful. A plan sets it: it mates a pair whose pedigree was read,
	// missing slots and all, so a parent a lineage left out would make its
	// COI a lower bound taken for the whole. A mating check sets it once a
	// subject's record names two parents where its lineage shows one:
	// otherwise its answer already calls a COI with a missing slot a lower
	// bound, and the records would only sharpen it.
	distrust bool
	// dropped are the ancestors whose lineage listed one parent where
	// their own record names two, as "id: sire s, dam d".
	dropped []string
	// bySubject orders lookups subject by subject (see next).
	bySubject bool
	// optional are subjects whose lineage may be missing or fail without
	// failing the analysis (candidates it found itself, not ones the
	// caller named): their pairs are then unresolved, and said so.
	optional map[string]bool
	lookups  int // lineages sought
	records  int // ancestors' own records sought
	notes    []string
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

// prefetch asks the lineages of subjects at once, beside their own
// records, where they would be asked once the records are in: a new
// builder's first round reads exactly these (no subject is doubtful before
// a lineage is read), so the lookups are the same, made sooner. Only when
// records and lineages together fit in the lookups the call has under way
// at once (a mating's two parents): more would only take turns from the
// records, which every answer needs first, and leave a call stopped by its
// time limit with fewer of them. And only when the first round reads them
// all (budget) and the call's lookups left cover both, so that no record
// is refused a lookup a lineage took.
func (b *pedigreeBuilder) prefetch(ctx context.Context, subjects []string, budget int) {
	if len(b.fetched) > 0 || len(b.read) > 0 || budget < len(subjects) || 2*len(subjects) > b.r.parallel() {
		return
	}
	if u := b.r.src.Upstream(); u.Ceiling > 0 && u.Ceiling-u.Lookups < 2*len(subjects) {
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
			l, err := b.r.lineage(ectx, id)
			ch <- lineageRead{l, err}
		}()
	}
}

// settle stops the lineages asked ahead that extend did not take (the
// call ended before, on an error) and waits for them, so that no lookup
// outlives the call.
func (b *pedigreeBuilder) settle() {
	if b.earlyCancel != nil {
		b.earlyCancel()
	}
	b.earlyWG.Wait()
}

func newPedigreeBuilder(r *call) *pedigreeBuilder {
	return &pedigreeBuilder{r: r, ped: breeding.NewPedigree(), sex: map[string]string{}, fetched: map[string]bool{},
		read: map[string]bool{}, broken: map[string]string{}, lone: map[string]bool{}, own: map[string]bool{}, recordSought: map[string]bool{}}
}

// details records an animal's parents from its own record (a subject's,
// or an ancestor's read because a lineage showed it with one parent),
// which says which parent is which, and names both, where its lineage may
// not.
func (b *pedigreeBuilder) details(id string, d *nsip.AnimalDetails) {
	if d.Gender != "" && b.sex[id] == "" {
		b.sex[id] = d.Gender
	}
	s, dam := strings.ToUpper(d.Sire), strings.ToUpper(d.Dam)
	if b.lone[id] && s != "" && dam != "" {
		if ks, kd := b.ped.Parents(id); ks == "" || kd == "" {
			b.dropped = append(b.dropped, fmt.Sprintf("%s: sire %s, dam %s", id, s, dam))
		}
	}
	b.own[id] = true
	b.add(id, s, dam)
}

// doubtful reports whether id may have a parent NSIP knows and the
// pedigree lacks: a lineage showed it with one parent, its own record
// was not read, and a parent is missing.
func (b *pedigreeBuilder) doubtful(id string) bool {
	if !b.distrust || !b.lone[id] || b.own[id] {
		return false
	}
	s, d := b.ped.Parents(id)
	return s == "" || d == ""
}

// doubtfulWithin are the doubtful animals among ids and their ancestors
// within MatingGenerations-1 generations: those whose parents the window
// holds.
func (b *pedigreeBuilder) doubtfulWithin(ids ...string) []string {
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
			s, d := b.ped.Parents(a)
			up = append(up, s, d)
		}
		level = up
	}
	slices.Sort(out)
	return out
}

// addNode records a lineage node and its ancestors.
func (b *pedigreeBuilder) addNode(n *nsip.LineageNode) {
	if n == nil || n.LPNID == "" {
		return
	}
	id := strings.ToUpper(n.LPNID)
	if n.Sex != "" && b.sex[id] == "" {
		b.sex[id] = n.Sex
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
		if ks, kd := b.ped.Parents(id); b.own[id] && ks != "" && kd != "" && !b.distrust {
			b.distrust = true
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
	b.add(id, s, d)
	b.addNode(n.Sire)
	b.addNode(n.Dam)
}

// place puts a lineage's lone parent p of id in the slot its record or
// its sex shows, "" for both where nothing shows which.
func (b *pedigreeBuilder) place(id, p, sex string) (sire, dam string) {
	ks, kd := b.ped.Parents(id)
	switch {
	case p == ks:
		return p, ""
	case p == kd:
		return "", p
	case isSex(sex, "male"):
		return p, ""
	case isSex(sex, "female"):
		return "", p
	}
	b.note(fmt.Sprintf("the lineage of %s names %s as its only parent without saying whether sire or dam, so %s was left out", id, p, p))
	return "", ""
}

// add records parents, noting (not failing on) records that contradict the
// pedigree gathered so far, and marking records no pedigree can hold.
func (b *pedigreeBuilder) add(id, s, d string) {
	switch {
	case s != "" && s == d:
		b.broken[id] = fmt.Sprintf("%s is recorded with %s as both sire and dam", id, s)
		return
	case id == s || id == d:
		b.broken[id] = fmt.Sprintf("%s is recorded as its own parent", id)
		return
	}
	ks, kd := b.ped.Parents(id)
	if s != "" && s == kd || d != "" && d == ks {
		b.note(fmt.Sprintf("ignored a record of %s's parents that swaps them, sire %s and dam %s against sire %s and dam %s read first",
			id, orUnknown(s), orUnknown(d), orUnknown(ks), orUnknown(kd)))
		return
	}
	if err := b.ped.Add(id, s, d); err != nil {
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

// brokenBehind are the broken records among ids and their ancestors.
func (b *pedigreeBuilder) brokenBehind(ids ...string) []string {
	var out []string
	for _, id := range ids {
		for _, a := range append([]string{id}, b.ped.Ancestors(id)...) {
			if w, ok := b.broken[a]; ok && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return out
}

// unread reports whether the pedigree within the window behind id was not
// read whole: id or an ancestor within MatingGenerations-1 generations,
// with no parents recorded, whose lineage was not read.
func (b *pedigreeBuilder) unread(id string) bool {
	if parentsUnknown(b.ped, id) && !b.read[id] {
		return true
	}
	return slices.ContainsFunc(b.ped.Leaves(id, MatingGenerations-1), func(a string) bool { return !b.read[a] }) ||
		len(b.doubtfulWithin(id)) > 0
}

// open reports whether id's own inbreeding may depend on pedigree not
// read: it or an ancestor has no parents recorded and its lineage was
// not read (it lies beyond the window, or the lookup failed), or is
// doubtful.
func (b *pedigreeBuilder) open(id string) bool {
	for _, a := range append([]string{id}, b.ped.Ancestors(id)...) {
		if parentsUnknown(b.ped, a) && !b.read[a] || b.doubtful(a) {
			return true
		}
	}
	return false
}

func (b *pedigreeBuilder) note(s string) {
	if !slices.Contains(b.notes, s) && len(b.notes) < 8 {
		b.notes = append(b.notes, s)
	}
}

// extend fetches the lineage of each subject, then of ancestors within
// MatingGenerations whose parents are unknown, and the own record of
// those a lineage showed with one parent (doubtful), round by round,
// stopping at the analysis's ceiling. A lineage NSIP does not have ends
// that branch.
func (b *pedigreeBuilder) extend(ctx context.Context, subjects []string, budget int) error {
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
					recs[i], errs[i] = b.r.details(ctx, id)
					return
				}
				if early != nil {
					got := <-early
					lins[i], errs[i] = got.l, got.err
					return
				}
				lins[i], errs[i] = b.r.lineage(ctx, id)
			}()
		}
		wg.Wait()
		for _, o := range own {
			if o {
				b.records++
			} else {
				b.lookups++
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
				if !slices.Contains(subjects, todo[i]) || b.optional[todo[i]] {
					continue // an ancestor without a lineage of its own
				}
				return About("lpn_id", todo[i], errs[i])
			case errors.Is(errs[i], ErrTimeLimit):
				b.note("stopped extending the pedigree at the call's time limit, so the COI may be understated; the lineages read are cached, so calling again reads further")
				timeUp = true
			case errors.Is(errs[i], ErrCeiling):
				b.note("stopped extending the pedigree at the ceiling of lookups, so the COI may be understated")
			case ctx.Err() != nil || slices.Contains(subjects, todo[i]) && !b.optional[todo[i]]:
				return errs[i]
			default:
				// One ancestor's lineage failing (NSIP busy or down) leaves
				// that branch where it is; the answer says so.
				b.note(fmt.Sprintf("the lineage of ancestor %s could not be read (%s), so the COI may be understated", todo[i], b.r.src.ErrorCode(errs[i])))
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
func (b *pedigreeBuilder) ownRecord(id string, d *nsip.AnimalDetails, err error) {
	var ne *nsip.Error
	switch {
	case err == nil:
		b.details(id, d)
		if parentsUnknown(b.ped, id) {
			b.read[id] = true // NSIP records no parents
		}
	case errors.As(err, &ne) && ne.Kind == nsip.KindNotFound:
		b.note(fmt.Sprintf("the lineage of %s lists one parent and NSIP has no record of %s to say whether it has another, so the COI may be understated", id, id))
	case errors.Is(err, ErrCeiling):
		b.note("stopped extending the pedigree at the ceiling of lookups, so the COI may be understated")
	default:
		b.note(fmt.Sprintf("the record of ancestor %s, whose lineage lists one parent, could not be read (%s), so the COI may be understated", id, b.r.src.ErrorCode(err)))
	}
}

// next are the ancestors whose lineages extend the pedigree, in the order
// they settle most. For a pair: nearest generation first (a near ancestor
// is in more paths, and weighs more in each). For a plan (bySubject): one
// subject's before the next's, so that lookups cut short by the ceiling
// leave whole pedigrees read rather than every one part read, since a pair
// counts only once both its animals' are; a plan lists its rams first, and
// each ram is in every ewe's pair.
func (b *pedigreeBuilder) next(subjects []string) []string {
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
				if g > 0 && (parentsUnknown(b.ped, a) && !b.fetched[a] && !b.read[a] || b.doubtful(a) && !b.recordSought[a]) {
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
		if b.bySubject {
			return cmp.Or(cmp.Compare(x.owner, y.owner), cmp.Compare(x.gen, y.gen), strings.Compare(x.id, y.id))
		}
		return cmp.Or(cmp.Compare(x.gen, y.gen), cmp.Compare(x.owner, y.owner), strings.Compare(x.id, y.id))
	})
	var out []string
	for i, l := range ls {
		// Subject by subject, a round reads a few subjects' next leaves,
		// whole, and is not cut across many (a few run at once).
		if b.bySubject && len(out) >= 2*analysisRound && l.owner != ls[i-1].owner {
			break
		}
		out = append(out, l.id)
	}
	return out
}

// analysisRound is about how many lookups a source runs at once.
const analysisRound = 4

func traitMap(ts []nsip.Trait) map[string]nsip.Trait {
	m := make(map[string]nsip.Trait, len(ts))
	for _, t := range ts {
		m[strings.ToUpper(t.Code)] = t
	}
	return m
}

func accPtr(t nsip.Trait) *float64 {
	if !t.HasAccuracy {
		return nil
	}
	v := round4(t.Accuracy)
	return &v
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// midparents averages the parents' EBVs of every trait both have; traits
// only one parent has are listed as unknown.
func midparents(s, d []nsip.Trait) (map[string]Midparent, []string) {
	sm, dm := traitMap(s), traitMap(d)
	out := map[string]Midparent{}
	var unknown []string
	for code, st := range sm {
		dt, ok := dm[code]
		if !ok {
			unknown = append(unknown, code)
			continue
		}
		out[code] = Midparent{EBV: round4((st.Value + dt.Value) / 2), SireAcc: accPtr(st), DamAcc: accPtr(dt)}
	}
	for code := range dm {
		if _, ok := sm[code]; !ok {
			unknown = append(unknown, code)
		}
	}
	slices.Sort(unknown)
	return out, unknown
}

func isSex(s, want string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	switch want {
	case "male":
		return s == "male" || s == "m" || s == "1" || s == "ram"
	default:
		return s == "female" || s == "f" || s == "2" || s == "ewe"
	}
}

// matingCOI is one pair's inbreeding over a gathered pedigree.
type matingCOI struct {
	COI       *float64
	Status    string // "unknown", "lower bound" or "complete to 6 generations"
	Ancestors []breeding.Contribution
	Itemised  bool // false when the pedigree had too many paths to list
}

// maxPathPairs bounds the path pairs Wright's method may enumerate; beyond
// it (pedigrees deep and inbred enough for millions of paths) the L-D-L'
// method gives the same COI without listing the ancestors' paths.
const maxPathPairs = breeding.MaxPathPairs

// assessCOI fails with breeding.ErrTooComplex on a pedigree too large to
// compute from, or with ctx's error.
func assessCOI(ctx context.Context, ped *breeding.Pedigree, sire, dam string) (matingCOI, error) {
	var coi float64
	var contrib []breeding.Contribution
	var err error
	itemised := ped.PathPairs(sire, dam) <= maxPathPairs
	if itemised {
		coi, contrib, err = ped.PathCOI(ctx, sire, dam)
		if errors.Is(err, breeding.ErrTooComplex) {
			itemised = false // too many animals along the paths to compare
		}
	}
	if !itemised {
		coi, err = ped.MatingCOI(ctx, sire, dam)
	}
	if err != nil {
		return matingCOI{}, err
	}
	if !coiKnown(ped, sire, dam, coi) {
		return matingCOI{Status: "unknown"}, nil
	}
	cs, cd := ped.Completeness(sire, MatingGenerations), ped.Completeness(dam, MatingGenerations)
	status := fmt.Sprintf("complete to %d generations", MatingGenerations)
	for i := range cs {
		if cs[i] < 1 || cd[i] < 1 {
			status = "lower bound: ancestors missing from the record could only add to it"
			break
		}
	}
	c := coi // exact binary fractions; rounding would hide small contributions such as 2^-11
	return matingCOI{COI: &c, Status: status, Ancestors: contrib, Itemised: itemised}, nil
}

// coiKnown reports whether a mating's computed COI means what it says. A
// COI of 0 where either parent has no recorded sire or dam is no evidence
// of unrelated parents, only of nothing to compute from: it is unknown.
func coiKnown(ped *breeding.Pedigree, sire, dam string, coi float64) bool {
	return coi != 0 || !parentsUnknown(ped, sire) && !parentsUnknown(ped, dam)
}

func parentsUnknown(ped *breeding.Pedigree, id string) bool {
	s, d := ped.Parents(id)
	return s == "" && d == ""
}

// runCheckMating reads both parents and their pedigrees, computes the
// lamb's COI and midparent EBVs, and answers within the budget.
func runCheckMating(ctx context.Context, r *call, a *matingArgs) (any, error) {
	sire, dam := a.Sire, a.Dam
	sireArg, damArg := matingParams.Name("Sire"), matingParams.Name("Dam")
	if sire == dam {
		return nil, &ArgError{param.FieldError{Field: damArg, Problem: "is the same animal as " + sireArg, Expected: "a different animal's LPN ID"}}
	}
	b := newPedigreeBuilder(r)
	b.prefetch(ctx, []string{sire, dam}, r.def.Ceiling-2)
	defer b.settle()
	sd, dd, err := readParents(ctx, r, sire, dam, sireArg, damArg)
	if err != nil {
		return nil, err
	}
	b.details(sire, sd)
	b.details(dam, dd)
	if err := b.extend(ctx, []string{sire, dam}, r.def.Ceiling-2); err != nil {
		var ab *AboutError
		if errors.As(err, &ab) {
			ab.Field = map[string]string{sire: sireArg, dam: damArg}[ab.Value.(string)]
		}
		return nil, err
	}
	warnings := parentWarnings(sire, dam, sd, dd)
	broken := b.brokenBehind(sire, dam)
	for _, w := range broken {
		warnings = append(warnings, w+", which no pedigree can hold, so the COI is not computed")
	}
	mc, tooComplex, err := mateCOI(ctx, r, b, sire, dam, broken)
	if err != nil {
		return nil, err
	}
	out := newMatingAnswer(r, b, mc, sire, dam, sd, dd)
	setCOI(out, mc, broken, tooComplex)
	out.Warnings = warnings
	if len(b.notes) > 0 {
		out.Notes = b.notes
	}
	// A pedigree with many common ancestors lists fewer of them rather than
	// fall to a generic summary; the count and the COI stay whole.
	for _, limit := range []int{5, 2, 0} {
		if !r.overBudget(ctx, out) {
			break
		}
		out.CommonAncestors = commonAncestors(mc.Ancestors, limit, b.open)
	}
	return out, nil
}

// readParents reads both parents' records at once, a failure of either
// attributed to its argument.
func readParents(ctx context.Context, r *call, sire, dam, sireArg, damArg string) (*nsip.AnimalDetails, *nsip.AnimalDetails, error) {
	var sd, dd *nsip.AnimalDetails
	var serr, derr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); sd, serr = r.details(ctx, sire) }()
	go func() { defer wg.Done(); dd, derr = r.details(ctx, dam) }()
	wg.Wait()
	if err := errors.Join(About(sireArg, sire, serr), About(damArg, dam, derr)); err != nil {
		return nil, nil, err
	}
	return sd, dd, nil
}

// parentWarnings flag a parent recorded as the other sex, and a mating
// across breeds, whose midparent EBVs mix scales.
func parentWarnings(sire, dam string, sd, dd *nsip.AnimalDetails) []string {
	var warnings []string
	if !isSex(sd.Gender, "male") {
		warnings = append(warnings, fmt.Sprintf("the sire %s is recorded as %q, not male", sire, sd.Gender))
	}
	if !isSex(dd.Gender, "female") {
		warnings = append(warnings, fmt.Sprintf("the dam %s is recorded as %q, not female", dam, dd.Gender))
	}
	if sd.BreedID != 0 && dd.BreedID != 0 && sd.BreedID != dd.BreedID {
		warnings = append(warnings, fmt.Sprintf("a crossbred mating (%s x %s): EBVs of different breeds are not on one scale, so the midparent values are indicative only", sd.Breed, dd.Breed))
	}
	return warnings
}

// mateCOI is the lamb's COI over the pedigree read, with its status made
// a lower bound wherever the pedigree may be missing what would add to
// it. A pedigree too complex to compute from leaves the COI unknown, and
// says why (the second result), rather than failing the answer.
func mateCOI(ctx context.Context, r *call, b *pedigreeBuilder, sire, dam string, broken []string) (matingCOI, string, error) {
	ped := b.ped
	mc, err := assessCOI(ctx, ped, sire, dam)
	var tooComplex string
	switch {
	case len(broken) > 0:
		mc = matingCOI{Status: "unknown"}
	case errors.Is(err, breeding.ErrTooComplex):
		// The rest of the answer stands; the COI is said to be unknown.
		mc, tooComplex = matingCOI{Status: "unknown"}, err.Error()
	case err != nil:
		return mc, "", err
	}
	if mc.COI != nil && mc.Itemised {
		if tab, err := ped.MatingCOI(ctx, sire, dam); err == nil && math.Abs(tab-*mc.COI) > 1e-6 {
			r.log.Error("path and L-D-L' COI disagree", "sire", sire, "dam", dam, "paths", *mc.COI, "ldl", tab)
		}
	}
	// An ancestor's own COI counts in every contribution through it; where
	// it rests on pedigree beyond the window it is only a lower bound.
	var openAnc []string
	for _, c := range mc.Ancestors {
		if b.open(c.Ancestor) {
			openAnc = append(openAnc, c.Ancestor)
		}
	}
	if len(openAnc) > 0 && strings.HasPrefix(mc.Status, "complete") {
		mc.Status = fmt.Sprintf("lower bound: the own COI of common ancestor %s rests on pedigree beyond the generations read and is counted as 0", strings.Join(openAnc, ", "))
	}
	// A parent NSIP's lineage left out is not a parent NSIP lacks: where
	// the records that would say were not read, the bound says so.
	if doubt := b.doubtfulWithin(sire, dam); len(doubt) > 0 && mc.COI != nil {
		named := strings.Join(doubt[:min(len(doubt), 3)], ", ")
		if len(doubt) > 3 {
			named += ", ..."
		}
		mc.Status = fmt.Sprintf("lower bound: NSIP's lineages show %s within the window with one parent and their own records were not read, so a parent left out could only add to it", named)
	}
	return mc, tooComplex, nil
}

// newMatingAnswer is the answer's parts that do not depend on whether the
// COI is known: the parents, ancestors, completeness and midparent EBVs.
func newMatingAnswer(r *call, b *pedigreeBuilder, mc matingCOI, sire, dam string, sd, dd *nsip.AnimalDetails) *MatingAnswer {
	ped := b.ped
	mid, unknown := midparents(sd.Traits, dd.Traits)
	out := &MatingAnswer{
		Rating:           "unknown",
		RatingThresholds: ratingThresholds,
		Basis:            mc.Status,
		Sire:             MatingParent{sire, sd.Gender, sd.Breed, sd.Status},
		Dam:              MatingParent{dam, dd.Gender, dd.Breed, dd.Status},
		CommonAncestors:  commonAncestors(mc.Ancestors, 10, b.open),
		Window: fmt.Sprintf("complete means every ancestor within %d generations behind each parent is recorded (the lineages of those in generation %d and nearer were read); "+
			"links through animals further back are not counted, and an ancestor's own COI that rests on them is shown as unknown", MatingGenerations, MatingGenerations-1),
		Completeness: Completeness{
			Generations: "1 = parents, 2 = grandparents, ...; share of ancestors recorded",
			Sire:        roundAll(ped.Completeness(sire, MatingGenerations)),
			Dam:         roundAll(ped.Completeness(dam, MatingGenerations)),
		},
		MidparentEBVs: mid,
		Computed: MatingComputed{
			Method: "Wright's coefficient: sum over common ancestors A and each pair of paths from sire and dam up to A sharing no other animal of " +
				"(1/2)^(n1+n2+1) (1+F_A), n1 and n2 the generations from sire and dam to A (0 if the parent is A); checked against the L-D-L' (additive relationship, Meuwissen and Luo) method",
			PedigreeAnimals:     ped.Len(),
			GenerationsSought:   MatingGenerations,
			LineagesRead:        b.lookups,
			Upstream:            r.upstream(),
			AncestorRecordsRead: b.records,
		},
	}
	if len(unknown) > 0 {
		out.MidparentUnknown = unknown
	}
	return out
}

// setCOI states out's COI and its rating, or why it is unknown: an unknown
// COI is never shown as 0.
func setCOI(out *MatingAnswer, mc matingCOI, broken []string, tooComplex string) {
	if mc.COI != nil {
		c, pct := *mc.COI, round4(*mc.COI*100)
		out.COI, out.Rating, out.COIPercent = &c, rating(c), &pct
	} else if len(broken) > 0 {
		out.COINote = "unknown: " + strings.Join(broken, "; ") + ", a record the pedigree cannot hold; it is not 0"
	} else if tooComplex != "" {
		out.COINote = "unknown: the pedigree NSIP gave behind these parents is too large to compute from (" + tooComplex + "); it is not 0"
	} else {
		out.COINote = "unknown: neither pedigree shows a link to the other and at least one parent has no recorded sire or dam, so there is nothing to compute from; it is not 0"
	}
	if mc.COI != nil && !mc.Itemised {
		out.CommonAncestors = CommonAncestors{NotItemised: fmt.Sprintf("more than %d pairs of paths, or too many animals along them; the COI is from the L-D-L' method", maxPathPairs)}
	}
}

// commonAncestors lists the largest contributions, each ancestor's path
// pairs grouped by their lengths, so that a heavily inbred pedigree with
// hundreds of paths still reads in a few lines.
func commonAncestors(cs []breeding.Contribution, limit int, open func(string) bool) CommonAncestors {
	const pathKinds = 4
	rows := make([]AncestorRow, 0, min(len(cs), limit))
	for _, c := range cs[:min(len(cs), limit)] {
		var groups [][3]int
		for _, p := range c.Paths {
			if n := len(groups); n > 0 && groups[n-1][0] == p[0] && groups[n-1][1] == p[1] {
				groups[n-1][2]++
				continue
			}
			i := slices.IndexFunc(groups, func(g [3]int) bool { return g[0] == p[0] && g[1] == p[1] })
			if i >= 0 {
				groups[i][2]++
				continue
			}
			groups = append(groups, [3]int{p[0], p[1], 1})
		}
		f := c.Inbreeding
		a := AncestorRow{LPNID: c.Ancestor, Paths: groups, AncestorCOI: &f, Contribution: c.Value}
		if open(c.Ancestor) {
			a.AncestorCOI = nil
			if f > 0 {
				a.AncestorCOIAtLeast = &f
			}
		}
		if len(groups) > pathKinds {
			a.Paths = groups[:pathKinds]
			for _, g := range groups[pathKinds:] {
				a.MorePaths += g[2]
			}
		}
		rows = append(rows, a)
	}
	count := len(cs)
	out := CommonAncestors{Count: &count, Top: rows, Paths: "[n1, n2, path pairs]: generations from sire and from dam up to the ancestor"}
	if len(cs) > limit {
		out.NotShown = len(cs) - limit
	}
	return out
}

func roundAll(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = round4(v)
	}
	return out
}

func (b *pedigreeBuilder) parents(id string) [2]string {
	s, d := b.ped.Parents(id)
	return [2]string{s, d}
}
