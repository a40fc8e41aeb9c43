package toolcall

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
)

// Only a view that asks for something is fitted anew: the default one is
// what the cache holds.
func TestViewSetOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		v    View
		want bool
	}{
		{View{}, false},
		{View{Budget: 3000}, true},
		{View{Traits: []string{"WWT"}}, true},
		{View{Skip: 2}, true},
		{View{Traits: []string{}}, false},
	} {
		if got := tc.v.Set(); got != tc.want {
			t.Errorf("%+v.Set() = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// A failed call's outcome carries its error and nothing that would render
// as an answer.
func TestFailedCarriesOnlyTheError(t *testing.T) {
	te := &toolerr.Error{Code: toolerr.CodeNotFound, Problem: "NSIP has no animal X"}
	o := Failed(te)
	if o.Err != te || o.Res.Text != "" || o.Source != "" || o.Value != nil || o.Data.Build != nil {
		t.Errorf("Failed = %+v, want the error alone", o)
	}
}
