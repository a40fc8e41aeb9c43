package rank

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
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
		return &analysis.FixedArgError{ArgError: analysis.ArgError{FieldError: param.FieldError{Field: "index",
			Problem:  fmt.Sprintf("cannot rank by %s: NSIP sent no index with the first %d of breed %d's matching animals", param.QuoteShort(asked), rows, breed),
			Expected: `weights instead, e.g. {"WWT":1,"BWT":-0.5}`}},
			Fix: []param.Edit{param.Drop("index"), param.Assign(analysis.WeightsParam.Name, analysis.WeightsParam.Example)}}
	}
	problem := fmt.Sprintf("%s is not an index NSIP sent with breed %d's animals", param.QuoteShort(asked), breed)
	fix := names[0]
	if c, ok := nearestIndex(asked, names); ok {
		problem += fmt.Sprintf("; did you mean %q?", c)
		fix = c
	}
	return &analysis.FixedArgError{ArgError: analysis.ArgError{FieldError: param.FieldError{Field: "index", Problem: problem,
		Expected: fmt.Sprintf("one of the indexes NSIP sent with the first %d animals: %s", rows, strings.Join(names, ", "))}},
		Fix: []param.Edit{param.Assign("index", fix)}}
}

func indexValue(row nsip.AnimalRow, name string) (float64, bool) {
	for _, ix := range row.Indexes {
		if ix.Name == name {
			return ix.Value, true
		}
	}
	return 0, false
}

// runRankIndex ranks a breed by one of NSIP's own indexes: every matching
// animal is read (up to the scan limit), since nothing bounds the index.
// A pass of the breed kept under the evaluation answers at no page when
// the criteria are ones it holds (../breedpass/serve.go).
func runRankIndex(ctx context.Context, r *analysis.Call, a *Args, ewes *eweSet) (any, error) {
	crit := ewes.withRams(criteriaOf(a.Criteria))
	search := analysis.SearchQuery(a.BreedID, crit)
	scanN := ewes.candidates(a.TopN)
	rs, err := openRankScan(ctx, r, search, crit, scanN)
	if err != nil {
		return nil, err
	}
	s := &indexRank{rankScan: rs, r: r, breed: a.BreedID, asked: a.Index}
	if f, ok := breedpass.PassFilterOf(crit); ok {
		s.passable = true
		if p := scan.KeptPass(ctx, r, a.BreedID, rs.eb.Date); p != nil && p.Serves(f) {
			s.sc = scan.NewPageScan(scan.KeptPages(p.Rows(f, false)), scan.PagesOf(p.Animals()))
			s.pass = scan.KeptNote(p)
		} else {
			s.collect = breedpass.BreedWide(crit)
		}
	}
	if s.pass == "" {
		read, stop := s.readAhead(scan.SearchPages(r, &rs.search))
		defer stop()
		s.sc = scan.NewPageScan(read, rankPages)
	}
	if err := s.scan(ctx); err != nil {
		return nil, err
	}
	if s.name == "" {
		s.name = s.asked // no animal matched: nothing to check the name against
	}
	return s.answer(ctx, a, ewes)
}

// indexRank is a ranking by NSIP's index as it reads NSIP: besides what
// any ranking's scan keeps, the index's name as NSIP sends it, learnt
// from the first page.
type indexRank struct {
	*rankScan
	r     *analysis.Call
	breed int
	asked string // the index as the caller named it
	name  string // the index as NSIP names it, "" until a page is read

	passable bool             // a pass of the breed can answer the criteria
	pass     string           // what the pass it was answered from is, "" when pages were read
	collect  bool             // the pages are the breed's, kept as its pass when read whole
	all      []nsip.AnimalRow // every fresh row read, when collect
}

// ReadAhead is read with the pages after the first read at once: NSIP
// cannot sort by an index, so every page up to its count is wanted, but
// only once the first page has shown the index asked for (a name it does
// not show is refused after that page alone).
func (s *indexRank) readAhead(read scan.PageReader) (scan.PageReader, func()) {
	var ahead scan.PageReader
	stopAhead := func() {}
	return func(ctx context.Context, n int) ([]nsip.AnimalRow, int, error) {
		if ahead != nil {
			return ahead(ctx, n)
		}
		rows, total, err := read(ctx, n)
		if _, ok := matchIndex(s.asked, indexNames(rows)); ok && err == nil {
			ahead, stopAhead = scan.ReadAheadAfter(ctx, read, s.r.Parallel(), rankPages, n, total)
		}
		return rows, total, err
	}, func() { stopAhead() }
}

// scan reads every page up to the scan limit, scoring each fresh row by
// the index.
func (s *indexRank) scan(ctx context.Context) error {
	for s.stop == "" {
		if !s.sc.More() {
			s.stop = "scan limit"
			break
		}
		page, fresh, err := s.sc.Next(ctx)
		if err != nil {
			return err
		}
		if s.name == "" && len(page) > 0 {
			// The names NSIP sends are the authority; the first page shows
			// them, and a name on none of its animals is refused at once
			// rather than after reading the breed.
			names := indexNames(page)
			n, ok := matchIndex(s.asked, names)
			if !ok {
				return unknownIndex(s.asked, s.breed, len(page), names)
			}
			s.name = n
		}
		for i, row := range page {
			if s.collect && fresh[i] {
				s.all = append(s.all, row)
			}
			if !fresh[i] || !s.admit(row) {
				continue
			}
			v, ok := indexValue(row, s.name)
			s.score(row, v, ok)
		}
		if s.sc.Ended {
			s.stop = "all read"
		}
	}
	return nil
}

