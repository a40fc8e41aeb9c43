package param

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// hostileArgs is a call of n unknown names beside a value of size bytes
// under a name the tool takes.
func hostileArgs(n, size int) map[string]any {
	args := make(map[string]any, n+1)
	for i := range n {
		args[fmt.Sprintf("unknown_argument_%06d", i)] = i
	}
	args["search_criteria"] = map[string]any{"gender": strings.Repeat("F", size)}
	return args
}

var searchLike = []Spec{
	{Name: "page", Kind: Integer, Default: 0, Example: 0, Min: Bound(0), Max: Bound(100)},
	{Name: "page_size", Kind: Integer, Default: 15, Example: 15, Min: Bound(1), Max: Bound(100)},
	sortedTrait,
	herdCriteria,
}

func TestManyProblemsAreCappedAndCounted(t *testing.T) {
	const names, size = 50_000, 700_000
	args := hostileArgs(names, size)
	before := comparisons.Load()
	_, errs := ValidateObject("", searchLike, SentOf(args))
	compared := comparisons.Load() - before

	if len(errs) != MaxProblems+1 {
		t.Fatalf("%d entries, want %d listed and one counting the rest: %+v", len(errs), MaxProblems+1, errs[:min(len(errs), 8)])
	}
	// The gender and every unknown name are problems; five are listed.
	rest := names + 1 - MaxProblems
	if got := More(errs); got != rest {
		t.Errorf("More = %d, want %d", got, rest)
	}
	last := errs[len(errs)-1]
	if want := fmt.Sprintf("and %s more problems not listed", Thousands(rest)); last.Problem != want {
		t.Errorf("closing entry = %q, want %q", last.Problem, want)
	}
	if errs[0].Field != "search_criteria.gender" || !strings.Contains(errs[0].Problem, `"`+strings.Repeat("F", MaxShown)+`"…`) {
		t.Errorf("first = %+v, want the gender, cut to %d characters", errs[0], MaxShown)
	}
	b, _ := json.Marshal(errs)
	if len(b) > 4096 {
		t.Errorf("problems encode to %d bytes, want at most 4096:\n%s", len(b), b)
	}
	// Did-you-mean ran for the listed unknown names only, each against the
	// known names of a similar length, and never for the long gender.
	if max := int64(MaxProblems * len(searchLike)); compared > max {
		t.Errorf("%d Levenshtein comparisons, want at most %d", compared, max)
	}
}

func TestClosestSkipsWhatCannotBeASlip(t *testing.T) {
	known := []string{"page", "page_size", "breed_id", "sorted_trait", "reverse", "search_criteria"}
	before := comparisons.Load()
	if c, ok := Closest(strings.Repeat("page_size", 10_000), known); ok {
		t.Errorf("a 90,000-character name was taken for %q", c)
	}
	if n := comparisons.Load() - before; n != 0 {
		t.Errorf("a name longer than %d characters was compared %d times, want 0", maxSuggest, n)
	}
	// "pag" (3 letters, threshold 1) can only be within reach of "page"
	// and "page_size" is too long to compare.
	before = comparisons.Load()
	if c, ok := Closest("pag", known); !ok || c != "page" {
		t.Errorf("Closest(pag) = %q, %v; want page", c, ok)
	}
	if n := comparisons.Load() - before; n != 1 {
		t.Errorf("pag was compared %d times, want 1 (only page is of a near length)", n)
	}
}

func TestCapMergesCounts(t *testing.T) {
	var a, b []FieldError
	for i := range 7 {
		a = append(a, FieldError{Field: fmt.Sprint("a", i), Problem: "bad"})
		b = append(b, FieldError{Field: fmt.Sprint("b", i), Problem: "bad"})
	}
	a, b = Cap(a), Cap(b)
	if More(a) != 2 || len(a) != MaxProblems+1 {
		t.Fatalf("Cap(7) = %d entries, %d more; want %d and 2", len(a), More(a), MaxProblems+1)
	}
	got := Cap(append(a, b...))
	if len(got) != MaxProblems+1 || More(got) != 9 {
		t.Errorf("merged: %d entries, %d more; want %d and 9", len(got), More(got), MaxProblems+1)
	}
	if got[len(got)-1].Problem != "and 9 more problems not listed" {
		t.Errorf("closing entry = %q", got[len(got)-1].Problem)
	}
	if one := Cap(a[:MaxProblems:MaxProblems]); len(one) != MaxProblems || More(one) != 0 {
		t.Errorf("Cap of exactly %d added a closing entry: %+v", MaxProblems, one)
	}
	for n, want := range map[int]string{1: "1", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestListsAreBounded(t *testing.T) {
	weights := List{Name: "weights", Required: true, MaxItems: 20, Item: weightItems, Example: map[string]any{"WWT": 1.0}}
	lpns := List{Name: "lpn_ids", Required: true, MinItems: 2, MaxItems: 20, Item: lpnItems, Example: []string{ExampleLPN}}
	big := map[string]any{}
	var long []any
	for i := range 100_000 {
		big[fmt.Sprintf("T%06d", i)] = 1.0
		long = append(long, fmt.Sprintf("BAD-%d", i))
	}
	before := comparisons.Load()
	if _, errs := weights.Validate(big); len(errs) != 1 || !strings.Contains(errs[0].Problem, "has 100000 traits; give 1..20") {
		t.Errorf("weights of 100,000 traits: %+v", errs)
	}
	if _, errs := lpns.Validate(long); len(errs) != 1 || !strings.Contains(errs[0].Problem, "has 100000 items; give 2..20") {
		t.Errorf("a list of 100,000 LPN IDs: %+v", errs)
	}
	// Within the bound on items, every item bad: the first few listed.
	bad := map[string]any{}
	for i := range 20 {
		bad[fmt.Sprintf("wwtx%02d", i)] = 1.0
	}
	_, errs := weights.Validate(bad)
	if len(errs) != MaxProblems+1 || More(errs) != 20-MaxProblems {
		t.Errorf("20 unknown codes: %d entries, %d more; want %d and %d", len(errs), More(errs), MaxProblems+1, 20-MaxProblems)
	}
	_, errs = lpns.Validate(long[:20])
	if len(errs) != MaxProblems+1 || More(errs) != 20-MaxProblems {
		t.Errorf("20 bad LPN IDs: %d entries, %d more", len(errs), More(errs))
	}
	if n, max := comparisons.Load()-before, int64(MaxProblems*60); n > max {
		t.Errorf("%d Levenshtein comparisons, want at most %d", n, max)
	}
}

// Rules written outside param gather their problems in one Problems, so
// that a did-you-mean is worked out only for the problems it lists: ten
// objects, each with a misspelt name, cost the comparisons of five.
func TestProblemsBoundTheWorkOfManyObjects(t *testing.T) {
	before := comparisons.Load()
	var pr Problems
	for i := range 10 {
		pr.Object(fmt.Sprintf("r%d.", i), rangeBounds, SentOf(map[string]any{"minn": 1}))
	}
	errs := pr.Errs()
	if len(errs) != MaxProblems+1 || More(errs) != 10-MaxProblems || errs[0].Problem != `is not a field of r0; did you mean "min"?` {
		t.Errorf("10 misspelt objects: %+v", errs)
	}
	if n, max := comparisons.Load()-before, int64(MaxProblems*2); n > max {
		t.Errorf("%d Levenshtein comparisons, want at most %d", n, max)
	}
}
