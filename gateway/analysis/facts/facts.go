package facts

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

func TraitMap(ts []nsip.Trait) map[string]nsip.Trait {
	m := make(map[string]nsip.Trait, len(ts))
	for _, t := range ts {
		m[strings.ToUpper(t.Code)] = t
	}
	return m
}

func AccPtr(t nsip.Trait) *float64 {
	if !t.HasAccuracy {
		return nil
	}
	v := Round4(t.Accuracy)
	return &v
}

func Round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func IsSex(s, want string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	switch want {
	case "male":
		return s == "male" || s == "m" || s == "1" || s == "ram"
	default:
		return s == "female" || s == "f" || s == "2" || s == "ewe"
	}
}

// OtherSex reports whether a record's sex s says it is not want: a
// record that gives none says nothing either way.
func OtherSex(s, want string) bool { return strings.TrimSpace(s) != "" && !IsSex(s, want) }

// Sortable reports whether nsip_search_animals accepts code as its
// sorted_trait.
func Sortable(code string) bool {
	e := nsiparg.SortedTrait.Enum
	return len(e) == 0 || slices.Contains(e, code)
}

func EBVMap(ts []nsip.Trait) map[string]float64 {
	m := make(map[string]float64, len(ts))
	for _, t := range ts {
		m[strings.ToUpper(t.Code)] = t.Value
	}
	return m
}

// TraitOrder sorts codes as NSIP's site shows them, then the glossary's
// order, then alphabetically.
func TraitOrder(codes []string) {
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

// RowYear is a row's birth year as a count's key ("unknown" when neither
// its date nor its LPN ID says), and whether the LPN ID gave it.
func RowYear(row nsip.AnimalRow) (string, bool) {
	y, lpn := row.BirthYear()
	if y == 0 {
		return "unknown", false
	}
	return fmt.Sprint(y), lpn
}

// Unsexed reports whether rows, a breed's first page, record no sex at all,
// as NSIP's live rows do not: its pass is then read by gender.
func Unsexed(rows []nsip.AnimalRow) bool {
	return len(rows) > 0 && !slices.ContainsFunc(rows, func(r nsip.AnimalRow) bool { return nsip.NormalizeSex(r.Sex) != "" })
}

// GoneWarning warns of an animal the caller named (a plan's rams and
// ewes are the caller's choice, so none is left out) that NSIP records as
// dead or culled; "" when it is not.
func GoneWarning(role, id, status string) string {
	st := strings.ToUpper(strings.TrimSpace(status))
	if !slices.Contains(GoneStatuses, st) {
		return ""
	}
	return fmt.Sprintf("%s %s is recorded as %s by NSIP, so it may not be available to mate", role, id, st)
}

// GoneStatuses are the statuses of animals no longer in anyone's flock.
var GoneStatuses = []string{"DEAD", "CULL", "CULLED"}

// Whether an animal is genotyped (its EBVs genomically enhanced) is a
// member of NSIP's animal details in live answers ("50K Genotyped"). That
// search rows carry it too is only assumed, and what NSIP sends for an
// animal that is not genotyped has not been seen: so the status is shown
// exactly as sent, and where nothing was sent the answer says it was not
// stated rather than "not genotyped".

// GenotypedCell is the status as sent, nil where the record did not state it.
func GenotypedCell(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// GenotypedPtr is the status as sent, nil where the record did not state it.
func GenotypedPtr(s string) *string { return Stated(s) }

// Stated is a value of NSIP's record as sent, nil where the record has
// none: an unrecorded parent is null in an answer, not "", which reads as
// an animal of no name.
func Stated(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}

// GenotypedNote explains the null cells of a genotyped column: unstated of
// shown rows stated nothing. fromSearch says the rows are search rows,
// which are not known to carry the status at all.
func GenotypedNote(unstated, shown int, fromSearch bool) string {
	switch {
	case unstated == 0:
		return ""
	case fromSearch && unstated == shown:
		return "null: NSIP's search rows did not state it (only animal details are known to); " + toolname.CompareAnimals + " or " + toolname.GetAnimal + " show it"
	case fromSearch:
		return "as NSIP's search rows state it; null where a row did not, which is not 'not genotyped'"
	}
	return "as NSIP's record states it; null where it did not, which is not 'not genotyped'"
}
