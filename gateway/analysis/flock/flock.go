package flock

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/facts"
	"github.com/nsip-tools/nsip-mcp/gateway/analysis/scan"

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

var FlockSummary = &analysis.Def{
	Def: tooldef.Def{
		Name: toolname.FlockSummary, Title: "NSIP group statistics", Method: "flock_summary",
		Toolset: toolsets.Analysis, Kind: summarize.KindGeneric,
		Desc: `Describe a whole group: counts by sex, status and birth year; per trait n, mean, SD, min and max with holders, and the same per sex ` +
			fmt.Sprintf("(500-1500 tokens; every page of %d, at most %d lookups, progeny_of %d more). ", scan.PageSize, scan.FlockPages+scan.EvalLookups, scan.ProgenyRecords) +
			`Exactly one of: flock_id, e.g. "640238" (breed_id narrows it); progeny_of, an LPN ID; ` +
			`search, {"breed_id":640,"search_criteria":{...}} as ` + toolname.SearchAnimals + `; traits, e.g. ["YWT"]: those asked about, kept per sex.`,
		Args: flockParams,
	},
	// A search group a breed's pass can answer reads NSIP's date before
	// its pages, and again after a breed's pages read whole (pass.go);
	// a progeny group reads its offspring's records, NSIP's progeny rows
	// carrying no EBVs.
	Ceiling: scan.FlockPages + scan.EvalLookups + scan.ProgenyRecords,
	Answers: []reflect.Type{reflect.TypeFor[FlockAnswer]()},
	Run:     analysis.Typed(runFlock),
	Correct: oneGroup,
}

// Args are nsip_flock_summary's arguments, described once: the schema
// and validation derive from them (flockParams), and the run reads them.
// Exactly one of FlockID, ProgenyOf and Search chooses the group, a rule
// across arguments that the run applies (chooseGroup).
type Args struct {
	FlockID   string       `json:"flock_id,omitempty"`
	BreedID   int          `json:"breed_id,omitempty"` // narrows FlockID only
	ProgenyOf string       `json:"progeny_of,omitempty"`
	Search    *groupSearch `json:"search,omitempty"`
	// Traits are the traits the question is about: their statistics per
	// sex are the last part of the answer to give way to the budget.
	Traits []string `json:"traits,omitempty"`
	param.Budget
}

// groupSearch is the search argument: a breed and nsip_search_animals's
// criteria.
type groupSearch struct {
	BreedID  int               `json:"breed_id"`
	Criteria *nsiparg.Criteria `json:"search_criteria,omitempty"`
}

var flockParams = param.MustStruct[Args](param.Tables(
	param.BudgetTable,
	param.Of(func(a *Args) param.Described {
		return param.Described{
			&a.FlockID: {Example: "640238", MaxLen: nsip.MaxCriteriaLength, Pattern: param.AlnumPattern, Quiet: true},
			&a.BreedID: {Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true, Complete: param.Breeds},
			// Upper case, as NSIP writes LPN IDs: one animal's offspring are
			// one question, whatever the case it is asked in.
			&a.ProgenyOf: {Example: nsiparg.ExampleLPN, Complete: param.LPNs,
				MinLen: nsip.MinLPNIDLength, MaxLen: nsip.MaxLPNIDLength, Pattern: param.AlnumPattern, Upper: true, Quiet: true},
			// The search's criteria are described by nsip_search_animals; the
			// schema says only that it is an object, and validation does the rest.
			&a.Search: {Brief: true, Example: map[string]any{"breed_id": 640, "search_criteria": map[string]any{"gender": "Male"}}},
			&a.Traits: {List: &param.List{MinItems: 1, MaxItems: 30, Item: nsiparg.Traits, Example: []string{"YWT"}}},
		}
	}),
	param.Of(func(g *groupSearch) param.Described {
		return param.Described{&g.BreedID: nsiparg.BreedID, &g.Criteria: nsiparg.CriteriaArg}
	}),
	nsiparg.CriteriaTable,
))

// oneGroup keeps the first group argument of an example, or gives the
// flock one, and breed_id only beside flock_id.
func oneGroup(ex *param.Call) {
	keep := ""
	for _, name := range groupArgs {
		if _, ok := ex.Value(name); ok && keep == "" {
			keep = name
		} else {
			ex.Delete(name)
		}
	}
	switch keep {
	case "":
		ex.Set(groupArgs[0], "640238")
	case groupArgs[0]:
	default:
		ex.Delete(flockParams.Name("BreedID"))
	}
}

