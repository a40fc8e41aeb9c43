package analysistest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// TestFakeSearch checks the fake itself: paging, sorting and the gender
// criterion, which every scanning test leans on.
func TestFakeSearch(t *testing.T) {
	f := NewFake(
		&FakeAnimal{ID: "AAAA1", Sex: "Male", EBV: map[string]float64{"WWT": 1}},
		&FakeAnimal{ID: "AAAA2", Sex: "Female", EBV: map[string]float64{"WWT": 3}},
		&FakeAnimal{ID: "AAAA3", Sex: "Male", EBV: map[string]float64{"WWT": 2}},
		&FakeAnimal{ID: "AAAA4", Sex: "Male"},
		&FakeAnimal{ID: "AAAA5", Sex: "Male", Breed: 641, EBV: map[string]float64{"WWT": 9}},
	)
	ids := func(q analysis.Query) []string {
		res, err := f.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Results {
			out = append(out, r.LPNID)
		}
		return append(out, fmt.Sprint(res.TotalCount))
	}
	type p = nsip.SearchParams
	for _, c := range []struct {
		q    p
		want []string
	}{
		{p{BreedID: 640, PageSize: 10}, []string{"AAAA1", "AAAA2", "AAAA3", "AAAA4", "4"}},
		{p{PageSize: 2, SortedTrait: "WWT"}, []string{"AAAA5", "AAAA2", "5"}},
		{p{BreedID: 640, Page: 1, PageSize: 2, SortedTrait: "WWT"}, []string{"AAAA1", "AAAA4", "4"}},
		{p{BreedID: 640, PageSize: 3, SortedTrait: "WWT", Reverse: true}, []string{"AAAA4", "AAAA1", "AAAA3", "4"}},
		{p{BreedID: 640, PageSize: 10, Criteria: nsip.SearchCriteria{Gender: "Male"}}, []string{"AAAA1", "AAAA3", "AAAA4", "3"}},
		{p{BreedID: 640, Page: 5, PageSize: 10}, []string{"4"}},
	} {
		if got := ids(analysis.Query{SearchParams: c.q}); !slices.Equal(got, c.want) {
			t.Errorf("search %+v = %v, want %v", c.q, got, c.want)
		}
	}
	if _, err := f.Search(context.Background(), analysis.Query{SearchParams: p{PageSize: 10, Criteria: nsip.SearchCriteria{BornAfter: "2020-01-01"}}}); err == nil {
		t.Error("an unsupported criterion was silently ignored")
	}
	tr, _ := f.TraitRanges(context.Background(), 640)
	if len(tr.Ranges) != 1 || tr.Ranges[0] != (nsip.TraitRange{Code: "WWT", Range: nsip.Range{Min: 1, Max: 3}}) {
		t.Errorf("ranges of 640 = %+v, want WWT 1..3", tr.Ranges)
	}
	if n := f.CallsOf("search"); n != 7 {
		t.Errorf("search calls = %d, want 7", n)
	}
	if _, err := f.Details(context.Background(), "NOBODY"); !errors.As(err, new(*nsip.Error)) {
		t.Errorf("details of an unknown animal: %v, want an nsip not-found error", err)
	}
}
