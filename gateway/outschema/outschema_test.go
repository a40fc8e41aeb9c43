package outschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	N int `json:"n"`
}

type node struct {
	ID    string  `json:"id"`
	Left  *node   `json:"left,omitempty"`
	Kids  []*node `json:"kids"`
	inner         // promoted: n
	Skip  string  `json:"-"`
	Raw   json.RawMessage
	Any   any            `json:"any,omitempty"`
	Tags  map[string]int `json:"tags,omitempty"`
	Box   inner          `json:"box,omitempty"` // omitempty never leaves a struct out
	Zero  inner          `json:"zero,omitzero"`
	Flag  bool           `json:"flag,omitempty"`
	U     uint8          `json:"u"`
	hid   int
}

// testNames publish this file's types under names of their own.
var testNames = Names{
	reflect.TypeFor[node]():  "Node",
	reflect.TypeFor[inner](): "Inner",
}

func decode(t *testing.T, d *Doc) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(d.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestStructFollowsEncodingJSON(t *testing.T) {
	_ = node{}.hid
	m := decode(t, New(testNames).Add("node", reflect.TypeFor[node]()))
	if m["type"] != "object" || m["$ref"] != "#/$defs/Node" {
		t.Fatalf("root %v: want an object referring to its type", m)
	}
	def := m["$defs"].(map[string]any)["Node"].(map[string]any)
	props := def["properties"].(map[string]any)
	want := []string{"Raw", "any", "box", "flag", "id", "kids", "left", "n", "tags", "u", "zero"}
	var got []string
	for k := range props {
		got = append(got, k)
	}
	if len(got) != len(want) {
		t.Errorf("properties %v, want %v", got, want)
	}
	for _, k := range want {
		if _, ok := props[k]; !ok {
			t.Errorf("no property %s", k)
		}
	}
	req, _ := json.Marshal(def["required"])
	if string(req) != `["Raw","box","id","kids","n","u"]` {
		t.Errorf("required %s", req)
	}
	if def["additionalProperties"] != false {
		t.Errorf("additionalProperties %v, want false", def["additionalProperties"])
	}
	kids, _ := json.Marshal(props["kids"])
	if string(kids) != `{"items":{"$ref":"#/$defs/Node"},"type":["array","null"]}` {
		t.Errorf("kids %s: a nil slice that is not omitted is null", kids)
	}
	left, _ := json.Marshal(props["left"])
	if string(left) != `{"$ref":"#/$defs/Node"}` {
		t.Errorf("left %s: a recursive pointer refers back; omitted when nil, never null", left)
	}
	for k, w := range map[string]string{
		"Raw": `{}`, "any": `{}`, "tags": `{"additionalProperties":{"type":"integer"},"type":"object"}`,
		"u": `{"minimum":0,"type":"integer"}`, "flag": `{"type":"boolean"}`,
	} {
		if b, _ := json.Marshal(props[k]); string(b) != w {
			t.Errorf("%s = %s, want %s", k, b, w)
		}
	}
}

func TestBranchesAreTitledAlternatives(t *testing.T) {
	m := decode(t, New(testNames).Add("one", reflect.TypeFor[inner]()).Add("map", reflect.TypeFor[map[string]any]()))
	any, _ := json.Marshal(m["anyOf"])
	if string(any) != `[{"$ref":"#/$defs/Inner","title":"one"},{"additionalProperties":{},"title":"map","type":"object"}]` {
		t.Errorf("anyOf %s", any)
	}
}

func TestNullablePointerToStruct(t *testing.T) {
	type holder struct {
		P *inner `json:"p"`
	}
	m := decode(t, New(Names{reflect.TypeFor[holder](): "Holder"}.Merge(testNames)).Add("h", reflect.TypeFor[holder]()))
	p, _ := json.Marshal(m["$defs"].(map[string]any)["Holder"].(map[string]any)["properties"].(map[string]any)["p"])
	if string(p) != `{"anyOf":[{"$ref":"#/$defs/Inner"},{"type":"null"}]}` {
		t.Errorf("p %s", p)
	}
}

type custom struct{}

func (custom) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

func TestTypeWritingItsOwnJSONIsRefused(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a json.Marshaler got a schema read from its fields")
		}
	}()
	New(testNames).Add("c", reflect.TypeFor[custom]())
}

