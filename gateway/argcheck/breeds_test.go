package argcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

var fields = SearchFields{Breed: "breed_id", SortedTrait: "sorted_trait", Criteria: "search_criteria",
	CriteriaBreed: "breed_id", TraitRanges: "trait_ranges"}

// katahdinTraits are breed 640's trait codes in the stand-in lists below.
var katahdinTraits = []string{"BWT", "WWT", "PWWT", "MWWT", "NLW", "WFEC", "PFEC"}

// lists is NSIP's breed list and trait ranges as the checks read them,
// counting the reads; a nil list cannot be had.
type lists struct {
	breeds     *nsip.BreedGroups
	ranges     map[int]*nsip.TraitRanges
	listReads  int
	rangeReads int
}

func (l *lists) checker() *Breeds {
	return &Breeds{
		List: func(context.Context) (*nsip.BreedGroups, bool) {
			l.listReads++
			return l.breeds, l.breeds != nil
		},
		TraitRanges: func(_ context.Context, breed int) (*nsip.TraitRanges, bool) {
			l.rangeReads++
			tr, ok := l.ranges[breed]
			return tr, ok
		},
		Search: fields,
	}
}

func newLists() *lists {
	tr := &nsip.TraitRanges{BreedID: 640}
	for _, c := range katahdinTraits {
		tr.Ranges = append(tr.Ranges, nsip.TraitRange{Code: c})
	}
	return &lists{
		breeds: &nsip.BreedGroups{Groups: []nsip.BreedGroup{
			{ID: 61, Name: "Range", Breeds: []nsip.Breed{{ID: 486, Name: "South African Meat Merino"}}},
			{ID: 64, Name: "Hair", Breeds: []nsip.Breed{{ID: 640, Name: "Katahdin"}, {ID: 641, Name: "Dorper"}}},
		}},
		ranges: map[int]*nsip.TraitRanges{640: tr, 641: {BreedID: 641}},
	}
}

// A breed NSIP does not have is refused with the breeds it has, and the
// example asks for the usual one at the field that gave the breed.
func TestUnknownBreedNamesTheBreedsNSIPHas(t *testing.T) {
	l := newLists()
	b := l.checker()
	args := searchArgs(t, map[string]any{"search_criteria": map[string]any{"breed_id": 9999, "gender": "Male"}})
	field, breed := b.Searched(args)
	if field != "search_criteria.breed_id" || breed != 9999 {
		t.Fatalf("Searched = %q, %d", field, breed)
	}
	sent := map[string]any{"search_criteria": map[string]any{"breed_id": 9999, "gender": "Male"}}
	r := b.Unknown(context.Background(), field, breed, param.Example(searchSpecs, param.SentOf(sent)))
	want := Refusal{Field: "search_criteria.breed_id", Value: 9999, Problem: "NSIP has no breed 9999",
		Expected: "a breed ID NSIP has: 486 South African Meat Merino, 640 Katahdin, 641 Dorper",
		Example:  callOf(`{"search_criteria":{"breed_id":640,"gender":"Male"}}`),
		Next:     "call again with one of NSIP's breed IDs; nsip_list_breeds lists them with their groups"}
	if r == nil || fmt.Sprint(*r) != fmt.Sprint(want) {
		t.Errorf("refusal\n%+v\nwant\n%+v", r, want)
	}
	// The example is a new object: what was sent is as it was.
	if crit := sent["search_criteria"].(map[string]any); crit["breed_id"] != 9999 {
		t.Errorf("the refusal's example changed the call sent: %v", sent)
	}
	// At the top level, into an example without the field, or none.
	if r := b.Unknown(context.Background(), "breed_id", 5, callOf(`{}`)); r == nil || r.Example.String() != `{"breed_id":640}` {
		t.Errorf("top-level refusal %+v", r)
	}
	if r := b.Unknown(context.Background(), "a.b", 5, callOf(`{"a":"text"}`)); r == nil || r.Example.String() != `{"a":{"b":640}}` {
		t.Errorf("nested refusal %+v", r)
	}
	if r := b.Unknown(context.Background(), "breed_id", 5, nil); r == nil || r.Example != nil {
		t.Errorf("refusal without example %+v", r)
	}
}

