package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

const planCeiling = 400

var PlanMatings = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.PlanMatings, Title: "Plan matings", Method: "plan_matings",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `Assign ewes to rams maximizing the lambs' total index sum(weight x midparent EBV), mating as many ewes as max_coi and the rams' limits allow ` +
			`(exact min-cost flow, not greedy); gives each mating's COI and lamb EBVs, and the ewes no ram may take (about 20 tokens a ewe; ` +
			fmt.Sprintf("at most %d NSIP lookups). ", planCeiling) +
			`coi_only: true instead of weights: only each ram x ewe COI. ` +
			`Arguments: ram_lpn_ids (1-10); ewe_lpn_ids (1-100); weights as for ` + toolname.RankAnimals + `, e.g. {"WWT":1,"BWT":-0.5}; ` +
			`max_coi, the largest lamb COI as a fraction 0..1 (0.0625: first cousins); max_ewes_per_ram 1..100. Next: ` + toolname.CheckMating + ` for one pair.`,
		Args: Params,
	},
	Ceiling: planCeiling,
	Answers: []reflect.Type{reflect.TypeFor[PlanAnswer](), reflect.TypeFor[COIMatrixAnswer]()},
	Run:     analysis.Typed(runPlan),
}

// Args are nsip_plan_matings's arguments, described once: the schema
// and validation derive from them (Params), and the run reads them.
// Weights left out are asked of the user when the client can be asked.
type Args struct {
	COIOnly   bool             `json:"coi_only,omitempty"` // the COI matrix alone (matrix.go)
	MaxCOI    float64          `json:"max_coi,omitempty"`
	MaxPerRam int              `json:"max_ewes_per_ram,omitempty"`
	Rams      []string         `json:"ram_lpn_ids"`
	Ewes      []string         `json:"ewe_lpn_ids"`
	Weights   breeding.Weights `json:"weights,omitempty"`
	param.Budget
}

var Params = param.MustStruct[Args](param.Tables(
	param.BudgetTable,
	param.Of(func(a *Args) param.Described {
		return param.Described{
			&a.COIOnly:   {Example: true, OmitFalse: true},
			&a.MaxCOI:    {Default: 0.0625, Example: 0.0625, Min: param.Bound(0), Max: param.Bound(1), Quiet: true},
			&a.MaxPerRam: {Default: 50, Example: 50, Min: param.Bound(1), Max: param.Bound(100), Quiet: true},
			&a.Rams:      {List: &param.List{MinItems: 1, MaxItems: 10, Item: nsiparg.LPNs, Example: []string{nsiparg.ExampleLPN}}},
			&a.Ewes:      {List: &param.List{MinItems: 1, MaxItems: 100, Item: nsiparg.LPNs, Example: []string{nsiparg.ExampleEwe}}},
			&a.Weights:   {List: &planWeights},
		}
	}),
))

// planWeights are the weights, which coi_only stands in for: the COI
// matrix needs no objective.
var planWeights = func() param.List { l := analysis.WeightsParam; l.Unless = "coi_only"; return l }()

// sharedTraits are the EBV codes every one of ds carries.
func sharedTraits(ds []*nsip.AnimalDetails) []string {
	var out []string
	for i, d := range ds {
		have := facts.EBVMap(d.Traits)
		if i == 0 {
			out = slices.Collect(maps.Keys(have))
			continue
		}
		out = slices.DeleteFunc(out, func(c string) bool { _, ok := have[c]; return !ok })
	}
	return out
}

// planRun is one nsip_plan_matings call carried through its steps: each
// step reads what the ones before it left here, so runPlan reads as the
// order of the work and no step needs a dozen parameters.
type planRun struct {
	r                *analysis.Call
	rams, ewes       []string
	maxCOI           float64
	perRam           int
	coiOnly          bool // the COI matrix, no plan (matrix.go)
	ramsArg, ewesArg string
	w                breeding.Weights
	chosen           analysis.SetArgs // what the user chose in the form, if asked
	rd, ed           []*nsip.AnimalDetails
	ramEBV, eweEBV   []map[string]float64
	warnings         []string
	noIndex          []string // ewes without every weighted EBV
	b                *pedigree.Builder
	held             *pedigree.Held // the breed's whole pedigree, when its pass is kept
	absent           []string       // animals the held pass lacks, whose lineages are read
	coi              [][]*float64
	pairs            [][]breeding.Pair
	unread           map[string]bool
	unresolved       [][2]string
	plan             breeding.Assignment
	total            float64
}

