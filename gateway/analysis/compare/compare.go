package compare

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/percentile"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

var Compare = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.CompareAnimals, Title: "Compare NSIP animals", Method: "compare_animals",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `One table of 2-20 animals: sire, dam, breed, sex, birth date, genotyped, NSIP's indexes and each trait's EBV with accuracy (%), the best per trait and index marked ` +
			`(about 60 tokens an animal plus 15 a trait; one NSIP lookup an animal). ` +
			`Arguments: lpn_ids, distinct, e.g. ["` + nsiparg.ExampleLPN + `","` + nsiparg.ExampleEwe + `"]; traits (optional, up to 30), e.g. ["BWT","WWT"], default all the animals have. ` +
			fmt.Sprintf(`percentiles: true adds each EBV's top_percent in its breed, exact from NSIP's sorted pages (at most %d more lookups). `, percentile.Lookups) +
			`Next: ` + toolname.CheckMating + ` for a pair, ` + toolname.GetAnimal + ` for one in full.`,
		Args: compareParams,
	},
	Ceiling: 20 + percentile.Lookups,
	Answers: []reflect.Type{reflect.TypeFor[CompareAnswer](), reflect.TypeFor[CompactCompareAnswer]()},
	Run:     analysis.Typed(runCompare),
}

// Args are nsip_compare_animals's arguments, described once: the
// schema and validation derive from them (compareParams), and the run
// reads them. The lists follow the scalars, as the schema has always had
// them.
type Args struct {
	Percentiles bool     `json:"percentiles,omitempty"`
	LPNIDs      []string `json:"lpn_ids"`
	Traits      []string `json:"traits,omitempty"` // nil: all the animals have
	param.Budget
}

var compareParams = param.MustStruct[Args](param.Tables(
	param.BudgetTable,
	param.Of(func(a *Args) param.Described {
		return param.Described{
			&a.Percentiles: percentile.Param,
			&a.LPNIDs:      {List: &param.List{MinItems: 2, MaxItems: 20, Item: nsiparg.LPNs, Example: []string{nsiparg.ExampleLPN, nsiparg.ExampleEwe}}},
			&a.Traits:      {List: &param.List{MinItems: 1, MaxItems: 30, Item: nsiparg.Traits, Example: []string{"BWT", "WWT"}}},
		}
	}),
))

// runCompare sets the animals' records side by side, naming the best of
// each trait and index, with percentiles when asked, within the budget.
func runCompare(ctx context.Context, r *analysis.Call, a *Args) (any, error) {
	ds, err := analysis.DetailsOf(ctx, r, compareParams.Name("LPNIDs"), a.LPNIDs)
	if err != nil {
		return nil, err
	}
	c := &comparison{r: r, ids: a.LPNIDs, ds: ds, traits: compareTraits(ds, a.Traits), best: map[string][]string{}, unproven: map[string]string{}}
	c.lay()
	c.bestIndexes()
	c.bestTraits()
	if a.Percentiles {
		if err := c.percentiles(ctx); err != nil {
			return nil, err
		}
	}
	out := c.answer()
	// Twenty animals by every trait can pass the budget: then the values
	// stay and the accuracies go, and the answer says how to get them.
	if !r.OverBudget(ctx, out) {
		return out, nil
	}
	return c.compact(ctx, out), nil
}

// compareTraits are the traits asked for, or when none were, every trait
// any of ds carries in the order NSIP's site shows them.
func compareTraits(ds []*nsip.AnimalDetails, asked []string) []string {
	traits := asked
	if traits == nil {
		for _, d := range ds {
			for _, t := range d.Traits {
				if c := strings.ToUpper(t.Code); !slices.Contains(traits, c) {
					traits = append(traits, c)
				}
			}
		}
		facts.TraitOrder(traits)
	}
	return traits
}

// comparison is one nsip_compare_animals call carried through its steps,
// each filling in what the answer needs from the records read.
type comparison struct {
	r         *analysis.Call
	ids       []string
	ds        []*nsip.AnimalDetails
	traits    []string
	rows      []CompareRow
	have      []map[string]nsip.Trait // each animal's traits by code
	indexes   []string                // every index any animal has, sorted
	unstated  int                     // animals NSIP did not say were genotyped or not
	best      map[string][]string
	bestIndex map[string][]string
	unranked  []string // traits with no preferred direction
	missing   []string // "id:trait" and "id:index" an animal lacks
	pc        *percentile.Finder
	unproven  map[string]string
}

