package lookup

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestTraitRangesContract(t *testing.T) { checkContract(t, TraitRanges) }

// breed_id is required and a whole number from 1: the call's number, as
// a client's JSON carries it, keys the ranges.
func TestTraitRangesArguments(t *testing.T) {
	args := valid(t, TraitRanges, map[string]any{"breed_id": json.Number("640")})
	if got := TraitRanges.Read(args).Key; got != `get_trait_ranges_by_breed:{"breed_id":640}` {
		t.Errorf("key %s", got)
	}
	tests := []struct {
		sent           map[string]any
		field, problem string
	}{
		{map[string]any{}, "breed_id", "is required"},
		{map[string]any{"breed_id": "640"}, "breed_id", `must be an integer, got string "640"`},
		{map[string]any{"breed_id": 0}, "breed_id", "must be at least 1, got 0"},
	}
	for _, tc := range tests {
		if fe := invalid(t, TraitRanges, tc.sent); fe.Field != tc.field || fe.Problem != tc.problem {
			t.Errorf("%v: %+v, want %s %s", tc.sent, fe, tc.field, tc.problem)
		}
	}
	_, errs := TraitRanges.Args.Validate(param.SentOf(map[string]any{"breed": 640}))
	if len(errs) != 2 || errs[0].Field != "breed_id" || errs[1].Field != "breed" ||
		!strings.Contains(errs[1].Problem, `did you mean "breed_id"?`) {
		t.Errorf("breed: %+v", errs)
	}
}

// Breed 640's ranges are the stand-in's, trait by trait; an unknown breed
// is NSIP's not found, worded as the tool's, and a breed with too few
// evaluated animals NSIP's no_data.
func TestTraitRangesFetch(t *testing.T) {
	data, c := standIn(t)
	v, err := fetch[nsip.TraitRanges](t, c, TraitRanges, map[string]any{"breed_id": 640})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := data.TraitRanges(640)
	if len(v.Ranges) != len(want) || len(want) == 0 {
		t.Errorf("%d ranges, want %d", len(v.Ranges), len(want))
	}
	for _, r := range v.Ranges {
		if w := want[r.Code]; r.Min != w.Min || r.Max != w.Max {
			t.Errorf("%s: %v..%v, want %v..%v", r.Code, r.Min, r.Max, w.Min, w.Max)
		}
	}

	sent := map[string]any{"breed_id": 9999}
	_, err = fetch[nsip.TraitRanges](t, c, TraitRanges, sent)
	te := notFound(t, TraitRanges, sent, err)
	if te.Field != "breed_id" || te.Problem != "NSIP has no trait ranges for breed 9999" ||
		te.Next != "list valid breed IDs with nsip_list_breeds" {
		t.Errorf("breed 9999: %+v", te)
	}

	_, err = fetch[nsip.TraitRanges](t, c, TraitRanges, map[string]any{"breed_id": nsiptest.NoTraitDataBreed})
	var ne *nsip.Error
	if !errors.As(err, &ne) || ne.Kind != nsip.KindNoData {
		t.Errorf("breed %d: %v, want NSIP's no_data", nsiptest.NoTraitDataBreed, err)
	}
}
