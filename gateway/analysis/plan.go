package analysis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

const planCeiling = 400

var PlanMatings = &Def{
	Name: "nsip_plan_matings", Title: "Plan matings", Method: "plan_matings",
	Desc: `Assign ewes to rams maximizing the lambs' total index sum(weight x midparent EBV), mating as many ewes as max_coi and the rams' limits allow ` +
		`(exact min-cost flow, not greedy); gives each pair's COI and predicted EBVs, and the ewes no ram may take (about 20 tokens a ewe; ` +
		fmt.Sprintf("reads each animal's record and pedigree, at most %d NSIP lookups, so a large plan takes a while). ", planCeiling) +
		`Arguments: ram_lpn_ids (1-10), e.g. ["6402382024NCS310"]; ewe_lpn_ids (1-100), e.g. ["6402382022NCS087"]; weights as for nsip_rank_animals, e.g. {"WWT":1,"BWT":-0.5}; ` +
		`max_coi, the largest lamb COI as a fraction 0..1 (0.0625: first cousins); max_ewes_per_ram 1..100. Next: nsip_check_mating for one pair in detail.`,
	Args:    planParams,
	Ceiling: planCeiling,
	Answers: []reflect.Type{reflect.TypeFor[PlanAnswer]()},
	Run:     typed(runPlan),
}

// planArgs are nsip_plan_matings's arguments, described once: the schema
// and validation derive from them (planParams), and the run reads them.
// Weights left out are asked of the user when the client can be asked.
type planArgs struct {
	MaxCOI    float64          `json:"max_coi,omitempty"`
	MaxPerRam int              `json:"max_ewes_per_ram,omitempty"`
	Rams      []string         `json:"ram_lpn_ids"`
	Ewes      []string         `json:"ewe_lpn_ids"`
	Weights   breeding.Weights `json:"weights"`
}

var planParams = param.MustStruct[planArgs](param.Table{
	reflect.TypeFor[planArgs](): {
		"MaxCOI":    {Default: 0.0625, Example: 0.0625},
		"MaxPerRam": {Default: 50, Example: 50, Min: param.Bound(1), Max: param.Bound(100), Quiet: true},
		"Rams":      {List: &param.List{MinItems: 1, MaxItems: 10, Item: "lpn", Example: []string{param.ExampleLPN}}},
		"Ewes":      {List: &param.List{MinItems: 1, MaxItems: 100, Item: "lpn", Example: []string{"6402382022NCS087"}}},
		"Weights":   {List: &weightsParam},
	},
})

// coiLimitField asks the user for max_coi beside the weights.
var coiLimitField = param.Spec{Name: "max_coi", Kind: param.Number, Example: 0.0625, Min: param.Bound(0), Max: param.Bound(1),
	Desc: "Highest inbreeding (COI) allowed for any lamb, a fraction from 0 to 1. 0.0625 (6.25%, as from first cousins) is the usual limit and is used when this is left empty."}

func checkCOILimit(v float64) *ArgError {
	if v < 0 || v > 1 {
		return &ArgError{param.FieldError{Field: coiLimitField.Name, Problem: fmt.Sprintf("must be a fraction from 0 to 1, got %g", v), Expected: "e.g. 0.0625 (6.25%)"}}
	}
	return nil
}

// sharedTraits are the EBV codes every one of ds carries.
func sharedTraits(ds []*nsip.AnimalDetails) []string {
	var out []string
	for i, d := range ds {
		have := ebvMap(d.Traits)
		if i == 0 {
			out = slices.Collect(maps.Keys(have))
			continue
		}
		out = slices.DeleteFunc(out, func(c string) bool { _, ok := have[c]; return !ok })
	}
	return out
}

