package lookup

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestSearchAnimalsContract(t *testing.T) { checkContract(t, SearchAnimals) }

// Every argument is optional: an empty call is the first page of 15, and
// a trait code or gender is written as NSIP writes it. A misspelt code,
// gender or criteria field is told the one meant.
func TestSearchAnimalsArguments(t *testing.T) {
	args := valid(t, SearchAnimals, map[string]any{"sorted_trait": "wwt", "search_criteria": map[string]any{"gender": "female"}, "skip": 3})
	want := `search_animals:{"page":0,"page_size":15,"reverse":false,"search_criteria":{"gender":"Female"},"sorted_trait":"WWT"}`
	if got := SearchAnimals.Read(args).Key; got != want {
		t.Errorf("key %s\nwant %s", got, want)
	}
	tests := []struct {
		sent           map[string]any
		field, meaning string
	}{
		{map[string]any{"sorted_trait": "weight"}, "sorted_trait", `could mean any of 6 traits: BWT (birth weight), lower is better; WWT (weaning weight), higher is better;`},
		{map[string]any{"search_criteria": map[string]any{"gender": "mal"}}, "search_criteria.gender", `did you mean "Male"?`},
		{map[string]any{"search_criteria": map[string]any{"gendr": "Male"}}, "search_criteria.gendr", `did you mean "gender"?`},
		{map[string]any{"page_size": 0}, "page_size", "must be at least 1, got 0"},
	}
	for _, tc := range tests {
		if fe := invalid(t, SearchAnimals, tc.sent); fe.Field != tc.field || !strings.Contains(fe.Problem, tc.meaning) {
			t.Errorf("%v: %+v, want %s: …%s", tc.sent, fe, tc.field, tc.meaning)
		}
	}
}

// A page of 5 Katahdin ewes sorted by weaning weight holds 5 of them,
// counts them all, and starts with the ewe of the highest WWT.
func TestSearchAnimalsFetch(t *testing.T) {
	data, c := standIn(t)
	v, err := fetch[nsip.SearchResults](t, c, SearchAnimals, map[string]any{
		"breed_id": 640, "sorted_trait": "wwt", "page_size": 5, "search_criteria": map[string]any{"gender": "female"}})
	if err != nil {
		t.Fatal(err)
	}
	ewes, best, bestWWT := 0, "", 0.0
	for _, id := range data.AnimalIDs() {
		a, _ := data.Animal(id)
		if a.BreedID != 640 || a.Gender != "Female" {
			continue
		}
		ewes++
		if w, _ := a.Trait("WWT"); best == "" || w.Value > bestWWT || w.Value == bestWWT && id < best {
			best, bestWWT = id, w.Value
		}
	}
	if v.PageSize != 5 || len(v.Results) != 5 || v.TotalCount != ewes {
		t.Fatalf("%d rows of %d (page size %d), want 5 of %d", len(v.Results), v.TotalCount, v.PageSize, ewes)
	}
	// NSIP's rows state neither sex nor breed: the row is as sent.
	if first := v.Results[0]; first.LPNID != best || first.Sex != "" || first.BreedID != 0 {
		t.Errorf("first %s (sex %q, breed %d), want %s, the Katahdin ewe of the highest WWT, with neither stated", first.LPNID, first.Sex, first.BreedID, best)
	}
}

// A page read under an evaluation is keyed by the definition with the date
// among its fields, and NSIP is asked the page without it.
func TestEvaluationKeyedNotSent(t *testing.T) {
	plain, err := SearchAnimals.Keyed(SearchArgs{BreedID: 640, SortedTrait: "WWT"})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := SearchAnimals.Keyed(SearchArgs{BreedID: 640, SortedTrait: "WWT", Evaluation: `09/23/2025`})
	if err != nil {
		t.Fatal(err)
	}
	args, key := rd.Args, rd.Key
	if _, ok := args.Value("evaluation"); ok {
		t.Errorf("the evaluation is among the arguments %v; it only keys them", args)
	}
	if want := `search_animals:{"breed_id":640,"evaluation":"09/23/2025","page":0,"page_size":15,"reverse":false,"sorted_trait":"WWT"}`; key != want {
		t.Errorf("key %s, want %s", key, want)
	}
	if key == plain.Key {
		t.Errorf("the evaluation does not key the page")
	}
	request, err := SearchAnimals.Bind(key)
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	if _, _, err := request(context.Background(), &r); !errors.Is(err, errRecorded) {
		t.Fatal(err)
	}
	if want := []any{"SearchAnimals", nsip.SearchParams{PageSize: 15, BreedID: 640, SortedTrait: "WWT"}}; !reflect.DeepEqual(r.got, want) {
		t.Errorf("asked %#v, want %#v", r.got, want)
	}
	// A tool whose arguments have no evaluation field cannot be keyed by
	// one and lose it on the way: its binding refuses the key.
	if _, err := Lineage.Bind(cache.Key(Lineage.Method, map[string]any{"lpn_id": "6402382024NCS310", "evaluation": "09/23/2025"})); err == nil {
		t.Errorf("nsip_get_lineage bound a key with an evaluation")
	}
}