// runPlan reads the animals and their pedigrees, scores every ram-ewe
// pair, solves the assignment, and answers within the budget.
func runPlan(ctx context.Context, r *analysis.Call, a *Args) (any, error) {
	p := &planRun{r: r, rams: a.Rams, ewes: a.Ewes, maxCOI: a.MaxCOI, perRam: a.MaxPerRam, coiOnly: a.COIOnly,
		ramsArg: Params.Name("Rams"), ewesArg: Params.Name("Ewes")}
	if err := p.checkArgs(); err != nil {
		return nil, err
	}
	p.b = pedigree.NewBuilder(r)
	if (a.Weights != nil || a.COIOnly) && !pedigree.MayHold(ctx, r, p.rams[0]) {
		// Weights left to the user may end the call at their form: the
		// lineages are asked ahead only when none is.
		p.b.Prefetch(ctx, p.subjects(), planCeiling-len(p.subjects()))
	}
	defer p.b.Settle()
	if err := p.readRams(ctx, a.Weights); err != nil {
		return nil, err
	}
	ed, err := analysis.DetailsKnown(ctx, r, p.ewesArg, p.ewes, p.held.Record)
	if err != nil {
		return nil, err
	}
	p.ed = ed
	if err := p.scoreRams(); err != nil {
		return nil, err
	}
	p.scoreEwes()
	if err := p.readPedigree(ctx); err != nil {
		return nil, err
	}
	p.markUnread()
	if err := p.pairUp(ctx); err != nil {
		return nil, err
	}
	if p.coiOnly {
		return p.matrix(ctx), nil
	}
	capacity := slices.Repeat([]int{p.perRam}, len(p.rams))
	if p.plan, err = breeding.AssignLowCOI(p.pairs, capacity); err != nil {
		return nil, err
	}
	// The total is over lambs whose index is known: a ewe without one adds
	// only the ram's half, which is no lamb's index.
	for ei, ri := range p.plan.RamOf {
		if ri >= 0 && !slices.Contains(p.noIndex, p.ewes[ei]) {
			p.total += p.pairs[ri][ei].Value
		}
	}
	return p.answer(ctx), nil
}

// subjects are the rams, then the ewes.
func (p *planRun) subjects() []string { return append(slices.Clone(p.rams), p.ewes...) }

// checkArgs refuses what no reading can make sense of: a COI limit out of
// range, an animal listed as both ram and ewe, or a plan's arguments
// beside coi_only.
func (p *planRun) checkArgs() error {
	if p.coiOnly {
		if err := checkMatrixArgs(p.r); err != nil {
			return err
		}
	}
	if err := pedigree.COILimitArg(pedigree.COILimitField.Name, p.maxCOI); err != nil {
		return err
	}
	for i, e := range p.ewes {
		if slices.Contains(p.rams, e) {
			return &analysis.ArgError{FieldError: param.FieldError{Field: fmt.Sprintf("%s[%d]", p.ewesArg, i), Problem: e + " is also listed as a ram", Expected: "each animal in one list"}}
		}
	}
	return nil
}

// readRams reads the rams (from their breed's pass where one is kept),
// then settles the weights and COI limit, since the form asking for them
// offers only the traits the rams carry.
func (p *planRun) readRams(ctx context.Context, given breeding.Weights) error {
	rd, held, err := pedigree.Records(ctx, p.r, p.ramsArg, p.rams, 0)
	if err != nil {
		return err
	}
	p.rd, p.held = rd, held
	if p.coiOnly {
		return nil // no objective to ask for
	}
	// Weights left to the user are asked once the rams are known: the form
	// offers the traits every ram carries, which are the ones a plan can
	// weigh, and the COI limit too when the call did not set it.
	var also []param.Spec
	if !p.r.Sent.Has(pedigree.COILimitField.Name) {
		also = append(also, pedigree.COILimitField)
	}
	var more analysis.Choices
	if p.w, more, err = p.r.Weights(ctx, given, "to choose a ram for each ewe", sharedTraits(rd), also...); err != nil {
		return err
	}
	if given == nil {
		p.chosen.Weights = p.w
	}
	if v, ok := more.Numbers[pedigree.COILimitField.Name]; ok {
		if err := pedigree.CheckCOILimit(v); err != nil {
			return &analysis.AnswerError{Errs: []param.FieldError{err.FieldError}}
		}
		p.maxCOI, p.chosen.MaxCOI = v, &v
	}
	return nil
}

