package lookup

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// recorder is an Upstream that notes what each request was asked and
// answers nothing.
type recorder struct{ got []any }

var errRecorded = errors.New("recorded")

func (r *recorder) note(v ...any) error { r.got = v; return errRecorded }

func (r *recorder) DateLastUpdated(context.Context) (*nsip.LastUpdate, error) {
	return nil, r.note("DateLastUpdated")
}
func (r *recorder) BreedGroups(context.Context) (*nsip.BreedGroups, error) {
	return nil, r.note("BreedGroups")
}
func (r *recorder) Statuses(context.Context) (*nsip.Statuses, error) { return nil, r.note("Statuses") }
func (r *recorder) TraitRanges(_ context.Context, breed int) (*nsip.TraitRanges, error) {
	return nil, r.note("TraitRanges", breed)
}
func (r *recorder) SearchAnimals(_ context.Context, p nsip.SearchParams) (*nsip.SearchResults, error) {
	return nil, r.note("SearchAnimals", p)
}
func (r *recorder) AnimalDetails(_ context.Context, s string) (*nsip.AnimalDetails, error) {
	return nil, r.note("AnimalDetails", s)
}
func (r *recorder) Lineage(_ context.Context, id string) (*nsip.Lineage, error) {
	return nil, r.note("Lineage", id)
}
func (r *recorder) Progeny(_ context.Context, id string, page, size int) (*nsip.ProgenyPage, error) {
	return nil, r.note("Progeny", id, page, size)
}

// TestToolArgsReachTheClient validates a call of each lookup tool that sets
// every argument it takes (in the caller's spelling: lower case, spaces),
// binds the typed arguments from the call's cache key and checks that the
// client method is asked exactly the normalised values. An argument that
// validation accepts but the typed arguments drop or mistype fails here.
func TestToolArgsReachTheClient(t *testing.T) {
	tests := []struct {
		d    *Def
		sent map[string]any
		want []any
	}{
		{LastUpdate, map[string]any{}, []any{"DateLastUpdated"}},
		{ListBreeds, map[string]any{}, []any{"BreedGroups"}},
		{Statuses, map[string]any{}, []any{"Statuses"}},
		{TraitRanges, map[string]any{"breed_id": 640}, []any{"TraitRanges", 640}},
		{Animal, map[string]any{"search_string": " 6402382024NCS310 "}, []any{"AnimalDetails", "6402382024NCS310"}},
		{Lineage, map[string]any{"lpn_id": "6402382024NCS310"}, []any{"Lineage", "6402382024NCS310"}},
		{Progeny, map[string]any{"lpn_id": "6402382024NCS310", "page": 3, "page_size": 25},
			[]any{"Progeny", "6402382024NCS310", 3, 25}},
		{Progeny, map[string]any{"lpn_id": "6402382024NCS310"}, // defaults
			[]any{"Progeny", "6402382024NCS310", 0, 10}},
		{SearchAnimals, map[string]any{}, []any{"SearchAnimals", nsip.SearchParams{PageSize: 15}}},
		{SearchAnimals, map[string]any{
			"page": 2, "page_size": 50, "breed_id": 640, "sorted_trait": "wwt", "reverse": true,
			"search_criteria": map[string]any{
				"breed_group_id": 64, "breed_id": 641, "born_after": "2022-01-01", "born_before": "2024-12-31",
				"gender": "female", "proven_only": true, "status": "current", "flock_id": "640238",
				"trait_ranges": map[string]any{"wwt": map[string]any{"min": 1.5, "max": 5}},
			},
		}, []any{"SearchAnimals", nsip.SearchParams{
			Page: 2, PageSize: 50, BreedID: 640, SortedTrait: "WWT", Reverse: true,
			Criteria: nsip.SearchCriteria{
				BreedGroupID: 64, BreedID: 641, BornAfter: "2022-01-01", BornBefore: "2024-12-31",
				Gender: "Female", ProvenOnly: true, Status: "CURRENT", FlockID: "640238",
				TraitRanges: map[string]nsip.Range{"WWT": {Min: 1.5, Max: 5}},
			},
		}}},
	}
	covered := map[*Def]bool{}
	for _, tc := range tests {
		covered[tc.d] = true
		args, errs := tc.d.Args.Validate(param.SentOf(tc.sent))
		if len(errs) > 0 {
			t.Fatalf("%s %v: %v", tc.d.Name, tc.sent, errs)
		}
		key := tc.d.Key(args)
		request, err := tc.d.Bind(key)
		if err != nil {
			t.Fatalf("%s: binding %s: %v", tc.d.Name, key, err)
		}
		var r recorder
		if _, _, err := request(context.Background(), &r); !errors.Is(err, errRecorded) {
			t.Fatalf("%s: request returned %v, want the recorder's error", tc.d.Name, err)
		}
		if !reflect.DeepEqual(r.got, tc.want) {
			t.Errorf("%s with %v:\n asked %#v\n want  %#v", tc.d.Name, tc.sent, r.got, tc.want)
		}
	}
	for _, d := range All {
		if d.fetch.bind != nil && !covered[d] {
			t.Errorf("%s fetches from NSIP but has no case here", d.Name)
		}
	}
}

// TestToolArgsMismatchIsAnInvalidArgument feeds bindings what validation
// would never produce: a member the typed arguments lack and a value of the
// wrong type. Each is an invalid-argument error naming the member, not a
// panic.
func TestToolArgsMismatchIsAnInvalidArgument(t *testing.T) {
	tests := []struct {
		d      *Def
		params map[string]any
		field  string
	}{
		{Lineage, map[string]any{"lpn_id": "6402382024NCS310", "generations": 3}, "generations"},
		{Progeny, map[string]any{"lpn_id": "6402382024NCS310", "page": "first", "page_size": 10}, "page"},
		{SearchAnimals, map[string]any{"page": 0, "page_size": 15, "reverse": false,
			"search_criteria": map[string]any{"breed_id": "Katahdin"}}, "search_criteria.breed_id"},
		{LastUpdate, map[string]any{"since": "2025-01-01"}, "since"},
	}
	for _, tc := range tests {
		_, err := tc.d.Bind(cache.Key(tc.d.Method, tc.params))
		var ne *nsip.Error
		if !errors.As(err, &ne) || ne.Kind != nsip.KindInvalidArgument || ne.Param != tc.field {
			t.Errorf("%s %v: error %v, want an invalid argument on %s", tc.d.Name, tc.params, err, tc.field)
			continue
		}
		if !strings.Contains(ne.Reason, "do not fit") {
			t.Errorf("%s: reason %q does not say the arguments do not fit", tc.d.Name, ne.Reason)
		}
	}
}
