package summarize

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// decodesAs reports which of shapes text decodes into with no member left
// over; the output schemas are generated from these types, so a summary
// that decodes into none would not validate against its tool's schema.
func decodesAs(text string, shapes []Shape) (string, bool) {
	for _, s := range shapes {
		dec := json.NewDecoder(bytes.NewReader([]byte(text)))
		dec.DisallowUnknownFields()
		if dec.Decode(reflect.New(s.Type).Interface()) == nil {
			return s.Name, true
		}
	}
	return "", false
}

// TestSummariesAreTheirShapes fits answers of every kind at budgets from
// roomy to tiny, so that the shape summary, the structural one and the note
// come out, and checks each decodes into one of Shapes(kind) with no member
// left over. (Decoding does not check that required members are there: the
// gateway's tests validate every answer against the schemas themselves.)
func TestSummariesAreTheirShapes(t *testing.T) {
	s, _ := newTestSummarizer(t)
	g := newGen(3)
	search := g.search(60, 900, 0, 60)
	progeny := g.progeny("6402382024NCS310", 60, 60, 0, 60)
	details := g.details()
	lineage := g.lineage(5)
	profile := g.profile(10, 4)
	reqs := []Request{
		{Kind: KindSearch, Value: search, Raw: search.Raw, Tool: toolname.SearchAnimals},
		{Kind: KindProgeny, Value: progeny, Raw: progeny.Raw, Tool: toolname.GetProgeny},
		{Kind: KindAnimal, Value: details, Raw: details.Raw, Tool: toolname.GetAnimal},
		{Kind: KindLineage, Value: lineage, Raw: lineage.Raw, Tool: toolname.GetLineage},
		{Kind: KindProfile, Value: profile, Raw: profile.Raw, Tool: "nsip_search_by_lpn"},
		{Kind: KindGeneric, Raw: search.Raw},
	}
	seen := map[string]bool{}
	for _, req := range reqs {
		for _, budget := range []int{2000, 300, 60, 12, 3} {
			req.Budget, req.Requested = budget, true
			r := s.Fit(req)
			if !r.Summarized {
				continue
			}
			name, ok := decodesAs(r.Text, Shapes(req.Kind))
			if !ok {
				t.Errorf("%s at %d tokens: summary fits none of its shapes: %.300s", req.Kind, budget, r.Text)
				continue
			}
			seen[name] = true
		}
	}
	for _, want := range []string{"search_results summary", "progeny summary", "animal_details summary", "lineage summary", "animal_profile summary", "generic summary"} {
		if !seen[want] {
			t.Errorf("no summary came out as %s", want)
		}
	}
}

func TestUnrecognizedHoldsTheAnswerWhole(t *testing.T) {
	b, err := Unrecognized(KindProgeny, `{"message":"OK","items":"none"}`)
	if err != nil || string(b) != `{"summary":false,"kind":"generic","of":"progeny","data":{"message":"OK","items":"none"}}` {
		t.Errorf("progeny: %s %v", b, err)
	}
	b, _ = Unrecognized(KindGeneric, `["CURRENT"]`)
	if string(b) != `{"summary":false,"kind":"generic","data":["CURRENT"]}` {
		t.Errorf("generic: %s", b)
	}
	if _, ok := decodesAs(string(b), Shapes(KindGeneric)); !ok {
		t.Error("the unrecognized form is none of the shapes")
	}
}

func TestEveryNoteIsTheNoteShape(t *testing.T) {
	_, c := newTestSummarizer(t)
	f := &fitter{c: c, limit: 1}
	for _, budget := range []int{60, 20, 8, 3, 1} {
		text := string(note(f, KindSearch, budget))
		dec := json.NewDecoder(bytes.NewReader([]byte(text)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&noteShape{}); err != nil {
			t.Errorf("note %s: %v", text, err)
		}
	}
}