// A pointer to a number among a row's cells, behind another pointer or as a
// map value is there to write null; the schema lets it.
func TestNullCells(t *testing.T) {
	type row struct {
		Cells []*float64          `json:"cells"`
		Pairs []*[2]*float64      `json:"pairs"`
		Eval  **string            `json:"eval,omitempty"` // absent, null or a string
		By    map[string]*float64 `json:"by"`
		Mixed [][]any             `json:"mixed"`
	}
	m := decode(t, New(Names{reflect.TypeFor[row](): "Row"}).Add("r", reflect.TypeFor[row]()))
	props := m["$defs"].(map[string]any)["Row"].(map[string]any)["properties"].(map[string]any)
	for k, w := range map[string]string{
		"cells": `{"items":{"type":["number","null"]},"type":["array","null"]}`,
		"pairs": `{"items":{"items":{"type":["number","null"]},"type":["array","null"]},"type":["array","null"]}`,
		"eval":  `{"type":["string","null"]}`,
		"by":    `{"additionalProperties":{"type":["number","null"]},"type":["object","null"]}`,
		"mixed": `{"items":{"items":{},"type":"array"},"type":["array","null"]}`,
	} {
		if b, _ := json.Marshal(props[k]); string(b) != w {
			t.Errorf("%s = %s, want %s", k, b, w)
		}
	}
}

// A named struct without a published name is refused, so a new type cannot
// reach a contract under a name nobody chose.
func TestUnnamedTypeIsRefused(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), "no published name") {
			t.Errorf("recovered %v, want a panic naming the missing published name", r)
		}
	}()
	New(Names{}).Add("n", reflect.TypeFor[node]())
}

// Names that clash, differ for one type or are not plain identifiers are
// refused when the tables are merged.
func TestMergeRefusesClashes(t *testing.T) {
	type other struct{}
	for name, tables := range map[string][]Names{
		"two types, one name": {{reflect.TypeFor[node](): "Node"}, {reflect.TypeFor[other](): "Node"}},
		"one type, two names": {{reflect.TypeFor[node](): "Node"}, {reflect.TypeFor[node](): "Tree"}},
		"a package prefix":    {{reflect.TypeFor[node](): "outschema.node"}},
		"lower case":          {{reflect.TypeFor[node](): "node"}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("merged %v without a complaint", tables)
				}
			}()
			tables[0].Merge(tables[1:]...)
		})
	}
	got := Names{reflect.TypeFor[node](): "Node"}.Merge(Names{reflect.TypeFor[node](): "Node", reflect.TypeFor[other](): "Other"})
	if len(got) != 2 || got[reflect.TypeFor[other]()] != "Other" {
		t.Errorf("merge = %v, want both types under their names", got)
	}
}

// A member of an embedded struct that a field of the outer struct names
// again is written once, as the outer field, as encoding/json writes it.
func TestOuterFieldShadowsEmbeddedMember(t *testing.T) {
	type shadow struct {
		inner        // n, an integer
		N     string `json:"n"`
	}
	b := New(Names{reflect.TypeFor[shadow](): "Shadow"}.Merge(testNames)).Add("s", reflect.TypeFor[shadow]()).JSON()
	want := `{"$defs":{"Shadow":{"additionalProperties":false,"properties":{"n":{"type":"string"}},"required":["n"],"type":"object"}},"$ref":"#/$defs/Shadow","type":"object"}`
	if string(b) != want {
		t.Errorf("schema %s\nwant %s", b, want)
	}
}

// An answer that is any object its upstream chose is an object described,
// with no members named; alone it is the whole schema.
func TestAnyObjectAlone(t *testing.T) {
	b := New(Names{}).AddObject("theirs", "Passed on as it came.").JSON()
	if string(b) != `{"description":"Passed on as it came.","type":"object"}` {
		t.Errorf("schema %s", b)
	}
}

// A member pinned as an open object is published as a map[string]any
// member is, whatever its type, and its type (which has no published name)
// is not looked into; an unknown pin is refused.
func TestPinnedObject(t *testing.T) {
	type args struct {
		N int `json:"n"`
	}
	type call struct {
		Set   *args          `json:"set" outschema:"object"`
		Value args           `json:"value" outschema:"object"`
		Was   map[string]any `json:"was"`
		Opt   *args          `json:"opt,omitempty" outschema:"object"`
	}
	m := decode(t, New(Names{reflect.TypeFor[call](): "Call"}).Add("c", reflect.TypeFor[call]()))
	def := m["$defs"].(map[string]any)
	props := def["Call"].(map[string]any)["properties"].(map[string]any)
	for k, w := range map[string]string{
		"set":   `{"additionalProperties":{},"type":["object","null"]}`,
		"value": `{"additionalProperties":{},"type":"object"}`,
		"was":   `{"additionalProperties":{},"type":["object","null"]}`,
		"opt":   `{"additionalProperties":{},"type":"object"}`,
	} {
		if b, _ := json.Marshal(props[k]); string(b) != w {
			t.Errorf("%s = %s, want %s", k, b, w)
		}
	}
	if len(def) != 1 {
		t.Errorf("defs %v: want the pinned member's type left out", def)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `outschema:"array"`) {
			t.Errorf("recovered %v, want a panic naming the unknown pin", r)
		}
	}()
	type bad struct {
		X []int `json:"x" outschema:"array"`
	}
	New(Names{reflect.TypeFor[bad](): "Bad"}).Add("b", reflect.TypeFor[bad]())
}