// searchCall is a search's arguments as far as the checks read them.
type searchCall struct {
	BreedID     int               `json:"breed_id,omitempty"`
	SortedTrait string            `json:"sorted_trait,omitempty"`
	Criteria    *nsiparg.Criteria `json:"search_criteria,omitempty"`
}

var searchCalls = param.MustStruct[searchCall](param.Tables(
	param.Of(func(s *searchCall) param.Described {
		return param.Described{&s.BreedID: {Example: 640, Min: param.Bound(1)}, &s.SortedTrait: nsiparg.SortedTrait, &s.Criteria: nsiparg.CriteriaArg}
	}),
	nsiparg.CriteriaTable,
))

// searchArgs is sent validated as a search's arguments.
func searchArgs(t *testing.T, sent map[string]any) param.Valid {
	t.Helper()
	args, errs := searchCalls.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatalf("%v: %+v", sent, errs)
	}
	return args
}

// fixedExample is the example of a correct call CheckTraits's fixes make
// of args, as JSON.
func fixedExample(args param.Valid, fixes []param.Edit) string {
	ex := searchCalls.Example(param.SentOf(args.Members()))
	ex.Apply(fixes...)
	return ex.String()
}

// searchSpecs are a search's arguments as far as the checks read them.
var searchSpecs = []param.Spec{{Name: "search_criteria", Kind: param.Object, Props: []param.Spec{
	{Name: "breed_id", Kind: param.Integer, Example: 640}, {Name: "gender", Kind: param.String, Example: "Female"}}}}

// callOf is the example call js.
func callOf(js string) *param.Call {
	c := new(param.Call)
	if err := json.Unmarshal([]byte(js), c); err != nil {
		panic(err)
	}
	return c
}

// Without the usual breed on the list, the example takes the first.
func TestUnknownBreedExampleTakesTheFirstBreed(t *testing.T) {
	l := newLists()
	l.breeds.Groups = l.breeds.Groups[:1]
	r := l.checker().Unknown(context.Background(), "breed_id", 5, callOf(`{}`))
	if r == nil || r.Example.String() != `{"breed_id":486}` {
		t.Errorf("refusal %+v", r)
	}
}

// A breed on the list, a list that cannot be had and an empty list all
// leave NSIP's answer standing.
func TestUnknownBreedStandsAsideWhenUnsure(t *testing.T) {
	l := newLists()
	ctx := context.Background()
	if r := l.checker().Unknown(ctx, "breed_id", 641, nil); r != nil {
		t.Errorf("Dorper refused: %+v", r)
	}
	l.breeds = &nsip.BreedGroups{Groups: []nsip.BreedGroup{{ID: 1, Name: "empty"}}}
	if r := l.checker().Unknown(ctx, "breed_id", 5, nil); r != nil {
		t.Errorf("an empty list refused: %+v", r)
	}
	l.breeds = nil
	if r := l.checker().Unknown(ctx, "breed_id", 5, nil); r != nil {
		t.Errorf("a list that cannot be had refused: %+v", r)
	}
}

// The breed searched is the top-level one, else the criteria's.
func TestSearchedBreed(t *testing.T) {
	b := newLists().checker()
	for _, c := range []struct {
		args  map[string]any
		field string
		breed int
	}{
		{map[string]any{"breed_id": 640, "search_criteria": map[string]any{"breed_id": 641}}, "breed_id", 640},
		{map[string]any{"search_criteria": map[string]any{"breed_id": 641}}, "search_criteria.breed_id", 641},
		{map[string]any{"search_criteria": map[string]any{"gender": "Male"}}, "", 0},
		{map[string]any{}, "", 0},
	} {
		if f, id := b.Searched(searchArgs(t, c.args)); f != c.field || id != c.breed {
			t.Errorf("Searched(%v) = %q, %d; want %q, %d", c.args, f, id, c.field, c.breed)
		}
	}
}

