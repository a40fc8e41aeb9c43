package mating

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

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

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

var CheckMating = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.CheckMating, Title: "Check a planned mating", Method: "check_mating",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `Coefficient of inbreeding (COI) of a planned mating's lamb by Wright's method, over NSIP's pedigree extended to at least 6 generations behind each parent ` +
			`(at most 60 NSIP lookups). Answers {"coi":0.125,...} with the common ancestors and their contributions, pedigree completeness, a rating and midparent EBVs ` +
			`(400-900 tokens); "coi" is null and "rating" "unknown" where no link shows and a pedigree is missing. ` +
			`Arguments: sire_lpn_id and dam_lpn_id, LPN IDs such as "6402382024NCS310". Next: ` + toolname.PlanMatings + ` for many ewes.`,
		Args: matingParams,
	},
	Ceiling: 60,
	Answers: []reflect.Type{reflect.TypeFor[MatingAnswer]()},
	Run:     analysis.Typed(runCheckMating),
}

// Args are nsip_check_mating's arguments, described once: the schema
// and validation derive from them (matingParams), and the run reads them.
type Args struct {
	Sire string `json:"sire_lpn_id"`
	Dam  string `json:"dam_lpn_id"`
	param.Budget
}

var matingParams = param.MustStruct[Args](param.Tables(
	param.BudgetTable,
	param.Of(func(a *Args) param.Described {
		return param.Described{&a.Sire: lpnField(nsiparg.ExampleLPN), &a.Dam: lpnField(nsiparg.ExampleEwe)}
	}),
))

// lpnField is an argument that names one animal by LPN ID, upper-cased as
// NSIP writes them; the description says what it is.
func lpnField(example string) param.Spec {
	return param.Spec{Example: example, MinLen: nsip.MinLPNIDLength, MaxLen: nsip.MaxLPNIDLength, Pattern: param.AlnumPattern, Upper: true, Quiet: true}
}

// midparents averages the parents' EBVs of every trait both have; traits
// only one parent has are listed as unknown.
func midparents(s, d []nsip.Trait) (map[string]Midparent, []string) {
	sm, dm := facts.TraitMap(s), facts.TraitMap(d)
	out := map[string]Midparent{}
	var unknown []string
	for code, st := range sm {
		dt, ok := dm[code]
		if !ok {
			unknown = append(unknown, code)
			continue
		}
		out[code] = Midparent{EBV: facts.Round4((st.Value + dt.Value) / 2), SireAcc: facts.AccPtr(st), DamAcc: facts.AccPtr(dt)}
	}
	for code := range dm {
		if _, ok := sm[code]; !ok {
			unknown = append(unknown, code)
		}
	}
	slices.Sort(unknown)
	return out, unknown
}

// runCheckMating reads both parents and their pedigrees, computes the
// lamb's COI and midparent EBVs, and answers within the budget.
func runCheckMating(ctx context.Context, r *analysis.Call, a *Args) (any, error) {
	sire, dam := a.Sire, a.Dam
	sireArg, damArg := matingParams.Name("Sire"), matingParams.Name("Dam")
	if sire == dam {
		// The example mates the sire with another animal: repeating the
		// pair refused would be no example of a call that works.
		other := nsiparg.ExampleEwe
		if sire == other {
			other = nsiparg.ExampleLPN
		}
		return nil, &analysis.FixedArgError{ArgError: analysis.ArgError{FieldError: param.FieldError{Field: damArg, Problem: "is the same animal as " + sireArg, Expected: "a different animal's LPN ID"}},
			Fix: []param.Edit{param.Assign(damArg, other)}}
	}
	b := pedigree.NewBuilder(r)
	if !pedigree.MayHold(ctx, r, sire) && !pedigree.MayHold(ctx, r, dam) {
		b.Prefetch(ctx, []string{sire, dam}, r.Def.Ceiling-2)
	}
	defer b.Settle()
	sd, dd, err := readParents(ctx, r, sire, dam, sireArg, damArg)
	if err != nil {
		return nil, err
	}
	b.Details(sire, sd)
	b.Details(dam, dd)
	// The parents' records are NSIP's own even with the breed's pass
	// held: the pass keeps no accuracies, which the midparent EBVs show.
	held, err := pedigree.HeldFor(ctx, r, cmp.Or(sd.BreedID, dd.BreedID))
	if err != nil {
		return nil, err
	}
	// With the breed's pass kept, the pedigree of each parent it holds is
	// the breed's, whole; only a parent it lacks has lineages read.
	subjects := []string{sire, dam}
	if held != nil {
		b.Seed(held, sire, dam)
		subjects = held.Absent(subjects)
	}
	if err := b.Extend(ctx, subjects, r.Def.Ceiling-2); err != nil {
		var ab *analysis.AboutError
		if errors.As(err, &ab) {
			ab.Field = map[string]string{sire: sireArg, dam: damArg}[ab.Value.(string)]
		}
		return nil, err
	}
	warnings := parentWarnings(sire, dam, sd, dd)
	broken := b.BrokenBehind(sire, dam)
	for _, w := range broken {
		warnings = append(warnings, w+", which no pedigree can hold, so the COI is not computed")
	}
	mc, tooComplex, err := mateCOI(ctx, r, b, sire, dam, broken)
	if err != nil {
		return nil, err
	}
	whole := held != nil && len(subjects) == 0 && len(broken) == 0
	if whole {
		mc, tooComplex = wholeCOI(r, held, mc, sire, dam), ""
	}
	out := newMatingAnswer(r, b, mc, sire, dam, sd, dd)
	setCOI(out, mc, broken, tooComplex)
	if held != nil {
		fromPass(out, held, sire, dam, subjects, whole)
	}
	out.Warnings = warnings
	out.TimeLimit = r.TimeLimitCut(analysis.SetArgs{}, "the pedigree was extended no further (notes), so the COI and common ancestors rest on what was read")
	if len(b.Notes) > 0 {
		out.Notes = b.Notes
	}
	// A pedigree with many common ancestors lists fewer of them rather than
	// fall to a generic summary; the count and the COI stay whole.
	for _, limit := range []int{5, 2, 0} {
		if out.CommonAncestors.Count == nil || !r.OverBudget(ctx, out) {
			break
		}
		out.CommonAncestors = commonAncestors(mc.Ancestors, limit, b.Open)
	}
	return out, nil
}