// lay sets out each animal's row from its record and collects the
// indexes any of them has.
func (c *comparison) lay() {
	c.rows = make([]CompareRow, len(c.ds))
	c.have = make([]map[string]nsip.Trait, len(c.ds))
	for i, d := range c.ds {
		c.rows[i] = CompareRow{LPNID: c.ids[i], Sex: d.Gender, Born: d.DateOfBirth, Breed: d.Breed, Sire: facts.Stated(d.Sire), Dam: facts.Stated(d.Dam), Genotyped: facts.GenotypedPtr(d.Genotyped)}
		if d.Genotyped == "" {
			c.unstated++
		}
		c.have[i] = facts.TraitMap(d.Traits)
		for _, ix := range d.Indexes {
			if c.rows[i].Indexes == nil {
				c.rows[i].Indexes = map[string]float64{}
			}
			c.rows[i].Indexes[ix.Name] = ix.Value
			if !slices.Contains(c.indexes, ix.Name) {
				c.indexes = append(c.indexes, ix.Name)
			}
		}
	}
	slices.Sort(c.indexes)
}

// bestIndexes names the best of each index. NSIP's indexes are built so
// that higher is better; the best is the highest, among animals that have
// the index.
func (c *comparison) bestIndexes() {
	c.bestIndex = map[string][]string{}
	for _, name := range c.indexes {
		var top float64
		var holders []string
		with := 0
		for i := range c.ds {
			v, ok := c.rows[i].Indexes[name]
			if !ok {
				c.missing = append(c.missing, c.ids[i]+":"+name)
				continue
			}
			with++
			switch {
			case holders == nil || v > top:
				top, holders = v, []string{c.ids[i]}
			case v == top:
				holders = append(holders, c.ids[i])
			}
		}
		if with > 1 && len(holders) < with {
			c.bestIndex[name] = holders
		}
	}
}

// bestTraits fills in each row's EBVs and names the best of each trait by
// the direction the glossary prefers.
func (c *comparison) bestTraits() {
	for _, code := range c.traits {
		info, known := nsip.LookupTrait(code)
		var top float64
		var holders []string
		for i := range c.ds {
			t, ok := c.have[i][code]
			if !ok {
				c.rows[i].EBV = append(c.rows[i].EBV, nil)
				c.missing = append(c.missing, c.ids[i]+":"+code)
				continue
			}
			v := t.Value
			shown := facts.Round4(v)
			c.rows[i].EBV = append(c.rows[i].EBV, &[2]*float64{&shown, facts.AccPtr(t)})
			switch {
			case holders == nil || info.Better(v, top):
				top, holders = v, []string{c.ids[i]}
			case v == top:
				holders = append(holders, c.ids[i])
			}
		}
		if !known || info.Direction == "" {
			c.unranked = append(c.unranked, code)
			continue
		}
		if len(holders) > 0 && len(holders) < len(c.ds) {
			c.best[code] = holders
		}
	}
}

// percentiles reads each EBV's top percent in its animal's breed, all at
// once, and says which could not be proven.
func (c *comparison) percentiles(ctx context.Context) error {
	c.pc = percentile.NewFinder(c.r)
	var qs []percentile.Query
	for i, d := range c.ds {
		for _, code := range c.traits {
			if t, ok := c.have[i][code]; ok && d.BreedID != 0 {
				qs = append(qs, percentile.Query{Breed: d.BreedID, Code: code, Value: t.Value})
			}
		}
	}
	res, err := c.pc.TopPercents(ctx, qs)
	if err != nil {
		return err
	}
	for i, d := range c.ds {
		c.rows[i].TopPercent = make([]*float64, len(c.traits))
		for k, code := range c.traits {
			if _, ok := c.have[i][code]; !ok {
				continue
			}
			if d.BreedID == 0 {
				c.unproven[code] = "the animal's record names no breed ID"
				continue
			}
			r := res[0]
			res = res[1:]
			if key := fmt.Sprintf("%s (breed %d)", code, d.BreedID); r.TopPercent == nil {
				c.unproven[key] = percentile.WithRange(c.unproven[key], r.Why, r.Range, c.ids[i])
			}
			c.rows[i].TopPercent[k] = r.TopPercent
		}
	}
	return nil
}