// scoreRams keeps each ram's EBVs, refusing a ram without every weighted
// one (his lambs could not be compared), and warns of a ram recorded as
// another sex or as dead or culled.
func (p *planRun) scoreRams() error {
	p.ramEBV = make([]map[string]float64, len(p.rams))
	for i, d := range p.rd {
		p.ramEBV[i] = facts.EBVMap(d.Traits)
		if _, missing, ok := p.w.Index(p.ramEBV[i]); !ok {
			return &analysis.ArgError{FieldError: param.FieldError{Field: fmt.Sprintf("%s[%d]", p.ramsArg, i),
				Problem:  fmt.Sprintf("ram %s has no EBV for %s, so his lambs cannot be compared", p.rams[i], strings.Join(missing, ", ")),
				Expected: "rams with every weighted trait, or weights only on traits they have"}}
		}
		if facts.OtherSex(d.Gender, "male") {
			p.warnings = append(p.warnings, fmt.Sprintf("ram %s is recorded as %q", p.rams[i], d.Gender))
		}
		if w := facts.GoneWarning("ram", p.rams[i], d.Status); w != "" {
			p.warnings = append(p.warnings, w)
		}
	}
	return nil
}

// scoreEwes keeps each ewe's EBVs; a ewe without every weighted one is
// still planned, and named, and the same warnings as the rams' are given.
func (p *planRun) scoreEwes() {
	p.eweEBV = make([]map[string]float64, len(p.ewes))
	for i, d := range p.ed {
		p.eweEBV[i] = facts.EBVMap(d.Traits)
		if _, _, ok := p.w.Index(p.eweEBV[i]); !ok {
			p.noIndex = append(p.noIndex, p.ewes[i])
		}
		if facts.OtherSex(d.Gender, "female") {
			p.warnings = append(p.warnings, fmt.Sprintf("ewe %s is recorded as %q", p.ewes[i], d.Gender))
		}
		if w := facts.GoneWarning("ewe", p.ewes[i], d.Status); w != "" {
			p.warnings = append(p.warnings, w)
		}
	}
}

// readPedigree gathers every animal's pedigree within the lookup ceiling,
// attributing a failure to the list entry it came from.
func (p *planRun) readPedigree(ctx context.Context) error {
	b := p.b
	b.BySubject, b.Distrust = true, true
	for i, d := range p.rd {
		b.Details(p.rams[i], d)
	}
	for i, d := range p.ed {
		b.Details(p.ewes[i], d)
	}
	subjects, err := p.holdPedigree(ctx)
	if err != nil {
		return err
	}
	if err := b.Extend(ctx, subjects, planCeiling-len(p.rams)-len(p.ewes)); err != nil {
		var ab *analysis.AboutError
		if errors.As(err, &ab) {
			id := ab.Value.(string)
			if i := slices.Index(p.rams, id); i >= 0 {
				ab.Field = fmt.Sprintf("%s[%d]", p.ramsArg, i)
			} else if i := slices.Index(p.ewes, id); i >= 0 {
				ab.Field = fmt.Sprintf("ewe_lpn_ids[%d]", i)
			}
		}
		return err
	}
	return nil
}

// markUnread finds the animals whose pedigree was not read whole or holds
// a broken record, warning once of each broken record.
func (p *planRun) markUnread() {
	p.unread = map[string]bool{}
	for _, id := range append(slices.Clone(p.rams), p.ewes...) {
		if _, whole := p.held.Animal(id); whole {
			continue // the breed's pedigree, held whole
		}
		broken := p.b.BrokenBehind(id)
		for _, w := range broken {
			if w += ", which no pedigree can hold"; !slices.Contains(p.warnings, w) {
				p.warnings = append(p.warnings, w)
			}
		}
		if p.b.Unread(id) || len(broken) > 0 {
			p.unread[id] = true
		}
	}
}

