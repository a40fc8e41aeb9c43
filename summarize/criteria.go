package summarize

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// NSIP promises nothing about honouring every criterion of a search: a row
// it returns that the row itself shows to be outside the criteria (a ewe in
// a search for rams, another breed, a trait value past the asked bounds) is
// evidence that it ignored one. Such rows are left out of the summaries and
// counted; a pass-through, which is NSIP's answer byte for byte, keeps them
// and the caller's _meta says so.

// Contradicting counts the rows of an answer that contradict the call's
// criteria.
type Contradicting struct {
	Count int `json:"count"`
	// ByCriterion counts the rows per criterion, named as the call names
	// it: gender, status, flock_id, born_after, born_before, breed_id,
	// trait_ranges.<CODE>, or lpn_id for an animal listed as its own
	// offspring. A row is counted under the first criterion it breaks.
	ByCriterion map[string]int `json:"by_criterion"`
	// Rows names them with what each shows, at most maxContradictingNamed.
	Rows     []string `json:"lpn_ids"`
	NotNamed int      `json:"not_named,omitempty"`
	// Effect says whether the text leaves them out or shows them as sent.
	Effect string `json:"effect"`
}

// maxContradictingNamed bounds the rows named, as the analyses bound theirs.
const maxContradictingNamed = 20

// What Contradicting.Effect says.
const (
	effectLeftOut = "left out of this summary: NSIP returned them although they contradict the criteria, a sign it ignored a criterion"
	effectShown   = "shown as NSIP sent them (the text is NSIP's answer unchanged), although they contradict the criteria: a sign NSIP ignored a criterion"
)

// Criteria returns the criteria named in c, most frequent first (ties by
// name): what the drift alarm reports NSIP ignored.
func (c *Contradicting) Criteria() []string {
	if c == nil {
		return nil
	}
	names := slices.Sorted(maps.Keys(c.ByCriterion))
	slices.SortStableFunc(names, func(a, b string) int { return c.ByCriterion[b] - c.ByCriterion[a] })
	return names
}

// add counts one contradicting row.
func (c *Contradicting) add(lpn, criterion, why string) {
	if c.ByCriterion == nil {
		c.ByCriterion = map[string]int{}
	}
	c.Count++
	c.ByCriterion[criterion]++
	if len(c.Rows) < maxContradictingNamed {
		c.Rows = append(c.Rows, lpn+" ("+why+")")
	} else {
		c.NotNamed++
	}
}

// searchCriteria is what a search call asked for, as a row can be checked
// against it.
type searchCriteria struct {
	breed         int
	gender        string // "Male" or "Female"; "" for either
	status, flock string
	after, before string // YYYY-MM-DD
	ranges        map[string]nsip.Range
}

// criteriaOf reads a search call's arguments. The breed may be given at
// the top level or in search_criteria; when both are, NSIP filters by both
// and a row of either other breed contradicts one of them.
func criteriaOf(args map[string]any) searchCriteria {
	crit, _ := args["search_criteria"].(map[string]any)
	s := searchCriteria{breed: argInt(args, "breed_id", 0)}
	if b := argInt(crit, "breed_id", 0); b != 0 && s.breed == 0 {
		s.breed = b
	}
	if g, _ := crit["gender"].(string); strings.EqualFold(g, "Male") || strings.EqualFold(g, "Female") {
		s.gender = nsip.NormalizeSex(g)
	}
	st, _ := crit["status"].(string)
	s.status = nsip.StatusSent(st) // a word as NSIP was asked it; one of several statuses is held to apart (heldWord)
	s.flock, _ = crit["flock_id"].(string)
	s.after, _ = crit["born_after"].(string)
	s.before, _ = crit["born_before"].(string)
	switch tr := crit["trait_ranges"].(type) {
	case map[string]any:
		for code, v := range tr {
			b, _ := v.(map[string]any)
			lo, okLo := number(b["min"])
			hi, okHi := number(b["max"])
			if !okLo {
				lo = math.Inf(-1)
			}
			if !okHi {
				hi = math.Inf(1)
			}
			if s.ranges == nil {
				s.ranges = map[string]nsip.Range{}
			}
			s.ranges[strings.ToUpper(code)] = nsip.Range{Min: lo, Max: hi}
		}
	case map[string]nsip.Range:
		s.ranges = maps.Clone(tr)
	}
	return s
}

// SearchContradiction is Contradiction for a search given as the client's
// parameters, as the analyses make theirs.
func SearchContradiction(p nsip.SearchParams) func(nsip.AnimalRow) (criterion, why string) {
	c := p.Criteria
	s := searchCriteria{breed: p.BreedID, status: nsip.StatusSent(c.Status), flock: c.FlockID, after: c.BornAfter, before: c.BornBefore}
	if s.breed == 0 {
		s.breed = c.BreedID
	}
	if strings.EqualFold(c.Gender, "Male") || strings.EqualFold(c.Gender, "Female") {
		s.gender = nsip.NormalizeSex(c.Gender)
	}
	for code, rg := range c.TraitRanges {
		if s.ranges == nil {
			s.ranges = map[string]nsip.Range{}
		}
		s.ranges[strings.ToUpper(code)] = rg
	}
	return s.check
}

