package summarize

import (
	"encoding/json"
	"reflect"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A Shape is one form a summary takes: the Go type whose JSON encoding it
// is, and a name for it. Output schemas are generated from these types, so
// a field added to a summary reaches the schema with it.
type Shape struct {
	Name string
	Type reflect.Type
}

// Shapes are the forms Fit may give an answer of kind when it summarizes
// it: the kind's own summary, the structural one standing in for it, and
// the note when nothing else fits.
func Shapes(kind Kind) []Shape {
	var own []Shape
	switch kindOf(kind) {
	case KindAnimal:
		own = []Shape{{"animal_details summary", reflect.TypeFor[animalBlock]()}}
	case KindSearch:
		own = []Shape{{"search_results summary", reflect.TypeFor[pageSummary]()}}
	case KindProgeny:
		own = []Shape{{"progeny summary", reflect.TypeFor[pageSummary]()}}
	case KindLineage:
		own = []Shape{{"lineage summary", reflect.TypeFor[lineageBlock]()}}
	case KindProfile:
		own = []Shape{{"animal_profile summary", reflect.TypeFor[profileBlock]()}}
	}
	return append(own,
		Shape{"generic summary", reflect.TypeFor[genericShape]()},
		Shape{"note", reflect.TypeFor[noteShape]()})
}

// genericShape is what genericSummary writes member by member (it cuts
// containers while it writes, so it cannot encode a value). Data is the
// answer cut to fit; Of is the kind it stands in for. Unrecognized writes it
// whole, with Summary false.
type genericShape struct {
	Summary bool            `json:"summary"`
	Kind    Kind            `json:"kind"`
	Of      Kind            `json:"of,omitempty"`
	Data    json.RawMessage `json:"data"`
}

// noteShape is note's fixed texts, the shortest of which has no members.
type noteShape struct {
	Summary bool   `json:"summary,omitempty"`
	Kind    Kind   `json:"kind,omitempty"`
	Note    string `json:"note,omitempty"`
}

// Unrecognized is the structured form of an answer of kind passed through
// in a shape the client could not read: the generic summary's form with
// the whole answer as data, and summary false. text is the answer as the
// client received it (Result.Text), always JSON.
func Unrecognized(kind Kind, text string) ([]byte, error) {
	g := genericShape{Kind: KindGeneric, Data: json.RawMessage(text)}
	if k := kindOf(kind); k != KindGeneric {
		g.Of = k
	}
	return nsip.PlainJSON(g)
}
