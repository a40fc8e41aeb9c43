package analysis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Ranking by one of NSIP's own indexes (US Hair Index, SRC$ Index, ...):
// the value NSIP computed and sent with each animal, higher being better.
// NSIP's search sorts only by a trait code (sortedBreedTrait, the codes of
// the breed's trait ranges), and nothing bounds an index whose weights NSIP
// does not publish, so no early stop can be proven: every matching animal
// is read, up to the scan limit, and the answer is exact only when all were.

// indexNames are the names of the indexes on rows, sorted.
func indexNames(rows []nsip.AnimalRow) []string {
	var out []string
	for _, row := range rows {
		for _, ix := range row.Indexes {
			if !slices.Contains(out, ix.Name) {
				out = append(out, ix.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// foldName is an index name as compared: without case, spaces,
// punctuation or the dollar sign, so that NSIP's row key (usIndex,
// srcIndex), its display name (US Index, SRC$ Index) and a breeder's
// spelling (us-index, SRC index) are one name.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// indexAliases are the names one index goes by, folded: NSIP sends the US
// index of a breed as usIndex where the lineage page and breeders call a
// hair breed's "US Hair Index", and the SRC$ index's dollar is spelled out
// by some. A breed's rows carry one name of each group.
var indexAliases = [][]string{
	{"usindex", "ushairindex", "usmaternalindex", "ushair"},
	{"srcindex", "srcdollarindex", "srcdollar"},
}

// aliasesOf are the folded names that name the same index as folded f,
// f among them.
func aliasesOf(f string) []string {
	for _, g := range indexAliases {
		if slices.Contains(g, f) {
			return g
		}
	}
	return []string{f}
}

// matchIndex is the name among names that asked means: the same name but
// for case, spacing and punctuation, or another name of the same index.
func matchIndex(asked string, names []string) (string, bool) {
	fa := foldName(asked)
	for _, n := range names {
		if foldName(n) == fa {
			return n, true
		}
	}
	for _, n := range names {
		if slices.Contains(aliasesOf(fa), foldName(n)) {
			return n, true
		}
	}
	return "", false
}

// nearestIndex is the name among names that asked plausibly stands for,
// by its spelling or any other name of the same index ("hair index" is
// the US Index on rows that call it that).
func nearestIndex(asked string, names []string) (string, bool) {
	var cands, of []string
	for _, n := range names {
		cands, of = append(cands, n), append(of, n)
		for _, a := range aliasesOf(foldName(n)) {
			cands, of = append(cands, a), append(of, n)
		}
	}
	c, ok := param.Closest(asked, cands)
	if !ok {
		return "", false
	}
	return of[slices.Index(cands, c)], true
}

// unknownIndex is the error for an index NSIP did not send. Its example
// asks for an index NSIP did send, the one meant when it can tell, and
// never repeats the refused name.
func unknownIndex(asked string, breed, rows int, names []string) error {
	if len(names) == 0 {
		return &FixedArgError{ArgError{param.FieldError{Field: "index",
			Problem:  fmt.Sprintf("cannot rank by %s: NSIP sent no index with the first %d of breed %d's matching animals", param.QuoteShort(asked), rows, breed),
			Expected: `weights instead, e.g. {"WWT":1,"BWT":-0.5}`}}, func(ex map[string]any) {
			delete(ex, "index")
			ex[weightsParam.Name] = weightsParam.Example
		}}
	}
	problem := fmt.Sprintf("%s is not an index NSIP sent with breed %d's animals", param.QuoteShort(asked), breed)
	fix := names[0]
	if c, ok := nearestIndex(asked, names); ok {
		problem += fmt.Sprintf("; did you mean %q?", c)
		fix = c
	}
	return &FixedArgError{ArgError{param.FieldError{Field: "index", Problem: problem,
		Expected: fmt.Sprintf("one of the indexes NSIP sent with the first %d animals: %s", rows, strings.Join(names, ", "))}},
		func(ex map[string]any) { ex["index"] = fix }}
}

func indexValue(row nsip.AnimalRow, name string) (float64, bool) {
	for _, ix := range row.Indexes {
		if ix.Name == name {
			return ix.Value, true
		}
	}
	return 0, false
}

func runRankIndex(ctx context.Context, r *call, a *rankArgs, ewes *eweSet) (any, error) {
	breed, topN, asked := a.BreedID, a.TopN, a.Index
	search := map[string]any{"breed_id": breed, "reverse": false}
	crit := ewes.withRams(a.Criteria.criteria())
	scanN := ewes.candidates(topN)
	if crit != nil {
		search["search_criteria"] = criteriaMap(crit)
	}
	stray := summarize.Contradiction(search)
	keep := newRankFilter(a.IncludeGone, crit)
	eb, err := openEvaluation(ctx, r, search)
	if err != nil {
		return nil, err
	}
	name := ""
	top := breeding.NewTopN(scanN)
	rows := map[string]nsip.AnimalRow{}
	var contra []string
	var nContra, read, unindexed int
	sc := newPageScan(searchPages(r, search), rankPages)
	stop := ""
	for stop == "" {
		if !sc.more() {
			stop = "scan limit"
			break
		}
		page, fresh, err := sc.next(ctx)
		if err != nil {
			return nil, err
		}
		if name == "" && len(page) > 0 {
			// The names NSIP sends are the authority; the first page shows
			// them, and a name on none of its animals is refused at once
			// rather than after reading the breed.
			names := indexNames(page)
			n, ok := matchIndex(asked, names)
			if !ok {
				return nil, unknownIndex(asked, breed, len(page), names)
			}
			name = n
		}
		for i, row := range page {
			if !fresh[i] {
				continue
			}
			read++
			if _, why := stray(row); why != "" {
				if len(contra) < maxNamed {
					contra = append(contra, row.LPNID+" ("+why+")")
				}
				nContra++
				continue
			}
			if keep.leaves(row) {
				continue
			}
			v, ok := indexValue(row, name)
			if !ok {
				unindexed++
				continue
			}
			top.Offer(breeding.Scored{ID: row.LPNID, Score: v})
			rows[row.LPNID] = row
		}
		if sc.ended {
			stop = "all read"
		}
	}
	total := sc.total
	if name == "" {
		name = asked // no animal matched: nothing to check the name against
	}
	exact := stop == "all read" && sc.consistent()
	v, err := settle(ctx, r, eb, exact)
	if err != nil {
		return nil, err
	}
	columns := []string{"rank", "lpn_id", "index", "sex", "status", "genotyped"}
	out := make([][]any, 0, scanN)
	unstated := 0
	for i, s := range top.Rows() {
		row := rows[s.ID]
		sex := row.Sex
		if sex == "" {
			sex = "unknown"
		}
		if row.Genotyped == "" {
			unstated++
		}
		out = append(out, []any{i + 1, s.ID, s.Score, sex, statusCell(row), genotypedCell(row.Genotyped)})
	}
	computed := IndexRankComputed{
		Method: fmt.Sprintf("ranked by NSIP's own %s as NSIP computed it and sent it with each animal, higher first (ties by LPN ID); "+
			"NSIP's search sorts only by trait codes, not by an index, so its pages were read in its own order with no early stop, every matching animal up to %d pages of %d", name, rankPages, scanPageSize),
		ScanProof: v.proof(sc, eb, stop, read, unindexed),
	}
	if stop == "scan limit" {
		computed.Limit = fmt.Sprintf("not proven exact: %d of %d animals read before the scan limit of %d pages, and NSIP cannot sort by an index, so an unread animal could still rank; narrow search_criteria (gender, status, born_after) to read them all", read, total, rankPages)
	}
	answer := IndexRankAnswer{Columns: columns, Index: name, Computed: computed}
	answer.Genotyped = genotypedNote(unstated, len(out), true)
	answer.ContradictingCriteria = contradicting(nContra, contra)
	answer.DeadOrCulled, answer.SexNotRecorded = keep.blocks()
	if unindexed > 0 {
		answer.Unranked = fmt.Sprintf("%d animals came without the %s and were not ranked", unindexed, name)
	}
	if answer.Columns, answer.ForEwes, out, err = ewes.apply(ctx, answer.Columns, out, rows, topN, answer.Computed.Exact, len(out) < scanN); err != nil {
		return nil, err
	}
	if a.Percentiles {
		answer.Percentiles = "breed percentiles are of EBVs; a ranking by NSIP's index shows none: ask " + toolname.CompareAnimals + " with percentiles for these animals"
	}
	fitted, shown := fitRows(ctx, r, len(out), func(n int) *IndexRankAnswer {
		a := answer
		a.Top = out[:n]
		if n < len(out) {
			a.NotShown = r.restCall(nil, n, len(out), fmt.Sprintf("ranks %d to %d", n+1, len(out)))
			a.DeadOrCulled, a.SexNotRecorded = unnamed(a.DeadOrCulled), unnamed(a.SexNotRecorded)
		}
		return &a
	})
	return withRows(fitted, shown, answer.Columns, out), nil
}
