package rank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/pedigree"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Sires for a flock: with for_ewes, the ranked rams are judged also by the
// mean COI of their lambs with those ewes, each pair's COI computed as
// nsip_plan_matings computes it (the L-D-L' method over the pedigree
// extended to MatingGenerations behind each animal, which equals
// nsip_check_mating's Wright's coefficient), and max_mean_coi leaves out
// the rams above it. That is the mean kinship of a sire with the flock's
// ewes that optimum contribution selection constrains, one sire at a time.
//
// Pedigree lookups are bounded by ewesLookups: the ewes' first, then the
// rams' in index order, a few at a time, until top_n rams are shown. A pair
// whose pedigree was not read whole within the window, or holds a record
// no pedigree can hold, is unresolved: its ram's mean is not proven within
// max_mean_coi, so he is left out and named, never counted as 0.

// ewesLookups bounds the lookups of the for_ewes part of a ranking (the
// ewes' details and every lineage).
const ewesLookups = 300

// maxEweCandidates bounds the rams a ranking for ewes ranks exactly, to
// be read in index order until top_n of them pass max_mean_coi: in a
// closed breed most of the best rams can be kin of the flock. The lookups
// for their pedigrees are the tighter bound.
const maxEweCandidates = 200

var forEwesList = param.List{Name: "for_ewes", MinItems: 1, MaxItems: 20, Item: nsiparg.LPNs, Example: []string{nsiparg.ExampleEwe}}

// eweSet is the ewes a ranking is for, with the pedigree gathered behind them.
type eweSet struct {
	r        *analysis.Call
	ids      []string
	b        *pedigree.Builder
	max      *float64 // max_mean_coi, when given
	warnings []string
	held     *pedigree.Held // the breed's whole pedigree, when its pass is kept
	absent   []string       // animals the held pass lacks, whose lineages are read
	rams     []string       // the rams judged
}

// candidates is how many rams the ranking reads exactly, so that enough
// are at hand when some fail max_mean_coi.
func (e *eweSet) candidates(topN int) int {
	if e == nil || e.max == nil {
		return topN
	}
	return max(topN, maxEweCandidates)
}

// prepareEwes reads the ewes' records and pedigrees, before any search, so
// that an unknown ewe fails at once; nil when the call has no for_ewes.
func prepareEwes(ctx context.Context, r *analysis.Call, a *Args) (*eweSet, error) {
	ids := a.ForEwes
	maxArg, ewesArg := rankParams.Name("MaxMeanCOI"), rankParams.Name("ForEwes")
	if ids == nil {
		if a.MaxMeanCOI != nil {
			return nil, &analysis.ArgError{FieldError: param.FieldError{Field: maxArg, Problem: "needs for_ewes, the ewes whose lambs' mean COI it limits", Expected: `for_ewes, e.g. ["` + nsiparg.ExampleEwe + `"]`}}
		}
		return nil, nil
	}
	if a.MaxMeanCOI != nil {
		if err := pedigree.COILimitArg(maxArg, *a.MaxMeanCOI); err != nil {
			return nil, err
		}
	}
	if c := a.Criteria; c != nil && c.Gender != "" && c.Gender != "Male" {
		g := c.Gender
		return nil, &analysis.ArgError{FieldError: param.FieldError{Field: rankParams.Name("Criteria") + ".gender", Problem: fmt.Sprintf("is %s, but for_ewes ranks rams", g), Expected: `"Male", or leave it out`}}
	}
	e := &eweSet{r: r, ids: ids, b: pedigree.NewBuilder(r)}
	if !pedigree.MayHold(ctx, r, ids[0]) {
		e.b.Prefetch(ctx, ids, ewesLookups-len(ids))
	}
	defer e.b.Settle()
	ds, held, err := pedigree.Records(ctx, r, ewesArg, ids, a.BreedID)
	if err != nil {
		return nil, err
	}
	e.held = held
	e.max = a.MaxMeanCOI
	e.b.BySubject, e.b.Optional = true, map[string]bool{}
	for i, d := range ds {
		e.b.Details(ids[i], d)
		if facts.OtherSex(d.Gender, "female") {
			e.warnings = append(e.warnings, fmt.Sprintf("ewe %s is recorded as %q", ids[i], d.Gender))
		}
	}
	subjects, err := e.hold(ctx, r, a.BreedID, ds)
	if err != nil {
		return nil, err
	}
	if err := e.b.Extend(ctx, subjects, ewesLookups-len(ids)); err != nil {
		var ab *analysis.AboutError
		if errors.As(err, &ab) {
			ab.Field = fmt.Sprintf("%s[%d]", ewesArg, slices.Index(ids, ab.Value.(string)))
		}
		return nil, err
	}
	return e, nil
}

// withRams sets gender Male in a search for rams, unless already asked.
func (e *eweSet) withRams(crit *nsiparg.Criteria) *nsiparg.Criteria {
	if e == nil || (crit != nil && crit.Gender != "") {
		return crit
	}
	out := nsiparg.Criteria{}
	if crit != nil {
		out = *crit
	}
	out.Gender = "Male"
	return &out
}