// groupArgs are the names of which exactly one chooses the group.
var groupArgs = []string{flockParams.Name("FlockID"), flockParams.Name("ProgenyOf"), flockParams.Name("Search")}

func sexName(s string) string {
	switch {
	case s == "":
		return "unknown"
	case facts.IsSex(s, "male"):
		return "male"
	case facts.IsSex(s, "female"):
		return "female"
	}
	return s
}

// group is the animals one call describes, as its arguments chose them.
type group struct {
	echo   func(*FlockAnswer) // names the group in the answer, as the argument did
	method string
	read   scan.PageReader
	// search is the NSIP search the group is, nil for progeny: asked again
	// with a gender, it gives the sexes NSIP's rows do not record.
	search *analysis.Query
	// stray says why a row NSIP returned does not belong to the group,
	// "" when it does as far as the row shows.
	stray    func(row nsip.AnimalRow) string
	strayWhy string
	noStatus bool // the listing's rows carry no status
	// statusNote says how a status word of the search was read.
	statusNote string
	empty      string
	// recordsRead and recordsUnread count the rows whose EBVs were read,
	// or could not be, from the animal's own record, its listing's rows
	// carrying none.
	recordsRead, recordsUnread atomic.Int64
	// pass is the breed and criteria of a search a breed's pass can
	// answer, nil for any other group; via and passNote say how the group
	// was read and what became of the pass (pass.go).
	pass     *groupPass
	via      string
	passNote string
}

// chooseGroup reads which group the call is about: exactly one of
// flock_id, progeny_of and search.
func chooseGroup(r *analysis.Call, a *Args) (*group, error) {
	var given []string
	for i, ok := range []bool{a.FlockID != "", a.ProgenyOf != "", a.Search != nil} {
		if ok {
			given = append(given, groupArgs[i])
		}
	}
	if len(given) != 1 {
		problem := "is required: give exactly one of flock_id, progeny_of or search"
		if len(given) > 1 {
			problem = fmt.Sprintf("was given with %s: give exactly one of flock_id, progeny_of or search", strings.Join(given[1:], " and "))
		}
		field := groupArgs[0]
		if len(given) > 0 {
			field = given[0]
		}
		return nil, &analysis.ArgError{FieldError: param.FieldError{Field: field, Problem: problem,
			Expected: `one of {"flock_id":"640238"}, {"progeny_of":"` + nsiparg.ExampleLPN + `"} or {"search":{"breed_id":640,"search_criteria":{"gender":"Male"}}}`}}
	}
	if a.BreedID != 0 && given[0] != groupArgs[0] {
		problem := "only narrows flock_id; with " + given[0] + " leave it out"
		if given[0] == groupArgs[2] {
			problem += " and give search.breed_id"
		}
		return nil, &analysis.ArgError{FieldError: param.FieldError{Field: flockParams.Name("BreedID"), Problem: problem, Expected: "integer 1..99999 beside flock_id, e.g. 640"}}
	}
	switch {
	case a.FlockID != "":
		return flockGroup(r, a.FlockID, a.BreedID), nil
	case a.ProgenyOf != "":
		return progenyGroup(r, a.ProgenyOf), nil
	}
	return searchGroup(r, a.Search), nil
}

// flockGroup is the animals of flock, of breed when not 0.
func flockGroup(r *analysis.Call, flock string, breed int) *group {
	search := analysis.SearchQuery(breed, &nsiparg.Criteria{FlockID: flock})
	return &group{
		echo:   func(a *FlockAnswer) { a.FlockID = flock },
		method: "every page of NSIP's search filtered by flock",
		read:   scan.SearchPages(r, &search),
		search: &search,
		stray: func(row nsip.AnimalRow) string {
			// A row's flock is its flockCode, else the one its LPN ID
			// carries: a live row of another flock's ID is a stray too.
			if fc, _ := row.Flock(); fc != "" && !strings.EqualFold(strings.TrimSpace(fc), flock) {
				return "flock " + fc
			}
			return ""
		},
		strayWhy: "NSIP returned them for this flock but their record names another flock",
		empty:    "NSIP has no animals recorded in this flock; check the flock code (the first digits of its animals' LPN IDs after the breed, e.g. 640238 in 6402382024NCS310)",
	}
}