// pairUp scores every ram-ewe pair for the assignment.
//
// The lamb's index is the mean of the parents' indexes; a ewe without
// every weighted EBV adds the same unknown to each ram's lamb, so the rams
// are compared on their own halves and her lamb's index is reported
// unknown.
// A pair whose pedigree was not read whole within the window (the ceiling
// ran out, a lineage failed, an ancestor shown with one parent whose own
// record was not read) or holds a broken record has a COI that might yet
// exceed max_coi: it is left out of the plan and named, unless what was
// read already puts it over. Its COI on what was read is only a lower
// bound, never a reason to mate.
func (p *planRun) pairUp(ctx context.Context) error {
	var err error
	if p.coi, err = p.lambCOIs(ctx); err != nil {
		return err
	}
	p.pairs = make([][]breeding.Pair, len(p.rams))
	for ri := range p.rams {
		p.pairs[ri] = make([]breeding.Pair, len(p.ewes))
		ramIdx, _, _ := p.w.Index(p.ramEBV[ri])
		for ei := range p.ewes {
			v := ramIdx / 2
			if eweIdx, _, ok := p.w.Index(p.eweEBV[ei]); ok {
				v += eweIdx / 2
			}
			c := p.coi[ri][ei]
			// An unknown COI is taken as the cap when settling ties, so a
			// pair of unknown inbreeding is never preferred for it.
			tie := p.maxCOI
			if c != nil {
				tie = *c
			}
			p.pairs[ri][ei] = breeding.Pair{Value: v, Allowed: c == nil || *c <= p.maxCOI+1e-12, COI: tie}
			if p.pairs[ri][ei].Allowed && (p.unread[p.rams[ri]] || p.unread[p.ewes[ei]]) {
				p.pairs[ri][ei].Allowed = false
				p.unresolved = append(p.unresolved, [2]string{p.rams[ri], p.ewes[ei]})
			}
		}
	}
	return nil
}

// answer is the plan whole when it fits the budget, else fitted to it.
//
// Per-pair EBVs are dropped, and said to be, when they would push the plan
// over the budget and into a generic summary; then whole rows, the totals
// and constraints kept, with the call that shows the rest. Either way
// every mating, EBVs and all, is the answer's complete data.
func (p *planRun) answer(ctx context.Context) any {
	whole := p.render(true, p.plan.Mated)
	if !p.r.OverBudget(ctx, whole) {
		return whole
	}
	out, _ := analysis.FitRows(ctx, p.r, p.plan.Mated, func(n int) *PlanAnswer {
		o := p.render(false, n)
		if n < p.plan.Mated {
			o.NotShown = p.r.RestCall(p.chosen, n, p.plan.Mated, fmt.Sprintf("the mated ewes after the first %d in ewe_lpn_ids order", n))
		}
		return o
	})
	return &full.Answer{Value: out, Table: planTable(whole, p.rams, p.plan.RamOf)}
}

// planRows are a plan's matings grouped by ram, and its unmated ewes
// grouped by reason, as one rendering shows them.
type planRows struct {
	columns    []string
	byRam      map[string][][]any
	unassigned map[string][]string
	unknownCOI int
}

// rows lays out the matings, the first rows of them and with or without
// the lambs' EBVs; unmated ewes are listed whatever rows is.
func (p *planRun) rows(withEBVs bool, rows int) planRows {
	codes := p.w.Codes()
	out := planRows{columns: []string{"ewe", "coi", "lamb_index"}, byRam: map[string][][]any{}, unassigned: map[string][]string{}}
	if withEBVs {
		for _, c := range codes {
			out.columns = append(out.columns, "lamb_"+c)
		}
	}
	// Unmated ewes are grouped by reason, so a hundred of them stay short.
	for ei, ri := range p.plan.RamOf {
		if ri < 0 {
			why := p.unmatedWhy(ei)
			out.unassigned[why] = append(out.unassigned[why], p.ewes[ei])
			continue
		}
		if rows == 0 {
			continue // left out to fit; unassigned ewes are still listed
		}
		rows--
		var lambIdx any = "unknown"
		if !slices.Contains(p.noIndex, p.ewes[ei]) {
			lambIdx = facts.Round4(p.pairs[ri][ei].Value)
		}
		var c any = "unknown"
		if p.coi[ri][ei] != nil {
			c = *p.coi[ri][ei]
		} else {
			out.unknownCOI++
		}
		row := []any{p.ewes[ei], c, lambIdx}
		if withEBVs {
			for _, code := range codes {
				ev, ok := p.eweEBV[ei][code]
				if !ok {
					row = append(row, "unknown")
					continue
				}
				row = append(row, facts.Round4((p.ramEBV[ri][code]+ev)/2))
			}
		}
		out.byRam[p.rams[ri]] = append(out.byRam[p.rams[ri]], row)
	}
	return out
}