// answer is the comparison whole, accuracies and all.
func (c *comparison) answer() *CompareAnswer {
	out := &CompareAnswer{
		Traits:  c.traits,
		Animals: c.rows,
		Best:    c.best,
		Computed: CompareComputed{
			Method: "each animal's current NSIP record; best = highest or lowest EBV by the trait's preferred direction in the glossary, none where all are equal; " +
				"indexes as NSIP sends them, best = highest",
			Animals:  len(c.ds),
			Upstream: c.r.Upstream(),
		},
	}
	if len(c.unranked) > 0 {
		out.NotRanked = &NotRanked{Traits: c.unranked, Why: "no documented preferred direction"}
	}
	if len(c.missing) > 0 {
		out.Unknown = c.missing
	}
	if len(c.indexes) > 0 {
		out.Indexes, out.BestIndex = c.indexes, c.bestIndex
	}
	if c.pc != nil {
		out.Percentiles = c.pc.Block(c.unproven)
	}
	out.TimeLimit = c.r.TimeLimitCut(analysis.SetArgs{}, "the percentiles it left uncomputed are in percentiles.not_computed")
	out.Genotyped = facts.GenotypedNote(c.unstated, len(c.ds), false)
	return out
}

// compact is out over the budget: values without accuracies, then
// without percentiles, then as many whole animals as fit and the call for
// the rest.
func (c *comparison) compact(ctx context.Context, out *CompareAnswer) any {
	compact, columns, values := c.table(out)
	if c.pc != nil {
		pcts := make([][]*float64, len(c.rows))
		for i, row := range c.rows {
			pcts[i] = row.TopPercent
		}
		compact.TopPercent = &CompactTopPercent{Rows: pcts, Cells: "per animal in row order, per trait in traits order"}
	}
	if c.pc != nil && c.r.OverBudget(ctx, compact) {
		// The values of every animal are the comparison; the percentiles
		// give way first.
		compact.TopPercent = nil
		compact.Percentiles = &percentile.Percentiles{LeftOut: "to stay within the token budget; ask again with fewer traits or animals (about 4 tokens a value)", Lookups: c.pc.Used}
	}
	if !c.r.OverBudget(ctx, compact) {
		return compact
	}
	// Whole animals, as many as fit, and the call for the rest.
	fitted, shown := analysis.FitRows(ctx, c.r, len(values), func(n int) *CompactCompareAnswer {
		o := *compact
		o.Animals = values[:n]
		if n < len(values) {
			o.NotShown = &CompareNotShown{Animals: len(values) - n, LPNIDs: c.ids[n:],
				Call: toolname.CompareAnimals + " with these lpn_ids (best and unknown above cover every animal)"}
		}
		return &o
	})
	return analysis.WithRows(fitted, shown, columns, values)
}

// table is out's rows as arrays under one header, values only, with a
// breed they all share said once.
func (c *comparison) table(out *CompareAnswer) (*CompactCompareAnswer, []string, [][]any) {
	rows := c.rows
	shared := !slices.ContainsFunc(rows, func(x CompareRow) bool { return x.Breed != rows[0].Breed })
	// A genotyped column of nulls only repeats the note.
	geno := c.unstated < len(c.ds)
	// Nor do parent columns of nulls, where NSIP records none for any.
	parents := slices.ContainsFunc(rows, func(x CompareRow) bool { return x.Sire != nil || x.Dam != nil })
	columns := []string{"lpn_id", "sex", "born"}
	if parents {
		columns = append(columns, "sire", "dam")
	}
	if geno {
		columns = append(columns, "genotyped")
	}
	compact := &CompactCompareAnswer{
		Cut:        out.Cut,
		Accuracies: "left out to stay within the token budget; ask again with fewer traits or animals to see them",
		Best:       out.Best, BestIndex: out.BestIndex, Computed: out.Computed, Genotyped: out.Genotyped,
		NotRanked: out.NotRanked, Percentiles: out.Percentiles, Traits: out.Traits, Unknown: out.Unknown,
	}
	if !parents {
		compact.Parents = "NSIP records no sire or dam for any of these animals"
	}
	if shared {
		compact.Breed = &rows[0].Breed
	} else {
		columns = append(columns, "breed")
	}
	columns = append(columns, c.indexes...)
	columns = append(columns, c.traits...)
	values := make([][]any, len(rows))
	for i, row := range rows {
		v := []any{row.LPNID, row.Sex, row.Born}
		if parents {
			v = append(v, row.Sire, row.Dam)
		}
		if geno {
			v = append(v, row.Genotyped)
		}
		if !shared {
			v = append(v, row.Breed)
		}
		for _, name := range c.indexes {
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
	return compact, columns, values
}
