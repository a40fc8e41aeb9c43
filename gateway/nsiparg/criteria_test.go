package nsiparg

import (
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Criteria know when they ask nothing.
func TestCriteriaEmpty(t *testing.T) {
	if !(Criteria{}).Empty() || (Criteria{ProvenOnly: true}).Empty() || (Criteria{TraitRanges: map[string]nsip.Range{"WWT": {Min: 1, Max: 2}}}).Empty() {
		t.Error("Empty judged wrongly")
	}
}

// The criteria's rules: a birth window that ends before it starts is
// refused naming born_after, and proven_only false, which filters
// nothing, is left out, so that sending it and leaving it out share a
// cache key.
func TestCriteriaRules(t *testing.T) {
	_, errs := SearchCriteria.Validate("search_criteria", map[string]any{"born_after": "2024-01-01", "born_before": "2023-01-01"})
	if len(errs) != 1 || errs[0].Field != "search_criteria.born_after" || errs[0].Problem != "born_after 2024-01-01 is later than born_before 2023-01-01" {
		t.Errorf("a window ending before it starts: %+v", errs)
	}
	v, errs := SearchCriteria.Validate("search_criteria", map[string]any{"proven_only": false, "gender": "male"})
	if want := map[string]any{"gender": "Male"}; len(errs) > 0 || !reflect.DeepEqual(v, want) {
		t.Errorf("proven_only false: %#v %+v, want %#v", v, errs, want)
	}
	if v, errs := SearchCriteria.Validate("search_criteria", map[string]any{"proven_only": false}); len(errs) > 0 || v != nil {
		t.Errorf("criteria of proven_only false alone: %#v %+v, want none", v, errs)
	}
	// An error's example of a correct call leaves it out too.
	ex := param.Example([]param.Spec{SearchCriteria}, param.SentOf(map[string]any{"search_criteria": map[string]any{"proven_only": false, "gender": "robot"}}))
	if got, want := ex.String(), `{"search_criteria":{"gender":"Female"}}`; got != want {
		t.Errorf("example %s, want %s", got, want)
	}
}

// A search_criteria that is no object is answered with what one looks
// like and a correct call holding one: the criteria's example, as JSON.
func TestSearchCriteriaExampleAsSeen(t *testing.T) {
	sent := map[string]any{"search_criteria": "female"}
	_, errs := param.ValidateObject("", []param.Spec{SearchCriteria}, param.SentOf(sent))
	wantExpected := "object with any of: breed_group_id, breed_id, born_after, born_before, gender, proven_only, status, flock_id, trait_ranges, " +
		`e.g. {"born_after":"2022-01-01","gender":"Female"}`
	if len(errs) != 1 || errs[0].Field != "search_criteria" || errs[0].Expected != wantExpected {
		t.Errorf("errors %+v, want one for search_criteria expecting %s", errs, wantExpected)
	}
	if got := param.JSONText(param.Example([]param.Spec{SearchCriteria}, param.SentOf(sent))); got != `{"search_criteria":{"born_after":"2022-01-01","gender":"Female"}}` {
		t.Errorf("example %s", got)
	}
}
