package outschema

import (
	"encoding/json"
	"reflect"
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
	m := decode(t, New().Add("node", reflect.TypeFor[node]()))
	if m["type"] != "object" || m["$ref"] != "#/$defs/outschema.node" {
		t.Fatalf("root %v: want an object referring to its type", m)
	}
	def := m["$defs"].(map[string]any)["outschema.node"].(map[string]any)
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
	if string(kids) != `{"items":{"$ref":"#/$defs/outschema.node"},"type":["array","null"]}` {
		t.Errorf("kids %s: a nil slice that is not omitted is null", kids)
	}
	left, _ := json.Marshal(props["left"])
	if string(left) != `{"$ref":"#/$defs/outschema.node"}` {
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
	m := decode(t, New().Add("one", reflect.TypeFor[inner]()).Add("map", reflect.TypeFor[map[string]any]()))
	any, _ := json.Marshal(m["anyOf"])
	if string(any) != `[{"$ref":"#/$defs/outschema.inner","title":"one"},{"additionalProperties":{},"title":"map","type":"object"}]` {
		t.Errorf("anyOf %s", any)
	}
}

func TestNullablePointerToStruct(t *testing.T) {
	type holder struct {
		P *inner `json:"p"`
	}
	m := decode(t, New().Add("h", reflect.TypeFor[holder]()))
	p, _ := json.Marshal(m["$defs"].(map[string]any)["outschema.holder"].(map[string]any)["properties"].(map[string]any)["p"])
	if string(p) != `{"anyOf":[{"$ref":"#/$defs/outschema.inner"},{"type":"null"}]}` {
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
	New().Add("c", reflect.TypeFor[custom]())
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
	m := decode(t, New().Add("r", reflect.TypeFor[row]()))
	props := m["$defs"].(map[string]any)["outschema.row"].(map[string]any)["properties"].(map[string]any)
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
