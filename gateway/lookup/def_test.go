package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Keyed, the server's own reads, gives the key and the validated
// arguments of the user's call that asks the same: the same bytes, so the
// two share one cache entry, and views or defaults make no difference.
func TestKeyedIsTheUserCallsKey(t *testing.T) {
	tests := []struct {
		d     *Def
		typed any
		sent  map[string]any // the user's call asking the same
	}{
		{LastUpdate, NoArgs{}, map[string]any{}},
		{ListBreeds, NoArgs{}, map[string]any{"max_tokens": 3000}},
		{Statuses, NoArgs{}, nil},
		{TraitRanges, BreedArgs{BreedID: 640}, map[string]any{"breed_id": 640}},
		{Animal, DetailsArgs{SearchString: "6402382024ncs310"}, map[string]any{"search_string": " 6402382024NCS310"}},
		{Lineage, LPNArgs{LPNID: "6402382024NCS310"}, map[string]any{"lpn_id": "6402382024NCS310", "max_tokens": 500}},
		{Progeny, ProgenyArgs{LPNID: "6402382024NCS310", PageSize: nsip.ProfilePageSize},
			map[string]any{"lpn_id": "6402382024NCS310", "page": 0, "page_size": nsip.ProfilePageSize, "skip": 1}},
		{Progeny, ProgenyArgs{LPNID: "6402382024NCS310", Page: 3, PageSize: 100},
			map[string]any{"lpn_id": "6402382024NCS310", "page": 3, "page_size": 100}},
		{SearchAnimals, SearchArgsOf(nsip.SearchParams{PageSize: 100, BreedID: 640, SortedTrait: "WWT", Reverse: true}, ""),
			map[string]any{"page": 0, "page_size": 100, "breed_id": 640, "sorted_trait": "wwt", "reverse": true, "traits": []any{"WWT"}}},
		{SearchAnimals, SearchArgsOf(nsip.SearchParams{Page: 2, PageSize: 50, Criteria: nsip.SearchCriteria{
			BreedID: 640, Gender: "Female", ProvenOnly: true, TraitRanges: map[string]nsip.Range{"WWT": {Min: 1, Max: 5}}}}, ""),
			map[string]any{"page": 2, "page_size": 50, "search_criteria": map[string]any{
				"breed_id": 640, "gender": "female", "proven_only": true, "trait_ranges": map[string]any{"wwt": map[string]any{"min": 1, "max": 5}}}}},
		{SearchByLPN, ProfileArgs{LPNID: "6402382024NCS310"}, map[string]any{"lpn_id": "6402382024NCS310", "traits": []any{"WWT"}}},
	}
	for _, tc := range tests {
		rd, err := tc.d.Keyed(tc.typed)
		args, key := rd.Args, rd.Key
		if err != nil {
			t.Fatalf("%s %+v: %v", tc.d.Name, tc.typed, err)
		}
		user, errs := tc.d.Args.Validate(param.SentOf(tc.sent))
		if len(errs) > 0 {
			t.Fatalf("%s %v: %v", tc.d.Name, tc.sent, errs)
		}
		if want := tc.d.Key(user); key != want {
			t.Errorf("%s %+v:\n key  %s\n want %s", tc.d.Name, tc.typed, key, want)
		}
		if got, want := tc.d.Key(args), key; got != want {
			t.Errorf("%s: the arguments key as %s, not %s", tc.d.Name, got, want)
		}
	}
}

// A read of the wrong struct, or with values no user's call may send, is
// an internal error naming the tool and what was wrong, not a key.
func TestKeyedRefusesWhatAUserCallCouldNot(t *testing.T) {
	if _, err := Lineage.Keyed(DetailsArgs{SearchString: "6402382024NCS310"}); err == nil ||
		!strings.Contains(err.Error(), "nsip_get_lineage takes lookup.LPNArgs, not lookup.DetailsArgs") {
		t.Errorf("the wrong struct: %v", err)
	}
	if _, err := TraitRanges.Keyed(BreedArgs{}); err == nil || !strings.Contains(err.Error(), "nsip_get_trait_ranges arguments: breed_id") {
		t.Errorf("breed 0: %v", err)
	}
	if _, err := Progeny.Keyed(ProgenyArgs{LPNID: "6402382024NCS310", PageSize: nsip.MaxPageSize + 1}); err == nil ||
		!strings.Contains(err.Error(), "page_size") {
		t.Errorf("a page over NSIP's largest: %v", err)
	}
}

func TestNamedFindsEachTool(t *testing.T) {
	for _, d := range All {
		if Named(d.Name) != d {
			t.Errorf("Named(%q) is not its definition", d.Name)
		}
	}
	if d := Named("nsip_get_sheep"); d != nil {
		t.Errorf("Named found %s for a tool that does not exist", d.Name)
	}
	if SearchByLPN.fetch.bind != nil || SearchByLPN.Model() != nil {
		t.Errorf("nsip_search_by_lpn is assembled, not fetched")
	}
	if _, err := SearchByLPN.Bind(SearchByLPN.Method + `:{"lpn_id":"6402382024NCS310"}`); err == nil {
		t.Errorf("nsip_search_by_lpn bound a fetch")
	}
}

// answering is an Upstream whose every request answers with v and err.
type answering struct {
	Upstream
	v   *nsip.LastUpdate
	err error
}

func (a answering) DateLastUpdated(context.Context) (*nsip.LastUpdate, error) { return a.v, a.err }