// ramMean is one ram's lambs' COI with the ewes.
type ramMean struct {
	mean       *float64 // over the pairs of known COI; nil if none
	known      int      // pairs with a COI
	unresolved []string // ewes whose pair's pedigree was not read whole
	ramOpen    bool     // the ram's own pedigree was not read whole
}

// judge rates ranked rows (rank, lpn_id, index, ...) in index order:
// reading the rams' pedigrees a few at a time, it keeps each row with its
// mean COI inserted after the index, until topN pass max_mean_coi (all of
// them, without it). It returns the kept rows and the answer's for_ewes
// block.
func (e *eweSet) judge(ctx context.Context, rows [][]any, found map[string]nsip.AnimalRow, topN int) ([][]any, *ForEwes, error) {
	var kept [][]any
	var over, unresolved, unknown, unchecked []string
	checked := 0
	for start := 0; start < len(rows) && len(kept) < topN; {
		end := min(len(rows), start+max(topN-len(kept), analysis.RoundSize))
		batch, err := e.readBatch(ctx, rows[start:end], found)
		if err != nil {
			return nil, nil, err
		}
		for i, row := range rows[start:end] {
			if len(kept) == topN {
				break
			}
			checked++
			m, err := e.mean(ctx, batch[i])
			if err != nil {
				return nil, nil, err
			}
			id := row[1].(string)
			var cell any
			if m.mean != nil {
				cell = round6(*m.mean)
			}
			why := fmt.Sprintf("%s (ewes %s)", id, strings.Join(m.unresolved, ", "))
			if m.ramOpen {
				why = id + " (his own pedigree)"
			}
			switch {
			case e.max != nil && len(m.unresolved) > 0:
				unresolved = append(unresolved, why)
				continue
			case e.max != nil && m.mean == nil:
				unknown = append(unknown, id)
				continue
			case e.max != nil && *m.mean > *e.max+1e-12:
				over = append(over, fmt.Sprintf("%s (%g)", id, round6(*m.mean)))
				continue
			case len(m.unresolved) > 0:
				unresolved = append(unresolved, why)
				cell = nil
			}
			out := slices.Clone(row[:3])
			out = append(out, cell, fmt.Sprintf("%d/%d", m.known, len(e.ids)))
			out = append(out, row[3:]...)
			out[0] = len(kept) + 1
			kept = append(kept, out)
		}
		start = end
		if e.b.Lookups >= ewesLookups-len(e.ids) && start < len(rows) && len(kept) < topN {
			for _, row := range rows[start:] {
				unchecked = append(unchecked, row[1].(string))
			}
			break
		}
	}
	block := e.block(judged{checked: checked, ranked: len(rows), kept: len(kept), short: len(kept) < topN,
		over: over, unresolved: unresolved, unknown: unknown, unchecked: unchecked})
	return kept, block, nil
}

// judged is how judge left the ranked rams: how many it checked and kept,
// whether fewer than top_n passed, and those set apart, each by why.
type judged struct {
	checked, ranked, kept                int
	short                                bool
	over, unresolved, unknown, unchecked []string
}

// block is the answer's for_ewes block for rams judged as j.
func (e *eweSet) block(j judged) *ForEwes {
	block := &ForEwes{
		Ewes:        len(e.ids),
		RamsChecked: j.checked,
		Method: fmt.Sprintf("mean_coi = mean over the ewes of the lamb's COI, each as "+toolname.PlanMatings+" computes it (L-D-L', equal to "+toolname.CheckMating+"'s Wright's coefficient) over pedigrees extended to %d generations; "+
			"a ram's parents are those of his search row; ewes_known counts the pairs whose COI is known, the mean being over those: a pair with nothing to compute from (no recorded parents) is not counted as 0", pedigree.MatingGenerations),
		LineagesRead: e.b.LineagesRead(),
		LookupLimit:  ewesLookups,
		MaxMeanCOI:   e.max,
	}
	e.via(block)
	name := func(ids []string, effect string) *analysis.Named {
		if len(ids) == 0 {
			return nil
		}
		return &analysis.Named{Count: len(ids), LPNIDs: ids[:min(len(ids), analysis.MaxNamed)], Effect: effect}
	}
	block.OverMax = name(j.over, "left out: mean COI above max_mean_coi")
	// Where the call's time limit stopped the reads, it is why a pedigree
	// was not read whole, and the answer names it rather than the causes
	// it might have been.
	unread := "lookups ran out or a lineage failed"
	if u := e.r.Upstream(); u.TimeLimitReached {
		unread = fmt.Sprintf("the call's time limit of %d s passed before it was", u.TimeLimitSeconds)
	}
	if e.max != nil {
		block.Unresolved = name(j.unresolved, fmt.Sprintf("left out: the pedigree within %d generations behind the ram or these ewes was not read whole (%s) or holds a broken record, so the mean is not proven within max_mean_coi; check a pair with "+toolname.CheckMating, pedigree.MatingGenerations, unread))
		block.COIUnknown = name(j.unknown, "left out: no pair's COI can be computed (no recorded parents), so the mean is not proven within max_mean_coi")
	} else {
		block.Unresolved = name(j.unresolved, "mean_coi null: the pedigree behind the ram or these ewes was not read whole or holds a broken record")
	}
	block.NotChecked = name(j.unchecked, "ranked by index but not checked: the pedigree lookups ran out; each may yet pass")
	switch {
	case e.max != nil && j.short && len(j.unchecked) == 0 && len(j.unresolved) > 0:
		block.Short = fmt.Sprintf("%d of the best %d rams by index are proven to pass and %d are not proven either way (unresolved: %s); rams ranked below them were not read", j.kept, j.ranked, len(j.unresolved), unread)
	case e.max != nil && j.short && len(j.unchecked) == 0:
		block.Short = fmt.Sprintf("only %d of the best %d rams by index pass; rams ranked below them were not read", j.kept, j.ranked)
	}
	if len(e.b.Notes) > 0 {
		block.Notes = e.b.Notes
	}
	if len(e.warnings) > 0 {
		block.Warnings = e.warnings
	}
	return block
}