// readParents reads both parents' records at once, a failure of either
// attributed to its argument.
func readParents(ctx context.Context, r *analysis.Call, sire, dam, sireArg, damArg string) (*nsip.AnimalDetails, *nsip.AnimalDetails, error) {
	var sd, dd *nsip.AnimalDetails
	var serr, derr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); sd, serr = r.Details(ctx, sire) }()
	go func() { defer wg.Done(); dd, derr = r.Details(ctx, dam) }()
	wg.Wait()
	if err := errors.Join(analysis.About(sireArg, sire, serr), analysis.About(damArg, dam, derr)); err != nil {
		return nil, nil, err
	}
	return sd, dd, nil
}

// parentWarnings flag a parent recorded as the other sex, and a mating
// across breeds, whose midparent EBVs mix scales.
func parentWarnings(sire, dam string, sd, dd *nsip.AnimalDetails) []string {
	var warnings []string
	if facts.OtherSex(sd.Gender, "male") {
		warnings = append(warnings, fmt.Sprintf("the sire %s is recorded as %q, not male", sire, sd.Gender))
	}
	if facts.OtherSex(dd.Gender, "female") {
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
func mateCOI(ctx context.Context, r *analysis.Call, b *pedigree.Builder, sire, dam string, broken []string) (pedigree.COI, string, error) {
	ped := b.Ped
	mc, err := pedigree.AssessCOI(ctx, ped, sire, dam)
	var tooComplex string
	switch {
	case len(broken) > 0:
		mc = pedigree.COI{Status: "unknown"}
	case errors.Is(err, breeding.ErrTooComplex):
		// The rest of the answer stands; the COI is said to be unknown.
		mc, tooComplex = pedigree.COI{Status: "unknown"}, err.Error()
	case err != nil:
		return mc, "", err
	}
	if mc.COI != nil && mc.Itemised {
		if tab, err := ped.MatingCOI(ctx, sire, dam); err == nil && math.Abs(tab-*mc.COI) > 1e-6 {
			r.Log.Error("path and L-D-L' COI disagree", "sire", sire, "dam", dam, "paths", *mc.COI, "ldl", tab)
		}
	}
	// An ancestor's own COI counts in every contribution through it; where
	// it rests on pedigree beyond the window it is only a lower bound.
	var openAnc []string
	for _, c := range mc.Ancestors {
		if b.Open(c.Ancestor) {
			openAnc = append(openAnc, c.Ancestor)
		}
	}
	if len(openAnc) > 0 && strings.HasPrefix(mc.Status, "complete") {
		mc.Status = fmt.Sprintf("lower bound: the own COI of common ancestor %s rests on pedigree beyond the generations read and is counted as 0", strings.Join(openAnc, ", "))
	}
	// A parent NSIP's lineage left out is not a parent NSIP lacks: where
	// the records that would say were not read, the bound says so.
	if doubt := b.DoubtfulWithin(sire, dam); len(doubt) > 0 && mc.COI != nil {
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
func newMatingAnswer(r *analysis.Call, b *pedigree.Builder, mc pedigree.COI, sire, dam string, sd, dd *nsip.AnimalDetails) *MatingAnswer {
	ped := b.Ped
	mid, unknown := midparents(sd.Traits, dd.Traits)
	out := &MatingAnswer{
		Rating:           "unknown",
		RatingThresholds: ratingThresholds,
		Basis:            mc.Status,
		Sire:             MatingParent{sire, sd.Gender, sd.Breed, sd.Status},
		Dam:              MatingParent{dam, dd.Gender, dd.Breed, dd.Status},
		CommonAncestors:  commonAncestors(mc.Ancestors, 10, b.Open),
		Window: fmt.Sprintf("complete means every ancestor within %d generations behind each parent is recorded (the lineages of those in generation %d and nearer were read); "+
			"links through animals further back are not counted, and an ancestor's own COI that rests on them is shown as unknown", pedigree.MatingGenerations, pedigree.MatingGenerations-1),
		Completeness: Completeness{
			Generations: "1 = parents, 2 = grandparents, ...; share of ancestors recorded",
			Sire:        roundAll(ped.Completeness(sire, pedigree.MatingGenerations)),
			Dam:         roundAll(ped.Completeness(dam, pedigree.MatingGenerations)),
		},
		MidparentEBVs: mid,
		Computed: MatingComputed{
			Method: "Wright's coefficient: sum over common ancestors A and each pair of paths from sire and dam up to A sharing no other animal of " +
				"(1/2)^(n1+n2+1) (1+F_A), n1 and n2 the generations from sire and dam to A (0 if the parent is A); checked against the L-D-L' (additive relationship, Meuwissen and Luo) method",
			PedigreeAnimals:     ped.Len(),
			GenerationsSought:   pedigree.MatingGenerations,
			LineagesRead:        b.LineagesRead(),
			Upstream:            r.Upstream(),
			AncestorRecordsRead: b.RecordsRead(),
		},
	}
	if len(unknown) > 0 {
		out.MidparentUnknown = unknown
	}
	return out
}

// setCOI states out's COI and its rating, or why it is unknown: an unknown
// COI is never shown as 0.
func setCOI(out *MatingAnswer, mc pedigree.COI, broken []string, tooComplex string) {
	if mc.COI != nil {
		c, pct := *mc.COI, facts.Round4(*mc.COI*100)
		out.COI, out.Rating, out.COIPercent = &c, rating(c), &pct
	} else if len(broken) > 0 {
		out.COINote = "unknown: " + strings.Join(broken, "; ") + ", a record the pedigree cannot hold; it is not 0"
	} else if tooComplex != "" {
		out.COINote = "unknown: the pedigree NSIP gave behind these parents is too large to compute from (" + tooComplex + "); it is not 0"
	} else {
		out.COINote = "unknown: neither pedigree shows a link to the other and at least one parent has no recorded sire or dam, so there is nothing to compute from; it is not 0"
	}
	if mc.COI == nil {
		// No COI, no search for common ancestors either: an empty list
		// would read as "unrelated" of a pair that may be kin.
		out.CommonAncestors = CommonAncestors{Unknown: "not counted, as the COI is not computed (coi_note says why); the parents may share ancestors"}
	}
	if mc.COI != nil && !mc.Itemised {
		out.CommonAncestors = CommonAncestors{NotItemised: fmt.Sprintf("more than %d pairs of paths, or too many animals along them; the COI is from the L-D-L' method", pedigree.MaxPathPairs)}
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
		out[i] = facts.Round4(v)
	}
	return out
}

// wholeCOI is the lamb's COI over the breed's whole pedigree, held in its
// pass: the parents' coancestry, exact over every ancestor NSIP records.
// The common ancestors and their paths are Wright's over the same
// pedigree (mc, from the builder seeded with it); where they were
// computed, their sum must be the coancestry, and a difference is logged.
func wholeCOI(r *analysis.Call, held *pedigree.Held, mc pedigree.COI, sire, dam string) pedigree.COI {
	c := held.COIs([][2]string{{sire, dam}})[[2]string{sire, dam}]
	if c != nil && mc.COI != nil && mc.Itemised && math.Abs(*c-*mc.COI) > 1e-6 {
		r.Log.Error("path and breed-pedigree COI disagree", "sire", sire, "dam", dam, "paths", *mc.COI, "breed", *c)
	}
	out := pedigree.COI{COI: c, Status: "unknown", Ancestors: mc.Ancestors, Itemised: mc.Itemised && mc.COI != nil}
	if c != nil {
		out.Status = "exact over the breed's whole pedigree as NSIP records it: every recorded ancestor, however far back (computed.via says how complete each parent's pedigree is)"
	}
	return out
}

// fromPass says in out that the breed's pass held the parents' pedigrees
// (both, when whole), and which parent had lineages read instead.
func fromPass(out *MatingAnswer, held *pedigree.Held, sire, dam string, absent []string, whole bool) {
	out.Computed.Via = held.Via([]string{sire, dam}, absent, true)
	if !whole {
		return
	}
	out.Window = "the breed's whole pedigree from its pass: every ancestor NSIP records, however far back; completeness is the share known in the nearest " +
		fmt.Sprint(pedigree.MatingGenerations) + " generations"
	out.Computed.Method = "the parents' coancestry (half their additive relationship) over the breed's whole pedigree by Colleau's method, exact; " +
		"common ancestors and their paths by Wright's method over the same pedigree"
	out.Computed.GenerationsSought = 0
	if out.COI != nil && out.CommonAncestors.NotItemised != "" {
		out.CommonAncestors.NotItemised = fmt.Sprintf("more than %d pairs of paths, or too many animals along them, to list; the COI is the coancestry over the breed's whole pedigree", pedigree.MaxPathPairs)
	}
}