func progenyGroup(r *analysis.Call, id string) *group {
	g := &group{
		echo:     func(a *FlockAnswer) { a.ProgenyOf = id },
		method:   "every page of NSIP's progeny of the animal",
		stray:    func(nsip.AnimalRow) string { return "" },
		noStatus: true,
		empty:    "NSIP records no offspring of this animal",
	}
	g.read = func(ctx context.Context, page int) ([]nsip.AnimalRow, int, error) {
		p, err := r.Progeny(ctx, id, page, scan.PageSize)
		if err != nil {
			return nil, 0, analysis.About(groupArgs[1], id, err)
		}
		rows := make([]nsip.AnimalRow, len(p.Animals))
		for i, a := range p.Animals {
			rows[i] = nsip.AnimalRow{LPNID: a.LPNID, Sex: a.Sex, DateOfBirth: a.DateOfBirth, Traits: a.Traits}
		}
		read, unread, err := scan.WithRecords(ctx, r, rows)
		g.recordsRead.Add(int64(read))
		g.recordsUnread.Add(int64(unread))
		return rows, p.TotalCount, err
	}
	return g
}

func searchGroup(r *analysis.Call, s *groupSearch) *group {
	search := analysis.SearchQuery(s.BreedID, s.Criteria)
	stray := summarize.SearchContradiction(search.SearchParams)
	var gp *groupPass
	if f, ok := breedpass.PassFilterOf(s.Criteria); ok {
		gp = &groupPass{breed: s.BreedID, filter: f, search: &search, whole: breedpass.BreedWide(s.Criteria)}
	}
	g := &group{
		pass:   gp,
		echo:   func(a *FlockAnswer) { a.Search = asMap(s) },
		method: "every page of NSIP's search with the breed and criteria",
		read:   scan.SearchPages(r, &search),
		search: &search,
		stray: func(row nsip.AnimalRow) string {
			_, why := stray(row)
			return why
		},
		strayWhy: "NSIP returned them for this search but their record contradicts the breed or search_criteria, a sign it ignored a criterion",
		empty:    "NSIP has no animals matching this search; loosen search_criteria or check breed_id with " + toolname.ListBreeds,
	}
	status := ""
	if s.Criteria != nil {
		status = s.Criteria.Status
		g.statusNote = nsip.StatusNote(status)
	}
	// A status word of several statuses was sent as none: the rows of
	// the others are left out here, by the status they state.
	if m, several := nsip.StatusSeveral(status); several {
		g.stray = func(row nsip.AnimalRow) string {
			if st := strings.TrimSpace(row.Status); st != "" && !m.Holds(st) {
				return "status " + st
			}
			_, why := stray(row)
			return why
		}
		g.strayWhy = m.Note() + ", which NSIP takes no one search for: NSIP was asked for every status and the rows of the others left out here; " +
			"any other row named contradicts the breed or search_criteria, a sign NSIP ignored a criterion"
	}
	return g
}

// runFlock reads the group's animals and answers with its counts and
// each trait's statistics, fitted to the budget.
func runFlock(ctx context.Context, r *analysis.Call, a *Args) (any, error) {
	g, err := chooseGroup(r, a)
	if err != nil {
		return nil, err
	}
	s, err := g.scan(ctx, r)
	if err != nil {
		return nil, err
	}
	var sexNote string
	if g.search != nil && s.Complete {
		if sexNote, err = scan.SexBySearch(ctx, r, *g.search, s.Rows); err != nil {
			return nil, err
		}
	}
	t := tallyFlock(g, s.Rows)
	computed := flockComputed(r, g, s, len(t.outside))
	computed.Sex = sexNote
	if t.yearsFromLPN > 0 {
		computed.BirthYears = fmt.Sprintf("%d of the %d birth years %s", t.yearsFromLPN, t.n, nsip.LPNReading)
	}
	out := &FlockAnswer{Animals: t.n, BySex: t.bySex, ByBirthYear: t.byYear, Traits: t.traitRows(3, all), NoEBV: t.without(a.Traits)}
	g.echo(out)
	if g.noStatus {
		computed.ByStatus = "left out: NSIP's progeny rows carry no status"
	} else {
		out.ByStatus = t.byStatus
	}
	out.Computed = computed
	if len(t.outside) > 0 {
		out.LeftOut = &FlockLeftOut{Why: g.strayWhy, Count: len(t.outside), LPNIDs: t.outside[:min(len(t.outside), 10)]}
	}
	fitTraits(ctx, r, out, t, a.Traits)
	if t.n == 0 && len(t.outside) == 0 {
		out.Note = g.empty
	}
	return &full.Answer{Value: out, Table: groupTable(s.Rows, t.left, g.noStatus)}, nil
}