// unmatedWhy says why ewe ei was left unmated.
func (p *planRun) unmatedWhy(ei int) string {
	switch {
	case slices.ContainsFunc(p.pairs, func(row []breeding.Pair) bool { return row[ei].Allowed }):
		return "every ram within max_coi already has max_ewes_per_ram ewes"
	case slices.ContainsFunc(p.unresolved, func(pr [2]string) bool { return pr[1] == p.ewes[ei] }):
		return "no ram is left whose lamb's COI with her is known to be within max_coi (see unresolved)"
	default:
		return "every ram's lamb would exceed max_coi"
	}
}

// render is the plan's answer showing its first rows matings, with or
// without the lambs' EBVs.
func (p *planRun) render(withEBVs bool, rows int) *PlanAnswer {
	t := p.rows(withEBVs, rows)
	out := &PlanAnswer{
		Columns:        t.columns,
		ByRam:          t.byRam,
		Mated:          p.plan.Mated,
		Ewes:           len(p.ewes),
		MaxCOI:         p.maxCOI,
		Weights:        p.w,
		TotalLambIndex: facts.Round4(p.total),
		Computed: PlanComputed{
			Method: "lamb index = sum(weight x (ram EBV + ewe EBV)/2); the most ewes that the COI cap and ram limits allow are mated, and among such plans one of largest total index is chosen (min-cost max-flow, exact), and among those of equal total the lowest highest lamb COI, then the lowest mean COI; " +
				"COI by the L-D-L' (additive relationship, Meuwissen and Luo) method over each animal's pedigree extended to 6 generations; a pair whose COI is unknown (NSIP records no parents to compute from) is allowed, marked, and counted at max_coi in ties; a pair whose pedigree was not read whole (an ancestor a lineage shows with one parent counts as read only once its own record is) is left out (unresolved)",
			PedigreeAnimals:     p.b.Ped.Len(),
			LineagesRead:        p.b.LineagesRead(),
			Upstream:            p.r.Upstream(),
			AncestorRecordsRead: p.b.RecordsRead(),
		},
	}
	p.pedigreeVia(&out.Computed)
	if len(p.unresolved) > 0 {
		unread := "a lineage unread, or an ancestor NSIP's lineage shows with one parent whose own record was not read"
		if u := p.r.Upstream(); u.TimeLimitReached {
			unread = fmt.Sprintf("the call's time limit of %d s passed before it was", u.TimeLimitSeconds)
		}
		out.Unresolved = &PlanUnresolved{
			Animals: slices.Sorted(maps.Keys(p.unread)),
			Pairs:   len(p.unresolved),
			Effect: fmt.Sprintf("the pedigree within %d generations behind these animals was not read whole (%s) or holds a broken record (see notes and warnings), so their lambs' COI on what was read is only a lower bound and might exceed max_coi; "+
				"their pairs within max_coi on what was read were left out of the plan; check one with "+toolname.CheckMating+" or plan fewer animals", pedigree.MatingGenerations, unread),
		}
	}
	effect := "the plan is of the pedigrees read"
	if out.Unresolved != nil {
		effect = fmt.Sprintf("%d pairs are left out as unresolved for it (unresolved), not for anything in their pedigrees", out.Unresolved.Pairs)
	}
	out.TimeLimit = p.r.TimeLimitCut(p.chosen, effect)
	out.UnknownCOIPairs = t.unknownCOI
	if len(t.unassigned) > 0 {
		out.Unassigned = t.unassigned
	}
	if len(p.noIndex) > 0 {
		out.EwesWithoutIndex = &EwesWithoutIndex{LPNIDs: p.noIndex, Effect: "their lambs' index is unknown and not in total_lamb_index; rams were chosen for them on the rams' own EBVs"}
	}
	if !withEBVs {
		out.LambEBVs = "left out to stay within the token budget; each is (ram EBV + ewe EBV)/2, or ask " + toolname.CheckMating + " for a pair"
	}
	out.Warnings = p.warnings
	if len(p.b.Notes) > 0 {
		out.Notes = p.b.Notes
	}
	return out
}

// planTable is every mating of a plan rendered whole, one row per ewe in
// ewe_lpn_ids order, her ram first.
func planTable(whole *PlanAnswer, rams []string, ramOf []int) *full.Table {
	next := map[string]int{}
	t := &full.Table{Columns: append([]string{"ram"}, whole.Columns...)}
	for _, ri := range ramOf {
		if ri < 0 {
			continue
		}
		ram := rams[ri]
		t.Rows = append(t.Rows, append([]any{ram}, whole.ByRam[ram][next[ram]]...))
		next[ram]++
	}
	return t
}
