package analysis

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
)

// scanPageSize is the page size analyses read searches with: NSIP's largest.
const scanPageSize = nsip.MaxPageSize

const flockPages = 30

var FlockSummary = &Def{
	Name: "nsip_flock_summary", Title: "NSIP flock statistics", Method: "flock_summary",
	Desc: `Statistics over every animal of one flock: counts by sex, status and birth year, and per trait n, mean, SD, min and max with the animals holding them ` +
		fmt.Sprintf("(500-1500 tokens; reads every page, %d animals per NSIP lookup, at most %d lookups). ", scanPageSize, flockPages) +
		`Arguments: flock_id, the flock code, e.g. "640238"; breed_id (optional, only that breed), e.g. 640. ` +
		`Next: nsip_rank_animals to rank the breed, nsip_compare_animals for a few animals.`,
	Params: []param.Spec{
		{Name: "flock_id", Kind: param.String, Required: true, Example: "640238", MaxLen: nsip.MaxCriteriaLength, Pattern: param.AlnumPattern, Quiet: true},
		{Name: "breed_id", Kind: param.Integer, Example: 640, Min: param.Bound(1), Max: param.Bound(99999), Quiet: true},
	},
	Ceiling: flockPages,
	Run:     runFlock,
}

var yearPattern = regexp.MustCompile(`(?:^|\D)((?:19|20)\d\d)(?:\D|$)`)

// birthYear reads the year from any of NSIP's date forms: 2/13/2024,
// 2024-02-13T00:00:00, 2024-02-13.
func birthYear(s string) string {
	if m := yearPattern.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "unknown"
}

func sexName(s string) string {
	switch {
	case s == "":
		return "unknown"
	case isSex(s, "male"):
		return "male"
	case isSex(s, "female"):
		return "female"
	}
	return s
}

// scanned is every row of a search, read page by page.
type scanned struct {
	rows      []nsip.AnimalRow
	total     int // NSIP's recordCount
	pages     int
	dupes     int
	missing   int  // rows absent from pages short of NSIP's count
	ended     bool // the last page by NSIP's count was read
	complete  bool // ended with no row missing or repeated
	pageLimit int
}

// scanAll reads pages of a search until NSIP has no more or the page limit.
func scanAll(ctx context.Context, r *call, args map[string]any, pageLimit int) (*scanned, error) {
	s := &scanned{pageLimit: pageLimit}
	seen := map[string]bool{}
	for page := 0; page < pageLimit; page++ {
		a := maps.Clone(args)
		a["page"], a["page_size"] = page, scanPageSize
		res, err := r.search(ctx, a)
		if err != nil {
			return nil, err
		}
		s.pages++
		s.total = res.TotalCount
		for _, row := range res.Results {
			if seen[row.LPNID] {
				s.dupes++
				continue
			}
			seen[row.LPNID] = true
			s.rows = append(s.rows, row)
		}
		// A short page before the count is reached is missing rows, not
		// the end (NSIP does not promise full pages); an empty one ends
		// the scan, as nothing more can be expected.
		last := (page+1)*scanPageSize >= res.TotalCount
		if !last && len(res.Results) < scanPageSize {
			s.missing += scanPageSize - len(res.Results)
		}
		if last || len(res.Results) == 0 {
			s.ended = true
			s.complete = s.missing == 0 && s.dupes == 0
			break
		}
	}
	return s, nil
}

func runFlock(ctx context.Context, r *call, args map[string]any) (any, error) {
	flock := args["flock_id"].(string)
	search := map[string]any{"search_criteria": map[string]any{"flock_id": flock}}
	if b, ok := args["breed_id"].(int); ok {
		search["breed_id"] = b
	}
	s, err := scanAll(ctx, r, search, flockPages)
	if err != nil {
		return nil, err
	}
	bySex, byStatus, byYear := map[string]int{}, map[string]int{}, map[string]int{}
	values := map[string][]breeding.Value{}
	var outside []string
	n := 0
	for _, row := range s.rows {
		// The filter is NSIP's; a row that names another flock is left out
		// and reported rather than counted.
		if fc := strings.TrimSpace(row.FlockCode); fc != "" && !strings.EqualFold(fc, flock) {
			outside = append(outside, row.LPNID)
			continue
		}
		n++
		bySex[sexName(row.Sex)]++
		st := row.Status
		if st == "" {
			st = "unknown"
		}
		byStatus[st]++
		byYear[birthYear(row.DateOfBirth)]++
		for _, t := range row.Traits {
			c := strings.ToUpper(t.Code)
			values[c] = append(values[c], breeding.Value{ID: row.LPNID, V: t.Value})
		}
	}
	codes := slices.Collect(maps.Keys(values))
	traitOrder(codes)
	type traitOut struct {
		Code string `json:"trait"`
		breeding.Stats
		MinMore int `json:"min_more,omitempty"` // holders of the minimum not listed
		MaxMore int `json:"max_more,omitempty"`
	}
	// shown holders of each extreme are listed, the rest counted.
	traitRows := func(shown int) []traitOut {
		traits := make([]traitOut, 0, len(codes))
		for _, c := range codes {
			st, _ := breeding.Describe(values[c])
			st.Mean, st.SD = round4(st.Mean), round4(st.SD)
			to := traitOut{Code: c, Stats: st}
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
	traits := traitRows(3)
	computed := map[string]any{
		"method":       "every page of NSIP's search filtered by flock; SD is the sample standard deviation (n-1); each trait over the animals that have an EBV for it",
		"animals_read": len(s.rows),
		"nsip_count":   s.total,
		"pages":        s.pages,
		"complete":     s.complete,
		"upstream":     r.upstream(),
		"page_ceiling": flockPages,
		"duplicates":   s.dupes,
		"other_flocks": len(outside),
	}
	switch {
	case s.ended && !s.complete:
		computed["incomplete"] = fmt.Sprintf("NSIP's pages were not consistent: %d rows were missing from pages short of its count and %d animals came twice (each repeat means another was skipped), so %d of NSIP's %d animals were read",
			s.missing, s.dupes, len(s.rows), s.total)
	case !s.complete:
		computed["incomplete"] = fmt.Sprintf("stopped at the ceiling of %d pages: %d of NSIP's %d animals were read", flockPages, len(s.rows), s.total)
	}
	out := map[string]any{
		"flock_id":      flock,
		"animals":       n,
		"by_sex":        bySex,
		"by_status":     byStatus,
		"by_birth_year": byYear,
		"traits":        traits,
		"computed":      computed,
	}
	if len(outside) > 0 {
		out["left_out"] = map[string]any{"why": "NSIP returned them for this flock but their record names another flock", "lpn_ids": outside[:min(len(outside), 10)]}
	}
	// Many traits with three holders at each end can pass the budget; one
	// holder each keeps every statistic.
	if r.overBudget(ctx, args, out) {
		out["traits"] = traitRows(1)
	}
	if n == 0 {
		out["note"] = "NSIP has no animals recorded in this flock; check the flock code (the first digits of its animals' LPN IDs after the breed, e.g. 640238 in 6402382024NCS310)"
	}
	return out, nil
}