// Trait codes the breed does not publish are refused with its codes, the
// one meant or the nearest suggested, and the example puts that code in
// place of each; the breed's trait list is read once per check.
func TestCheckTraitsAgainstTheBreed(t *testing.T) {
	l := newLists()
	b := l.checker()
	rng := map[string]any{"min": 0, "max": 1}
	args := searchArgs(t, map[string]any{"breed_id": 640, "sorted_trait": "YWT", "search_criteria": map[string]any{
		"trait_ranges": map[string]any{"PFCE": rng, "BWT": rng, "QQQQ": rng}, "gender": "Male"}})
	errs, fixes := b.CheckTraits(context.Background(), args)
	if l.rangeReads != 1 {
		t.Errorf("trait ranges read %d times", l.rangeReads)
	}
	if len(errs) != 3 {
		t.Fatalf("errors %+v", errs)
	}
	expected := "one of breed 640's traits: " + strings.Join(katahdinTraits, ", ")
	for _, e := range errs {
		if e.Expected != expected {
			t.Errorf("%s expects %q", e.Field, e.Expected)
		}
	}
	if errs[0].Field != "sorted_trait" || !strings.HasPrefix(errs[0].Problem, `"YWT" is not a trait of breed 640; did you mean "PWWT"`) {
		t.Errorf("sorted_trait error %+v", errs[0])
	}
	if errs[1].Field != "search_criteria.trait_ranges.PFCE" || errs[1].Problem != `is not a trait of breed 640; its nearest code is "PFEC"` {
		t.Errorf("PFCE error %+v", errs[1])
	}
	if errs[2].Field != "search_criteria.trait_ranges.QQQQ" {
		t.Errorf("QQQQ error %+v", errs[2])
	}
	ex := fixedExample(args, fixes)
	if want := `{"breed_id":640,"search_criteria":{"gender":"Male","trait_ranges":{"BWT":{"max":1,"min":0},"PFEC":{"max":1,"min":0}}},"sorted_trait":"PWWT"}`; ex != want {
		t.Errorf("example\n%s\nwant\n%s", ex, want)
	}
	if param.JSONText(args.Members()) == ex {
		t.Errorf("the arguments were changed in place: %s", param.JSONText(args.Members()))
	}
}

// Codes the breed publishes pass; so does a check it cannot make (no
// breed, no codes, no trait list), leaving NSIP to judge.
func TestCheckTraitsPassesWhatItCannotJudge(t *testing.T) {
	l := newLists()
	b := l.checker()
	ctx := context.Background()
	rng := map[string]any{"min": 1}
	for _, sent := range []map[string]any{
		{"breed_id": 640, "sorted_trait": "WWT", "search_criteria": map[string]any{"trait_ranges": map[string]any{"BWT": rng}}},
		{"search_criteria": map[string]any{"breed_id": 640}},
		{"sorted_trait": "YGFW"},
		{"breed_id": 641, "sorted_trait": "YGFW"},
		{"breed_id": 7, "sorted_trait": "YGFW"},
		{"search_criteria": map[string]any{"breed_id": 640, "trait_ranges": map[string]any{"WFEC": rng}}},
	} {
		if errs, fixes := b.CheckTraits(ctx, searchArgs(t, sent)); errs != nil || fixes != nil {
			t.Errorf("CheckTraits(%v) = %+v, %v", sent, errs, fixes)
		}
	}
	if l.rangeReads != 4 {
		t.Errorf("trait ranges read %d times, want only for the four calls naming a breed and codes", l.rangeReads)
	}
}

// An unknown code whose nearest is already in the ranges keeps that range.
func TestCheckTraitsKeepsARangeAlreadyGiven(t *testing.T) {
	b := newLists().checker()
	args := searchArgs(t, map[string]any{"breed_id": 640, "search_criteria": map[string]any{
		"trait_ranges": map[string]any{"PFCE": map[string]any{"min": 1}, "PFEC": map[string]any{"max": 2}}}})
	errs, fixes := b.CheckTraits(context.Background(), args)
	if ex := fixedExample(args, fixes); len(errs) != 1 || ex != `{"breed_id":640,"search_criteria":{"trait_ranges":{"PFEC":{"max":2,"min":-1000000}}}}` {
		t.Errorf("CheckTraits = %+v, %s", errs, ex)
	}
}
