package summarize

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A search given as the client's parameters is held to the same criteria
// as the same search given as the tool's arguments: the analyses use the
// one, summaries the other.
func TestSearchContradictionMatchesTheToolsArguments(t *testing.T) {
	params := nsip.SearchParams{Criteria: nsip.SearchCriteria{BreedID: 640, Gender: "male", Status: "CURRENT", FlockID: "640238",
		BornAfter: "2020-01-01", BornBefore: "2023-12-31", TraitRanges: map[string]nsip.Range{"wwt": {Min: 1, Max: 3}}}}
	args := map[string]any{"search_criteria": map[string]any{"breed_id": 640, "gender": "male", "status": "CURRENT", "flock_id": "640238",
		"born_after": "2020-01-01", "born_before": "2023-12-31", "trait_ranges": map[string]any{"wwt": map[string]any{"min": 1.0, "max": 3.0}}}}
	typed, untyped := SearchContradiction(params), Contradiction(args)
	wwt := func(v float64) []nsip.Trait { return []nsip.Trait{{Code: "WWT", Value: v}} }
	for _, c := range []struct {
		row  nsip.AnimalRow
		want string
	}{
		{nsip.AnimalRow{BreedID: 640, Sex: "Male", Status: "CURRENT", FlockCode: "640238", DateOfBirth: "3/1/2022", Traits: wwt(2)}, ""},
		{nsip.AnimalRow{BreedID: 641}, "breed_id"},
		{nsip.AnimalRow{Sex: "Female"}, "gender"},
		{nsip.AnimalRow{Status: "SOLD"}, "status"},
		{nsip.AnimalRow{FlockCode: "640999"}, "flock_id"},
		{nsip.AnimalRow{DateOfBirth: "3/1/2019"}, "born_after"},
		{nsip.AnimalRow{DateOfBirth: "3/1/2024"}, "born_before"},
		{nsip.AnimalRow{Traits: wwt(4)}, "trait_ranges.WWT"},
	} {
		got, why := typed(c.row)
		want, wantWhy := untyped(c.row)
		if got != c.want || got != want || why != wantWhy {
			t.Errorf("row %+v: typed %q (%s), tool's arguments %q (%s), want %q", c.row, got, why, want, wantWhy, c.want)
		}
	}
}