// A fetch passes on the client's error, refuses a client that answers
// nothing without one, keeps the body the model was read from, and
// encodes a model that came without one.
func TestFetchAdaptsTheClientsAnswer(t *testing.T) {
	request, err := LastUpdate.Bind(LastUpdate.Method + ":{}")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	failed := errors.New("NSIP is down")
	if _, _, err := request(ctx, answering{err: failed}); !errors.Is(err, failed) {
		t.Errorf("client error: %v", err)
	}
	var ne *nsip.Error
	if _, _, err := request(ctx, answering{}); !errors.As(err, &ne) || ne.Kind != nsip.KindUnexpectedResponse {
		t.Errorf("no answer, no error: %v", err)
	}
	body := json.RawMessage(`{"date":"09/23/2025"}`)
	v, raw, err := request(ctx, answering{v: &nsip.LastUpdate{Date: "09/23/2025", Raw: body}})
	if err != nil || string(raw) != string(body) || v.(*nsip.LastUpdate).Date != "09/23/2025" {
		t.Errorf("with its body: %v %s %v", v, raw, err)
	}
	_, raw, err = request(ctx, answering{v: &nsip.LastUpdate{Date: "09/23/2025"}})
	if err != nil || !strings.Contains(string(raw), `"09/23/2025"`) {
		t.Errorf("without a body: %s %v", raw, err)
	}
}

// An answer about another animal than the one asked, by LPN ID or by
// registration number, is refused naming both; one that names none, or
// the same one in another case, passes.
func TestWrongAnimalNamesBoth(t *testing.T) {
	asked := Animal.Read(valid(t, Animal, map[string]any{"search_string": "6402382024NCS310"})).Args
	askedLineage := Lineage.Read(valid(t, Lineage, map[string]any{"lpn_id": "6402382024NCS310"})).Args
	tests := []struct {
		value any
		wrong bool
	}{
		{&nsip.AnimalDetails{LPNID: "6402382024NCS310"}, false},
		{&nsip.AnimalDetails{LPNID: "6402382024ncs310"}, false},
		{&nsip.AnimalDetails{}, false},
		{&nsip.AnimalDetails{LPNID: "6400012019ABC001"}, true},
		{&nsip.Lineage{Subject: nsip.LineageNode{LPNID: "6402382024NCS310"}}, false},
		{&nsip.Lineage{Subject: nsip.LineageNode{LPNID: "6400012019ABC001"}}, true},
		{&nsip.ProgenyPage{}, false},
	}
	for _, tc := range tests {
		args := asked
		if _, ok := tc.value.(*nsip.Lineage); ok {
			args = askedLineage
		}
		err := WrongAnimal(args, tc.value)
		if !tc.wrong {
			if err != nil {
				t.Errorf("%+v: %v", tc.value, err)
			}
			continue
		}
		var ne *nsip.Error
		if !errors.As(err, &ne) || ne.Kind != nsip.KindUnexpectedResponse ||
			!strings.Contains(ne.Reason, "6400012019ABC001") || !strings.Contains(ne.Reason, "6402382024NCS310") {
			t.Errorf("%+v: %v, want an unexpected response naming both animals", tc.value, err)
		}
	}
	reg := valid(t, Animal, map[string]any{"search_string": "R123"})
	if err := WrongAnimal(reg, &nsip.AnimalDetails{LPNID: "6402382024NCS310", RegistrationNumber: "r123"}); err != nil {
		t.Errorf("asked by registration number: %v", err)
	}
}

// The shared tier knows the model of every tool that fetches, and of no
// other.
func TestModelsAreTheFetchedTools(t *testing.T) {
	ms := Models()
	if len(ms) != len(All)-1 {
		t.Fatalf("%d models for %d tools, one of them assembled", len(ms), len(All))
	}
	for i, d := range All[:len(All)-1] {
		if ms[i] != d.Model() || d.Model() == nil {
			t.Errorf("model %d is %v, want %s's %v", i, ms[i], d.Name, d.Model())
		}
	}
}

// Each tool's answer is its fetched model; the profile's is the model it
// is assembled into, which no fetch decodes.
func TestAnswerIsWhatTheSchemaDescribes(t *testing.T) {
	for _, d := range All {
		if d != SearchByLPN && d.Answer() != d.Model() {
			t.Errorf("%s answers %v but fetches %v", d.Name, d.Answer(), d.Model())
		}
	}
	if got := SearchByLPN.Answer(); got != reflect.TypeFor[nsip.AnimalProfile]() {
		t.Errorf("nsip_search_by_lpn answers %v, want nsip.AnimalProfile", got)
	}
}

// The paged tools take page_size; the others do not.
func TestTakesNamesTheToolsArguments(t *testing.T) {
	for _, d := range All {
		paged := d == SearchAnimals || d == Progeny
		if d.Takes("page_size") != paged {
			t.Errorf("%s takes page_size: %v, want %v", d.Name, d.Takes("page_size"), paged)
		}
		if !d.Takes("max_tokens") {
			t.Errorf("%s does not take max_tokens, which every tool takes", d.Name)
		}
	}
}

// An argument struct and its descriptions that disagree stop the server
// at start-up, naming the tool.
func TestDefineRefusesAFieldWithoutItsDescription(t *testing.T) {
	type undescribed struct {
		Flock string `json:"flock"`
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "nsip_test_tool") || !strings.Contains(fmt.Sprint(r), "flock") {
			t.Errorf("recovered %v, want a panic naming the tool and the field", r)
		}
	}()
	define(&Def{Def: tooldef.Def{Name: "nsip_test_tool"}, fetch: argsOnly[undescribed, nsip.LastUpdate]()})
}

// Skip is within a page of either paged tool: both name its size alike.
func TestPagedToolsNameThePageSizeAlike(t *testing.T) {
	if got := Progeny.Args.Name("PageSize"); got != ArgPageSize {
		t.Errorf("nsip_get_progeny's page size is %q, nsip_search_animals's %q", got, ArgPageSize)
	}
}
