package lookup

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestListBreedsContract(t *testing.T) { checkContract(t, ListBreeds) }

// max_tokens chooses how the list is shown, so it stays among the
// arguments but out of the key; it must be a whole number.
func TestListBreedsArguments(t *testing.T) {
	args := valid(t, ListBreeds, map[string]any{"max_tokens": json.Number("500")})
	if n, _ := args.Int("max_tokens"); n != 500 {
		t.Errorf("max_tokens %#v, want 500", args.Members()["max_tokens"])
	}
	if got := ListBreeds.Read(args).Key; got != `get_available_breed_groups:{}` {
		t.Errorf("key %s", got)
	}
	if fe := invalid(t, ListBreeds, map[string]any{"max_tokens": "500"}); fe.Field != "max_tokens" {
		t.Errorf("max_tokens as text: %+v", fe)
	}
}

// The answer is the stand-in's four breed groups, each with its breeds:
// Katahdin (640) among the Hair breeds (64).
func TestListBreedsFetch(t *testing.T) {
	data, c := standIn(t)
	v, err := fetch[nsip.BreedGroups](t, c, ListBreeds, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var want []nsip.BreedGroup
	for _, g := range data.BreedGroups() {
		bg := nsip.BreedGroup{ID: g.ID, Name: g.Name, Breeds: []nsip.Breed{}}
		for _, b := range g.Breeds {
			bg.Breeds = append(bg.Breeds, nsip.Breed{ID: b.ID, Name: b.Name})
		}
		want = append(want, bg)
	}
	if !slices.EqualFunc(v.Groups, want, func(a, b nsip.BreedGroup) bool {
		return a.ID == b.ID && a.Name == b.Name && slices.Equal(a.Breeds, b.Breeds)
	}) {
		t.Errorf("groups %+v\nwant %+v", v.Groups, want)
	}
	hair := slices.IndexFunc(v.Groups, func(g nsip.BreedGroup) bool { return g.ID == 64 })
	if hair < 0 || !slices.Contains(v.Groups[hair].Breeds, nsip.Breed{ID: 640, Name: "Katahdin"}) {
		t.Errorf("no Katahdin (640) in the Hair group: %+v", v.Groups)
	}
}