// number reads a JSON or Go number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// Contradiction returns the check that rows of a search made with args
// (nsip_search_animals's arguments) are held to: the criterion a row shows
// broken and how, or "" for none. The analyses that read searches judge
// their rows by it, so that a row is stray for them exactly when it is for
// a summary.
func Contradiction(args map[string]any) func(nsip.AnimalRow) (criterion, why string) {
	return criteriaOf(args).check
}

// check says which criterion a row contradicts and how, "" when it shows
// none broken. A field the row leaves empty contradicts nothing: only what
// the row shows is evidence.
func (s searchCriteria) check(r nsip.AnimalRow) (criterion, why string) {
	if s.breed != 0 && r.BreedID != 0 && r.BreedID != s.breed {
		return "breed_id", fmt.Sprintf("breed %d, breed_id %d asked", r.BreedID, s.breed)
	}
	if sex := nsip.NormalizeSex(r.Sex); s.gender != "" && (sex == "Male" || sex == "Female") && sex != s.gender {
		return "gender", fmt.Sprintf("sex %s, gender %s asked", sex, s.gender)
	}
	if s.status != "" && r.Status != "" && !strings.EqualFold(s.status, r.Status) {
		return "status", fmt.Sprintf("status %s, %s asked", r.Status, s.status)
	}
	if s.flock != "" && r.FlockCode != "" && !strings.EqualFold(s.flock, r.FlockCode) {
		return "flock_id", fmt.Sprintf("flock %s, flock_id %s asked", r.FlockCode, s.flock)
	}
	if s.after != "" || s.before != "" {
		if born, ok := nsip.ParseDate(r.DateOfBirth); ok {
			d := born.Format("2006-01-02")
			if s.after != "" && d < s.after {
				return "born_after", fmt.Sprintf("born %s, born_after %s asked", d, s.after)
			}
			if s.before != "" && d > s.before {
				return "born_before", fmt.Sprintf("born %s, born_before %s asked", d, s.before)
			}
		}
	}
	for _, code := range slices.Sorted(maps.Keys(s.ranges)) {
		rg := s.ranges[code]
		t, ok := findTrait(r.Traits, code)
		if !ok {
			continue // absent, or an absurd value left out of the model
		}
		if t.Value < rg.Min || t.Value > rg.Max {
			return "trait_ranges." + code, fmt.Sprintf("%s %s, asked %s", code, num(t.Value), bounds(rg))
		}
	}
	return "", ""
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func bounds(r nsip.Range) string {
	switch {
	case math.IsInf(r.Min, -1):
		return "at most " + num(r.Max)
	case math.IsInf(r.Max, 1):
		return "at least " + num(r.Min)
	}
	return num(r.Min) + ".." + num(r.Max)
}

// keepSearchRows splits rows into those consistent with the call's
// status word of several statuses, if any, and
// criteria, with the position of each among rows, and the count of the
// others.
func keepSearchRows(rows []nsip.AnimalRow, args map[string]any) ([]nsip.AnimalRow, []int, *Contradicting) {
	s := criteriaOf(args)
	held := heldWord(args)
	var c Contradicting
	kept := make([]nsip.AnimalRow, 0, len(rows))
	pos := make([]int, 0, len(rows))
	for i, r := range rows {
		if heldOut(held, r) {
			continue // counted by statusHeld
		}
		if crit, why := s.check(r); crit != "" {
			c.add(r.LPNID, crit, why)
			continue
		}
		kept, pos = append(kept, r), append(pos, i)
	}
	if c.Count == 0 {
		if len(kept) < len(rows) {
			return kept, pos, nil
		}
		return rows, nil, nil
	}
	c.Effect = effectLeftOut
	return kept, pos, &c
}

// keepProgenyRows leaves out of a page of parent's offspring any row that
// is the parent itself: no animal is its own offspring.
func keepProgenyRows(rows []nsip.ProgenyRow, parent string) ([]nsip.ProgenyRow, []int, *Contradicting) {
	var c Contradicting
	kept := make([]nsip.ProgenyRow, 0, len(rows))
	pos := make([]int, 0, len(rows))
	for i, r := range rows {
		if parent != "" && strings.EqualFold(strings.TrimSpace(r.LPNID), parent) {
			c.add(r.LPNID, "lpn_id", "the animal asked about, listed as its own offspring")
			continue
		}
		kept, pos = append(kept, r), append(pos, i)
	}
	if c.Count == 0 {
		return rows, nil, nil
	}
	c.Effect = effectLeftOut
	return kept, pos, &c
}

// contradictions counts the rows of req's page, after the rows skipped,
// that contradict its criteria; nil for other answers or when none does.
func contradictions(req Request) *Contradicting {
	switch v := req.Value.(type) {
	case *nsip.SearchResults:
		if v != nil {
			_, _, c := keepSearchRows(skipRows(v.Results, req.Skip), req.Args)
			return c
		}
	case *nsip.ProgenyPage:
		if v != nil {
			_, _, c := keepProgenyRows(skipRows(v.Animals, req.Skip), progenyParent(v, req.Args))
			return c
		}
	}
	return nil
}

// progenyParent is the animal whose offspring a page lists.
func progenyParent(v *nsip.ProgenyPage, args map[string]any) string {
	if v.LPNID != "" {
		return v.LPNID
	}
	s, _ := args["lpn_id"].(string)
	return s
}
