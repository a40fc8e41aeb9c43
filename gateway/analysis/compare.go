package analysis

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

var Compare = &Def{
	Name: toolname.CompareAnimals, Title: "Compare NSIP animals", Method: "compare_animals",
	Desc: `One table of 2-20 animals: sire, dam, breed, sex, birth date, genotyped, NSIP's indexes and each trait's EBV with accuracy (%), the best per trait and index marked ` +
		`(about 60 tokens an animal plus 15 a trait; one NSIP lookup an animal). ` +
		`Arguments: lpn_ids, distinct, e.g. ["6402382024NCS310","6402382022NCS087"]; traits (optional, up to 30), e.g. ["BWT","WWT"], default all the animals have. ` +
		fmt.Sprintf(`percentiles: true adds each EBV's top_percent in its breed, exact from NSIP's sorted pages (at most %d more lookups). `, pctLookups) +
		`Next: ` + toolname.CheckMating + ` for a pair, ` + toolname.GetAnimal + ` for one in full.`,
	Args:    compareParams,
	Ceiling: 20 + pctLookups,
	Answers: []reflect.Type{reflect.TypeFor[CompareAnswer](), reflect.TypeFor[CompactCompareAnswer]()},
	Run:     typed(runCompare),
}

// compareArgs are nsip_compare_animals's arguments, described once: the
// schema and validation derive from them (compareParams), and the run
// reads them. The lists follow the scalars, as the schema has always had
// them.
type compareArgs struct {
	Percentiles bool     `json:"percentiles,omitempty"`
	LPNIDs      []string `json:"lpn_ids"`
	Traits      []string `json:"traits,omitempty"` // nil: all the animals have
}

var compareParams = param.MustStruct[compareArgs](param.Table{
	reflect.TypeFor[compareArgs](): {
		"Percentiles": percentilesParam,
		"LPNIDs":      {List: &param.List{MinItems: 2, MaxItems: 20, Item: "lpn", Example: []string{param.ExampleLPN, "6402382022NCS087"}}},
		"Traits":      {List: &param.List{MinItems: 1, MaxItems: 30, Item: "trait", Example: []string{"BWT", "WWT"}}},
	},
})

// detailsOf fetches every animal's details at once, attributing a failure
// to the list entry it came from.
func detailsOf(ctx context.Context, r *call, field string, ids []string) ([]*nsip.AnimalDetails, error) {
	out := make([]*nsip.AnimalDetails, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = r.details(ctx, id)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, About(fmt.Sprintf("%s[%d]", field, i), ids[i], err)
		}
	}
	return out, nil
}

