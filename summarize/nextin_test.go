package summarize

import "testing"

// TestNextInKnowsOnlyItsOwnRenders: the next call is taken from a page
// summary the fit rendered, and any other text (a copy included) is read
// from its JSON as before.
func TestNextInKnowsOnlyItsOwnRenders(t *testing.T) {
	f := &fitter{}
	out := []byte(`{"kind":"search","next":{"tool":"nsip_search_animals","arguments":{"page":1}}}`)
	next := &NextCall{Tool: "nsip_search_animals", Arguments: map[string]any{"page": 1}}
	f.rendered(out, next)
	if got, ok := f.nextIn(out); !ok || got != next {
		t.Errorf("the rendered text: %v %v, want its next call", got, ok)
	}
	if _, ok := f.nextIn(append([]byte(nil), out...)); ok {
		t.Error("a copy of the text was taken for the rendered one")
	}
	if _, ok := (*fitter)(nil).nextIn(out); ok {
		t.Error("no fitter, yet a next call")
	}
}