// flockTally is what a group's rows add up to: counts by sex, status and
// birth year, and each trait's values, overall and by sex.
type flockTally struct {
	n                       int
	yearsFromLPN            int // birth years read from LPN IDs
	bySex, byStatus, byYear map[string]int
	values                  map[string][]breeding.Value
	bySexValues             map[string]map[string][]breeding.Value // trait -> sex -> values
	codes                   []string                               // the traits, in the site's order
	outside                 []string                               // rows against the group's filter
	left                    []string                               // why each row was left out, "" if counted
}

// tallyFlock counts the rows of g. The filter is NSIP's; a row that
// contradicts it is left out and reported rather than counted.
func tallyFlock(g *group, rows []nsip.AnimalRow) *flockTally {
	t := &flockTally{bySex: map[string]int{}, byStatus: map[string]int{}, byYear: map[string]int{},
		values: map[string][]breeding.Value{}, bySexValues: map[string]map[string][]breeding.Value{}}
	for _, row := range rows {
		why := g.stray(row)
		t.left = append(t.left, why)
		if why != "" {
			t.outside = append(t.outside, row.LPNID)
			continue
		}
		t.n++
		t.bySex[sexName(row.Sex)]++
		if !g.noStatus {
			st := row.Status
			if st == "" {
				st = "unknown"
			}
			t.byStatus[st]++
		}
		y, lpn := facts.RowYear(row)
		t.byYear[y]++
		if lpn {
			t.yearsFromLPN++
		}
		sex := sexName(row.Sex)
		for _, tr := range row.Traits {
			c := strings.ToUpper(tr.Code)
			v := breeding.Value{ID: row.LPNID, V: tr.Value}
			t.values[c] = append(t.values[c], v)
			if t.bySexValues[c] == nil {
				t.bySexValues[c] = map[string][]breeding.Value{}
			}
			t.bySexValues[c][sex] = append(t.bySexValues[c][sex], v)
		}
	}
	t.codes = slices.Collect(maps.Keys(t.values))
	facts.TraitOrder(t.codes)
	return t
}

// traitRows are each trait's statistics, with shown holders of each
// extreme listed and the rest counted, and per sex for the traits perSex
// holds.
func (t *flockTally) traitRows(shown int, perSex func(code string) bool) []FlockTrait {
	traits := make([]FlockTrait, 0, len(t.codes))
	for _, c := range t.codes {
		st, _ := breeding.Describe(t.values[c])
		st.Mean, st.SD = facts.Round4(st.Mean), facts.Round4(st.SD)
		to := FlockTrait{Code: c, Stats: st}
		if perSex(c) {
			to.BySex = sexStats(t.bySexValues[c], len(t.bySex))
		}
		if len(st.MinIDs) > shown {
			to.MinMore, to.MinIDs = len(st.MinIDs)-shown, st.MinIDs[:shown]
		}
		if len(st.MaxIDs) > shown {
			to.MaxMore, to.MaxIDs = len(st.MaxIDs)-shown, st.MaxIDs[:shown]
		}
		traits = append(traits, to)
	}
	return traits
}