// answer is the ranking read, with the ewes' COI when asked, fitted to
// the budget.
func (s *indexRank) answer(ctx context.Context, a *Args, ewes *eweSet) (any, error) {
	// The ranked animals' records come first: one of the other sex leaves
	// the ranking before it is settled.
	nRecords, err := s.records(ctx, s.r)
	if err != nil {
		return nil, err
	}
	v, err := s.settle(ctx)
	if err != nil {
		return nil, err
	}
	columns := []string{"rank", "lpn_id", "index", "sex", "status", "birth_year", "genotyped"}
	out, unstated := s.table(func(x float64) any { return x }, nil)
	computed := IndexRankComputed{
		Method: fmt.Sprintf("ranked by NSIP's own %s as NSIP computed it and sent it with each animal, higher first (ties by LPN ID); "+
			"NSIP's search sorts only by trait codes, not by an index, so its pages were read in its own order with no early stop, every matching animal up to %d pages of %d", s.name, rankPages, scan.PageSize),
		Via:       scan.ViaPages,
		ScanProof: v.Proof(s.sc, s.eb, s.stop, s.read, s.unindexed),
	}
	if s.pass != "" {
		computed.Method = fmt.Sprintf("ranked by NSIP's own %s as NSIP computed it and sent it with each animal, higher first (ties by LPN ID), "+
			"over every animal of the breed's pass held to search_criteria's sex and status as NSIP's search filters them: %s", s.name, scan.PassRankMethod)
		computed.Via, computed.Pages = scan.ViaPass, 0
	}
	computed.BreedPass = s.passNote(ctx, v)
	if s.stop == "scan limit" {
		computed.Limit = fmt.Sprintf("not proven exact: %d of %d animals read before the scan limit of %d pages, and NSIP cannot sort by an index, so an unread animal could still rank; narrow search_criteria (gender, status, born_after) to read them all", s.read, s.sc.Total, rankPages)
	}
	answer := IndexRankAnswer{Columns: columns, Index: s.name, Computed: computed}
	answer.Genotyped = facts.GenotypedNote(unstated, len(out), nRecords == 0)
	answer.FromRecords = scan.FromRecordsNote(nRecords, len(out))
	answer.ContradictingCriteria = contradicting(s.nContra, s.contra)
	answer.LeftOutByStatus, answer.SexFromSearch = s.keep.blocks()
	answer.BirthYears = s.birthYearsNote()
	answer.StatusRead = statusRead(a.Criteria)
	if s.unindexed > 0 {
		answer.Unranked = fmt.Sprintf("%d animals came without the %s and were not ranked", s.unindexed, s.name)
	}
	if answer.Columns, answer.ForEwes, out, err = ewes.apply(ctx, answer.Columns, out, s.rows, a.TopN, answer.Computed.Exact, len(out) < s.scanN); err != nil {
		return nil, err
	}
	if a.Percentiles {
		answer.Percentiles = "breed percentiles are of EBVs; a ranking by NSIP's index shows none: ask " + toolname.CompareAnimals + " with percentiles for these animals"
	}
	fitted, shown := analysis.FitRows(ctx, s.r, len(out), func(n int) *IndexRankAnswer {
		a := answer
		a.Top = out[:n]
		if n < len(out) {
			a.NotShown = s.r.RestCall(analysis.SetArgs{}, n, len(out), fmt.Sprintf("ranks %d to %d", n+1, len(out)))
			a.LeftOutByStatus, a.SexFromSearch = unnamed(a.LeftOutByStatus), unnamed(a.SexFromSearch)
		}
		return &a
	})
	return analysis.WithRows(fitted, shown, answer.Columns, out), nil
}

// settle is the scan's verdict. Pages read are proven of one evaluation
// by the date read again after them; a pass kept under the evaluation the
// date read before gives was proven so when it was read.
func (s *indexRank) settle(ctx context.Context) (scan.Verdict, error) {
	exact := s.stop == "all read" && s.sc.Consistent()
	if s.pass == "" {
		return scan.Settle(ctx, s.r, s.eb, exact)
	}
	v, err := scan.Settle(ctx, s.r, s.eb, false)
	v.Exact = exact && v.Stale == ""
	return v, err
}

// passNote says what became of the breed's pass: answered from, kept
// from the pages read whole, or being read in the background for a later
// call when the pages were more than a ranking reads; "" for none.
func (s *indexRank) passNote(ctx context.Context, v scan.Verdict) string {
	switch {
	case s.pass != "":
		return s.pass
	case s.collect && v.Exact:
		return scan.KeepPages(ctx, s.r, s.breed, s.eb.Date, s.all)
	case s.passable && s.stop == "scan limit":
		return scan.FillPass(s.r, s.breed, s.eb.Date, fmt.Sprintf("the search's %d animals are more than the %d pages a ranking reads", s.sc.Total, rankPages))
	}
	return ""
}