func runPlan(ctx context.Context, r *call, a *planArgs) (any, error) {
	rams, ewes := a.Rams, a.Ewes
	maxCOI, perRam := a.MaxCOI, a.MaxPerRam
	ramsArg, ewesArg := planParams.Name("Rams"), planParams.Name("Ewes")
	if err := checkCOILimit(maxCOI); err != nil {
		return nil, err
	}
	for i, e := range ewes {
		if slices.Contains(rams, e) {
			return nil, &ArgError{param.FieldError{Field: fmt.Sprintf("%s[%d]", ewesArg, i), Problem: e + " is also listed as a ram", Expected: "each animal in one list"}}
		}
	}
	b := newPedigreeBuilder(r)
	subjects := append(slices.Clone(rams), ewes...)
	if a.Weights != nil {
		// Weights left to the user may end the call at their form: the
		// lineages are asked ahead only when none is.
		b.prefetch(ctx, subjects, planCeiling-len(subjects))
	}
	defer b.settle()
	rd, err := detailsOf(ctx, r, ramsArg, rams)
	if err != nil {
		return nil, err
	}
	// Weights left to the user are asked once the rams are known: the form
	// offers the traits every ram carries, which are the ones a plan can
	// weigh, and the COI limit too when the call did not set it.
	var also []param.Spec
	if r.sent[coiLimitField.Name] == nil {
		also = append(also, coiLimitField)
	}
	w, chosen, err := r.weights(ctx, a.Weights, "to choose a ram for each ewe", sharedTraits(rd), also...)
	if err != nil {
		return nil, err
	}
	if v, ok := chosen[coiLimitField.Name].(float64); ok {
		if err := checkCOILimit(v); err != nil {
			return nil, &AnswerError{Errs: []param.FieldError{err.FieldError}}
		}
		maxCOI = v
	}
	ed, err := detailsOf(ctx, r, ewesArg, ewes)
	if err != nil {
		return nil, err
	}
	codes := w.Codes()
	ramEBV := make([]map[string]float64, len(rams))
	var warnings []string
	for i, d := range rd {
		ramEBV[i] = ebvMap(d.Traits)
		if _, missing, ok := w.Index(ramEBV[i]); !ok {
			return nil, &ArgError{param.FieldError{Field: fmt.Sprintf("%s[%d]", ramsArg, i),
				Problem:  fmt.Sprintf("ram %s has no EBV for %s, so his lambs cannot be compared", rams[i], strings.Join(missing, ", ")),
				Expected: "rams with every weighted trait, or weights only on traits they have"}}
		}
		if !isSex(d.Gender, "male") {
			warnings = append(warnings, fmt.Sprintf("ram %s is recorded as %q", rams[i], d.Gender))
		}
		if w := goneWarning("ram", rams[i], d.Status); w != "" {
			warnings = append(warnings, w)
		}
	}
	eweEBV := make([]map[string]float64, len(ewes))
	var noIndex []string
	for i, d := range ed {
		eweEBV[i] = ebvMap(d.Traits)
		if _, _, ok := w.Index(eweEBV[i]); !ok {
			noIndex = append(noIndex, ewes[i])
		}
		if !isSex(d.Gender, "female") {
			warnings = append(warnings, fmt.Sprintf("ewe %s is recorded as %q", ewes[i], d.Gender))
		}
		if w := goneWarning("ewe", ewes[i], d.Status); w != "" {
			warnings = append(warnings, w)
		}
	}
	b.bySubject, b.distrust = true, true
	for i, d := range rd {
		b.details(rams[i], d)
	}
	for i, d := range ed {
		b.details(ewes[i], d)
	}
	if err := b.extend(ctx, subjects, planCeiling-len(subjects)); err != nil {
		var ab *AboutError
		if errors.As(err, &ab) {
			id := ab.Value.(string)
			if i := slices.Index(rams, id); i >= 0 {
				ab.Field = fmt.Sprintf("%s[%d]", ramsArg, i)
			} else if i := slices.Index(ewes, id); i >= 0 {
				ab.Field = fmt.Sprintf("ewe_lpn_ids[%d]", i)
			}
		}
		return nil, err
	}
	// Pairs: the lamb's index is the mean of the parents' indexes; a ewe
	// without every weighted EBV adds the same unknown to each ram's lamb,
	// so the rams are compared on their own halves and her lamb's index is
	// reported unknown.
	// A pair whose pedigree was not read whole within the window (the
	// ceiling ran out, a lineage failed, an ancestor shown with one parent
	// whose own record was not read) or holds a broken record has a COI
	// that might yet exceed max_coi: it is left out of the plan and named,
	// unless what was read already puts it over. Its COI on what was read
	// is only a lower bound, never a reason to mate.
	coi := make([][]*float64, len(rams))
	pairs := make([][]breeding.Pair, len(rams))
	unread := map[string]bool{}
	for _, id := range append(slices.Clone(rams), ewes...) {
		broken := b.brokenBehind(id)
		for _, w := range broken {
			if w += ", which no pedigree can hold"; !slices.Contains(warnings, w) {
				warnings = append(warnings, w)
			}
		}
		if b.unread(id) || len(broken) > 0 {
			unread[id] = true
		}
	}
	var unresolved [][2]string
	for ri := range rams {
		coi[ri] = make([]*float64, len(ewes))
		pairs[ri] = make([]breeding.Pair, len(ewes))
		ramIdx, _, _ := w.Index(ramEBV[ri])
		for ei := range ewes {
			v := ramIdx / 2
			if eweIdx, _, ok := w.Index(eweEBV[ei]); ok {
				v += eweIdx / 2
			}
			c, err := lambCOI(ctx, b.ped, rams[ri], ewes[ei])
			if err != nil {
				return nil, err
			}
			coi[ri][ei] = c
			// An unknown COI is taken as the cap when settling ties, so a
			// pair of unknown inbreeding is never preferred for it.
			tie := maxCOI
			if c != nil {
				tie = *c
			}
			pairs[ri][ei] = breeding.Pair{Value: v, Allowed: c == nil || *c <= maxCOI+1e-12, COI: tie}
			if pairs[ri][ei].Allowed && (unread[rams[ri]] || unread[ewes[ei]]) {
				pairs[ri][ei].Allowed = false
				unresolved = append(unresolved, [2]string{rams[ri], ewes[ei]})
			}
		}
	}
	capacity := slices.Repeat([]int{perRam}, len(rams))
	plan, err := breeding.AssignLowCOI(pairs, capacity)
	if err != nil {
		return nil, err
	}
	// The total is over lambs whose index is known: a ewe without one adds
	// only the ram's half, which is no lamb's index.
	total := 0.0
	for ei, ri := range plan.RamOf {
		if ri >= 0 && !slices.Contains(noIndex, ewes[ei]) {
			total += pairs[ri][ei].Value
		}
	}
	render := func(withEBVs bool, rows int) *PlanAnswer {
		columns := []string{"ewe", "coi", "lamb_index"}
		if withEBVs {
			for _, c := range codes {
				columns = append(columns, "lamb_"+c)
			}
		}
		byRam := map[string][][]any{}
		// Unmated ewes are grouped by reason, so a hundred of them stay short.
		unassigned := map[string][]string{}
		unknownCOI := 0
		for ei, ri := range plan.RamOf {
			if ri < 0 {
				why := "every ram within max_coi already has max_ewes_per_ram ewes"
				switch {
				case slices.ContainsFunc(pairs, func(row []breeding.Pair) bool { return row[ei].Allowed }):
				case slices.ContainsFunc(unresolved, func(p [2]string) bool { return p[1] == ewes[ei] }):
					why = "no ram is left whose lamb's COI with her is known to be within max_coi (see unresolved)"
				default:
					why = "every ram's lamb would exceed max_coi"
				}
				unassigned[why] = append(unassigned[why], ewes[ei])
				continue
			}
			if rows == 0 {
				continue // left out to fit; unassigned ewes are still listed
			}
			rows--
			var lambIdx any = "unknown"
			if !slices.Contains(noIndex, ewes[ei]) {
				lambIdx = round4(pairs[ri][ei].Value)
			}
			var c any = "unknown"
			if coi[ri][ei] != nil {
				c = *coi[ri][ei]
			} else {
				unknownCOI++
			}
			row := []any{ewes[ei], c, lambIdx}
			if withEBVs {
				for _, code := range codes {
					ev, ok := eweEBV[ei][code]
					if !ok {
						row = append(row, "unknown")
						continue
					}
					row = append(row, round4((ramEBV[ri][code]+ev)/2))
				}
			}
			byRam[rams[ri]] = append(byRam[rams[ri]], row)
		}
		out := &PlanAnswer{
			Columns:        columns,
			ByRam:          byRam,
			Mated:          plan.Mated,
			Ewes:           len(ewes),
			MaxCOI:         maxCOI,
			Weights:        w,
			TotalLambIndex: round4(total),
			Computed: PlanComputed{
				Method: "lamb index = sum(weight x (ram EBV + ewe EBV)/2); the most ewes that the COI cap and ram limits allow are mated, and among such plans one of largest total index is chosen (min-cost max-flow, exact), and among those of equal total the lowest highest lamb COI, then the lowest mean COI; " +
					"COI by the L-D-L' (additive relationship, Meuwissen and Luo) method over each animal's pedigree extended to 6 generations; a pair whose COI is unknown (NSIP records no parents to compute from) is allowed, marked, and counted at max_coi in ties; a pair whose pedigree was not read whole (an ancestor a lineage shows with one parent counts as read only once its own record is) is left out (unresolved)",
				PedigreeAnimals:     b.ped.Len(),
				LineagesRead:        b.lookups,
				Upstream:            r.upstream(),
				AncestorRecordsRead: b.records,
			},
		}
		if len(unresolved) > 0 {
			out.Unresolved = &PlanUnresolved{
				Animals: slices.Sorted(maps.Keys(unread)),
				Pairs:   len(unresolved),
				Effect: fmt.Sprintf("the pedigree within %d generations behind these animals was not read whole (a lineage unread, or an ancestor NSIP's lineage shows with one parent whose own record was not read) or holds a broken record (see notes and warnings), so their lambs' COI on what was read is only a lower bound and might exceed max_coi; "+
					"their pairs within max_coi on what was read were left out of the plan; check one with nsip_check_mating or plan fewer animals", MatingGenerations),
			}
		}
		out.UnknownCOIPairs = unknownCOI
		if len(unassigned) > 0 {
			out.Unassigned = unassigned
		}
		if len(noIndex) > 0 {
			out.EwesWithoutIndex = &EwesWithoutIndex{LPNIDs: noIndex, Effect: "their lambs' index is unknown and not in total_lamb_index; rams were chosen for them on the rams' own EBVs"}
		}
		if !withEBVs {
			out.LambEBVs = "left out to stay within the token budget; each is (ram EBV + ewe EBV)/2, or ask nsip_check_mating for a pair"
		}
		out.Warnings = warnings
		if len(b.notes) > 0 {
			out.Notes = b.notes
		}
		return out
	}
	whole := render(true, plan.Mated)
	// Per-pair EBVs are dropped, and said to be, when they would push the
	// plan over the budget and into a generic summary; then whole rows,
	// the totals and constraints kept, with the call that shows the rest.
	// Either way every mating, EBVs and all, is the answer's complete data.
	if !r.overBudget(ctx, whole) {
		return whole, nil
	}
	out, _ := fitRows(ctx, r, plan.Mated, func(n int) *PlanAnswer {
		o := render(false, n)
		if n < plan.Mated {
			asked := map[string]any{planParams.Name("Weights"): w}
			if _, ok := chosen["max_coi"]; ok {
				asked["max_coi"] = maxCOI
			}
			o.NotShown = r.restCall(asked, n, plan.Mated, fmt.Sprintf("the mated ewes after the first %d in ewe_lpn_ids order", n))
		}
		return o
	})
	return &full.Answer{Value: out, Table: planTable(whole, rams, plan.RamOf)}, nil
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

// lambCOI is a pair's COI over the gathered pedigree, nil when unknown.
// A pedigree too complex to compute from fails the plan: allowing every
// pair as if its COI were merely unknown would ignore max_coi.
func lambCOI(ctx context.Context, ped *breeding.Pedigree, ram, ewe string) (*float64, error) {
	c, err := ped.MatingCOI(ctx, ram, ewe)
	if err != nil || !coiKnown(ped, ram, ewe, c) {
		return nil, err
	}
	return &c, nil
}