// readBatch adds the rams of rows to the pedigree from their search rows
// and reads their pedigrees within the lookups left, giving their IDs as
// the pedigree keys them.
func (e *eweSet) readBatch(ctx context.Context, rows [][]any, found map[string]nsip.AnimalRow) ([]string, error) {
	var batch []string
	for _, row := range rows {
		id := strings.ToUpper(row[1].(string))
		src := found[row[1].(string)]
		if src.Sex != "" && e.b.Sex[id] == "" {
			e.b.Sex[id] = src.Sex
		}
		e.b.Add(id, strings.ToUpper(src.Sire), strings.ToUpper(src.Dam))
		e.b.Optional[id] = true
		batch = append(batch, id)
	}
	e.rams = append(e.rams, batch...)
	left := ewesLookups - len(e.ids) - e.b.Lookups
	if err := e.b.Extend(ctx, e.lineagesOf(batch), left); err != nil {
		return nil, err
	}
	return batch, nil
}

// mean is ram's lambs' mean COI with the ewes.
func (e *eweSet) mean(ctx context.Context, ram string) (ramMean, error) {
	var m ramMean
	sum := 0.0
	m.ramOpen = e.open(ram)
	var pairs [][2]string
	for _, ewe := range e.ids {
		// A ram listed among the ewes (a record of the wrong sex) has no
		// lamb with himself: that pair is not settled either.
		if m.ramOpen || ewe == ram || e.open(ewe) {
			m.unresolved = append(m.unresolved, ewe)
			continue
		}
		pairs = append(pairs, [2]string{ram, ewe})
	}
	cois, _, err := pedigree.LambCOIs(ctx, e.held, e.b, pairs)
	if err != nil {
		return m, err
	}
	for _, c := range cois {
		if c != nil {
			sum += *c
			m.known++
		}
	}
	if m.known > 0 && len(m.unresolved) == 0 {
		v := sum / float64(m.known)
		m.mean = &v
	}
	return m, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// apply is a ranking's columns and rows with the ewes' judgement of its
// rows, and the answer's for_ewes block (nil without for_ewes): exact says
// whether the index ranking itself is, all whether every candidate of the
// breed was among rows.
func (e *eweSet) apply(ctx context.Context, cols []string, out [][]any, found map[string]nsip.AnimalRow, topN int, exact, all bool) ([]string, *ForEwes, [][]any, error) {
	if e == nil {
		return cols, nil, out, nil
	}
	kept, block, err := e.judge(ctx, out, found, topN)
	if err != nil {
		return nil, nil, nil, err
	}
	cols = append(append(slices.Clone(cols[:3]), "mean_coi", "ewes_known"), cols[3:]...)
	// The rows are the best rams proven within max_mean_coi when the index
	// ranking is exact and no ram above the last shown might yet be proven
	// with more lookups. A ram of no computable COI cannot be, however
	// many: it is left out without making the answer inexact.
	block.Exact = exact && block.Unresolved == nil && block.NotChecked == nil &&
		(len(kept) == topN || all || e.max == nil)
	return cols, block, kept, nil
}

// cutEffect is what the call's time limit left unresolved of a ranking,
// for its lead (analysis.TimeLimitCut).
func (f *ForEwes) cutEffect() string {
	if f != nil && f.Unresolved != nil {
		return fmt.Sprintf("%d rams' mean COI with the ewes is unresolved for it (for_ewes.unresolved), not for anything in their pedigrees", f.Unresolved.Count)
	}
	return "the ranking is of the animals read (computed says whether it is proven exact)"
}