// traitOrder sorts codes as NSIP's site shows them, then the glossary's
// order, then alphabetically.
func traitOrder(codes []string) {
	rank := func(c string) int {
		if i := slices.Index(nsip.TraitCodes, c); i >= 0 {
			return i
		}
		if i := slices.Index(nsip.GlossaryCodes(), c); i >= 0 {
			return 100 + i
		}
		return 1000
	}
	slices.SortFunc(codes, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

func runCompare(ctx context.Context, r *call, a *compareArgs) (any, error) {
	ids := a.LPNIDs
	ds, err := detailsOf(ctx, r, compareParams.Name("LPNIDs"), ids)
	if err != nil {
		return nil, err
	}
	traits := a.Traits
	if traits == nil {
		for _, d := range ds {
			for _, t := range d.Traits {
				if c := strings.ToUpper(t.Code); !slices.Contains(traits, c) {
					traits = append(traits, c)
				}
			}
		}
		traitOrder(traits)
	}
	rows := make([]CompareRow, len(ds))
	best := map[string][]string{}
	var unranked, missing []string
	have := make([]map[string]nsip.Trait, len(ds))
	var indexes []string
	unstated := 0
	for i, d := range ds {
		rows[i] = CompareRow{LPNID: ids[i], Sex: d.Gender, Born: d.DateOfBirth, Breed: d.Breed, Sire: d.Sire, Dam: d.Dam, Genotyped: genotypedPtr(d.Genotyped)}
		if d.Genotyped == "" {
			unstated++
		}
		have[i] = traitMap(d.Traits)
		for _, ix := range d.Indexes {
			if rows[i].Indexes == nil {
				rows[i].Indexes = map[string]float64{}
			}
			rows[i].Indexes[ix.Name] = ix.Value
			if !slices.Contains(indexes, ix.Name) {
				indexes = append(indexes, ix.Name)
			}
		}
	}
	slices.Sort(indexes)
	// NSIP's indexes are built so that higher is better; the best is the
	// highest, among animals that have the index.
	bestIndex := map[string][]string{}
	for _, name := range indexes {
		var top float64
		var holders []string
		with := 0
		for i := range ds {
			v, ok := rows[i].Indexes[name]
			if !ok {
				missing = append(missing, ids[i]+":"+name)
				continue
			}
			with++
			switch {
			case holders == nil || v > top:
				top, holders = v, []string{ids[i]}
			case v == top:
				holders = append(holders, ids[i])
			}
		}
		if with > 1 && len(holders) < with {
			bestIndex[name] = holders
		}
	}
	for _, code := range traits {
		info, known := nsip.LookupTrait(code)
		var top float64
		var holders []string
		for i := range ds {
			t, ok := have[i][code]
			if !ok {
				rows[i].EBV = append(rows[i].EBV, nil)
				missing = append(missing, ids[i]+":"+code)
				continue
			}
			v := t.Value
			shown := round4(v)
			rows[i].EBV = append(rows[i].EBV, &[2]*float64{&shown, accPtr(t)})
			switch {
			case holders == nil || info.Better(v, top):
				top, holders = v, []string{ids[i]}
			case v == top:
				holders = append(holders, ids[i])
			}
		}
		if !known || info.Direction == "" {
			unranked = append(unranked, code)
			continue
		}
		if len(holders) > 0 && len(holders) < len(ds) {
			best[code] = holders
		}
	}
	pctOn := a.Percentiles
	unproven := map[string]string{}
	var pc *percentiles
	if pctOn {
		pc = newPercentiles(r)
		var qs []pctQuery
		for i, d := range ds {
			for _, code := range traits {
				if t, ok := have[i][code]; ok && d.BreedID != 0 {
					qs = append(qs, pctQuery{d.BreedID, code, t.Value})
				}
			}
		}
		res, err := pc.topPercents(ctx, qs)
		if err != nil {
			return nil, err
		}
		for i, d := range ds {
			rows[i].TopPercent = make([]*float64, len(traits))
			for k, code := range traits {
				if _, ok := have[i][code]; !ok {
					continue
				}
				if d.BreedID == 0 {
					unproven[code] = "the animal's record names no breed ID"
					continue
				}
				r := res[0]
				res = res[1:]
				if r.p == nil {
					unproven[fmt.Sprintf("%s (breed %d)", code, d.BreedID)] = r.why
				}
				rows[i].TopPercent[k] = r.p
			}
		}
	}
	out := &CompareAnswer{
		Traits:  traits,
		Animals: rows,
		Best:    best,
		Computed: CompareComputed{
			Method: "each animal's current NSIP record; best = highest or lowest EBV by the trait's preferred direction in the glossary, none where all are equal; " +
				"indexes as NSIP sends them, best = highest",
			Animals:  len(ds),
			Upstream: r.upstream(),
		},
	}
	if len(unranked) > 0 {
		out.NotRanked = &NotRanked{Traits: unranked, Why: "no documented preferred direction"}
	}
	if len(missing) > 0 {
		out.Unknown = missing
	}
	if len(indexes) > 0 {
		out.Indexes, out.BestIndex = indexes, bestIndex
	}
	if pc != nil {
		out.Percentiles = pc.block(unproven)
	}
	out.Genotyped = genotypedNote(unstated, len(ds), false)
	// Twenty animals by every trait can pass the budget: then the values
	// stay and the accuracies go, and the answer says how to get them.
	if !r.overBudget(ctx, out) {
		return out, nil
	}
	// Rows become arrays under one header, values only, and a breed they
	// all share is said once.
	shared := !slices.ContainsFunc(rows, func(x CompareRow) bool { return x.Breed != rows[0].Breed })
	// A genotyped column of nulls only repeats the note.
	geno := unstated < len(ds)
	columns := []string{"lpn_id", "sex", "born", "sire", "dam"}
	if geno {
		columns = append(columns, "genotyped")
	}
	compact := &CompactCompareAnswer{
		Accuracies: "left out to stay within the token budget; ask again with fewer traits or animals to see them",
		Best:       out.Best, BestIndex: out.BestIndex, Computed: out.Computed, Genotyped: out.Genotyped,
		NotRanked: out.NotRanked, Percentiles: out.Percentiles, Traits: out.Traits, Unknown: out.Unknown,
	}
	if shared {
		compact.Breed = &rows[0].Breed
	} else {
		columns = append(columns, "breed")
	}
	columns = append(columns, indexes...)
	columns = append(columns, traits...)
	values := make([][]any, len(rows))
	for i, row := range rows {
		v := []any{row.LPNID, row.Sex, row.Born, row.Sire, row.Dam}
		if geno {
			v = append(v, row.Genotyped)
		}
		if !shared {
			v = append(v, row.Breed)
		}
		for _, name := range indexes {
			if x, ok := row.Indexes[name]; ok {
				v = append(v, x)
			} else {
				v = append(v, nil)
			}
		}
		for _, e := range row.EBV {
			if e == nil {
				v = append(v, nil)
			} else {
				v = append(v, e[0])
			}
		}
		values[i] = v
	}
	compact.Columns, compact.Animals = columns, values
	if pc != nil {
		pcts := make([][]*float64, len(rows))
		for i, row := range rows {
			pcts[i] = row.TopPercent
		}
		compact.TopPercent = &CompactTopPercent{Rows: pcts, Cells: "per animal in row order, per trait in traits order"}
	}
	if pc != nil && r.overBudget(ctx, compact) {
		// The values of every animal are the comparison; the percentiles
		// give way first.
		compact.TopPercent = nil
		compact.Percentiles = &Percentiles{LeftOut: "to stay within the token budget; ask again with fewer traits or animals (about 4 tokens a value)", Lookups: pc.used}
	}
	if !r.overBudget(ctx, compact) {
		return compact, nil
	}
	// Whole animals, as many as fit, and the call for the rest.
	fitted, shown := fitRows(ctx, r, len(values), func(n int) *CompactCompareAnswer {
		o := *compact
		o.Animals = values[:n]
		if n < len(values) {
			o.NotShown = &CompareNotShown{Animals: len(values) - n, LPNIDs: ids[n:],
				Call: toolname.CompareAnimals + " with these lpn_ids (best and unknown above cover every animal)"}
		}
		return &o
	})
	return withRows(fitted, shown, columns, values), nil
}
