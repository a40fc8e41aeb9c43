package param

import (
	"encoding/json"
	"testing"
)

// A Sent answers what the call holds: a member sent as null is as good as
// left out, With adds to a copy, and its JSON is the object sent, numbers
// as they were written.
func TestSentHoldsWhatWasSent(t *testing.T) {
	var s Sent
	if err := json.Unmarshal([]byte(`{"breed_id":12345678901234567890,"gender":null,"search_criteria":{"flock_id":"640238"}}`), &s); err != nil {
		t.Fatal(err)
	}
	if !s.Has("breed_id") || s.Has("gender") || s.Has("page") {
		t.Error("Has misread the call")
	}
	if v, ok := s.Value("search_criteria.flock_id"); !ok || v != "640238" {
		t.Errorf("search_criteria.flock_id = %v %v", v, ok)
	}
	more := s.With("page", 2)
	if s.Has("page") || !more.Has("page") || !more.Has("breed_id") {
		t.Error("With changed the call it was called on, or lost what it held")
	}
	b, err := json.Marshal(more)
	if want := `{"breed_id":12345678901234567890,"gender":null,"page":2,"search_criteria":{"flock_id":"640238"}}`; err != nil || string(b) != want {
		t.Errorf("JSON %s %v, want %s", b, err, want)
	}
	if b, _ := json.Marshal(Sent{}); string(b) != "{}" {
		t.Errorf("no arguments: %s, want {}", b)
	}
	if one := (Sent{}).With("lpn_id", ExampleLPN); !one.Has("lpn_id") {
		t.Error("With on no arguments")
	}
	v, errs := herdCriteria.Validate("search_criteria", map[string]any{"gender": "male"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if g, _ := (Valid{map[string]any{"search_criteria": v}}).Sent().Value("search_criteria.gender"); g != "Male" {
		t.Errorf("a validated call as sent: gender %v, want Male", g)
	}
}