// flockComputed says how the statistics were reached and, when the pages
// were not all read or not consistent, how much of the group they cover.
func flockComputed(r *analysis.Call, g *group, s *scan.Scanned, leftOut int) FlockComputed {
	method := g.method
	if g.recordsRead.Load()+g.recordsUnread.Load() > 0 {
		method += scan.ProgenyEBVs
	}
	if n := g.recordsUnread.Load(); n > 0 {
		method += fmt.Sprintf("; %d offspring's records could not be read (not found, or past the call's lookups or time), so their EBVs are not counted", n)
	}
	if g.statusNote != "" {
		method += "; " + g.statusNote
	}
	computed := FlockComputed{
		Method:      method + "; SD is the sample standard deviation (n-1); each trait over the animals that have an EBV for it",
		Via:         g.via,
		BreedPass:   g.passNote,
		AnimalsRead: len(s.Rows),
		NSIPCount:   s.Total,
		Pages:       s.Pages,
		Complete:    s.Complete,
		Upstream:    r.Upstream(),
		PageCeiling: scan.FlockPages,
		Duplicates:  s.Dupes,
		LeftOut:     leftOut,
	}
	switch {
	case s.Ended && !s.Complete:
		computed.Incomplete = fmt.Sprintf("NSIP's pages were not consistent (%s), so %d of NSIP's %d animals were read", s.Wrong, len(s.Rows), s.Total)
	case !s.Complete:
		computed.Incomplete = fmt.Sprintf("stopped at the ceiling of %d pages: %d of NSIP's %d animals were read", scan.FlockPages, len(s.Rows), s.Total)
	}
	return computed
}

// sexStats is a trait's statistics per sex, nil when the group has one sex
// only (sexes counts them), whose statistics are the trait's own.
func sexStats(by map[string][]breeding.Value, sexes int) map[string]SexStats {
	if sexes < 2 || len(by) == 0 {
		return nil
	}
	out := make(map[string]SexStats, len(by))
	for sex, vs := range by {
		st, ok := breeding.Describe(vs)
		if !ok {
			continue
		}
		out[sex] = SexStats{N: st.N, Mean: facts.Round4(st.Mean), SD: facts.Round4(st.SD)}
	}
	return out
}

// rowCell is row's cell in column c, of those every row has; "" for an
// empty cell or a trait's column. left is why the row was left out.
func rowCell(row nsip.AnimalRow, left, c string) string {
	switch c {
	case "lpn_id":
		return row.LPNID
	case "sex":
		return sexName(row.Sex)
	case "status":
		return row.Status
	case "birth_year":
		if y, _ := facts.RowYear(row); y != "unknown" {
			return y
		}
		return ""
	case "date_of_birth":
		return row.DateOfBirth
	case "flock_id":
		fc, _ := row.Flock()
		return fc
	case "sire":
		return row.Sire
	case "dam":
		return row.Dam
	case "left_out":
		return left
	}
	return ""
}

// groupTable is every row read, as the summary names its fields: the
// animal, sex, status, birth year and date, each trait's EBV and
// accuracy, and why a row was left out of the counts.
func groupTable(rows []nsip.AnimalRow, left []string, noStatus bool) *full.Table {
	var codes []string
	seen := map[string]bool{}
	for _, row := range rows {
		for _, t := range row.Traits {
			if c := strings.ToUpper(t.Code); !seen[c] {
				seen[c] = true
				codes = append(codes, c)
			}
		}
	}
	facts.TraitOrder(codes)
	cols := []string{"lpn_id", "sex", "status", "birth_year", "date_of_birth", "flock_id", "sire", "dam", "left_out"}
	if noStatus {
		cols = slices.DeleteFunc(cols, func(c string) bool { return c == "status" || c == "flock_id" || c == "sire" || c == "dam" })
	}
	at := map[string]int{}
	for _, c := range codes {
		at[c] = len(cols)
		cols = append(cols, c, c+"_acc")
	}
	t := &full.Table{Columns: cols, Rows: make([][]any, len(rows))}
	for i, row := range rows {
		cells := make([]any, len(cols))
		for j, c := range cols {
			if v := rowCell(row, left[i], c); v != "" {
				cells[j] = v
			}
		}
		for _, tr := range row.Traits {
			j := at[strings.ToUpper(tr.Code)]
			cells[j] = tr.Value
			if tr.HasAccuracy {
				cells[j+1] = tr.Accuracy
			}
		}
		t.Rows[i] = cells
	}
	return t
}

// asMap is v as a JSON object, as a search's arguments and an answer's
// echo of them take it; nil for nil.
func asMap(v any) map[string]any {
	var out map[string]any
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &out) // a struct's JSON is an object
	}
	return out
}
