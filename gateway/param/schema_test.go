package param

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A schema reads back as it was written: properties in their order, one
// type or several, additionalProperties false, true or a schema.
func TestSchemaRoundTrip(t *testing.T) {
	const doc = `{"additionalProperties":false,"properties":{"z":{"type":["string","null"]},` +
		`"a":{"additionalProperties":{"type":"number"},"type":"object"},"m":{"items":{},"type":"array"}},"required":["z"],"type":"object"}`
	var s Schema
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties.Names(); !reflect.DeepEqual(got, []string{"z", "a", "m"}) {
		t.Errorf("properties read as %v; want their order z a m", got)
	}
	if z := s.Properties.Get("z"); !reflect.DeepEqual(z.Type, Types{String, Null}) {
		t.Errorf("z's type read as %v; want string or null", z.Type)
	}
	if s.AdditionalProperties == nil || s.AdditionalProperties.Schema != nil || s.Properties.Get("nope") != nil {
		t.Errorf("additionalProperties %+v; want false, and no schema for an unknown member", s.AdditionalProperties)
	}
	b, err := json.Marshal(&s)
	if err != nil || string(b) != doc {
		t.Errorf("written back as %s (%v)\nwant %s", b, err, doc)
	}
	m := s.Properties.ToolProperties()
	if len(m) != 3 || m["a"] != s.Properties.Get("a") {
		t.Errorf("tool properties %v; want the three schemas by name", m)
	}
}

// additionalProperties true allows any member: the empty schema.
func TestAdditionalTrueIsAnyMember(t *testing.T) {
	var s Schema
	if err := json.Unmarshal([]byte(`{"additionalProperties":true}`), &s); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(&s); string(b) != `{"additionalProperties":{}}` {
		t.Errorf("written back as %s", b)
	}
}

// What is no schema is refused, naming what was wrong.
func TestSchemaRefusesWhatIsNone(t *testing.T) {
	for _, doc := range []string{
		`{"type":1}`,
		`{"properties":[]}`,
		`{"properties":{"a":{"type":2}}}`,
		`{"properties":{"a":`,
		`{"additionalProperties":"yes"}`,
	} {
		var s Schema
		if err := json.Unmarshal([]byte(doc), &s); err == nil {
			t.Errorf("%s read as %+v; want an error", doc, s)
		}
	}
}

// An empty, non-nil Properties is written as {}; nil leaves it out.
func TestEmptyPropertiesAreWritten(t *testing.T) {
	b, _ := json.Marshal(&Schema{Type: Types{Object}, Properties: Properties{}})
	if string(b) != `{"properties":{},"type":"object"}` {
		t.Errorf("empty properties written as %s", b)
	}
	if b, _ := json.Marshal(Type(Object)); string(b) != `{"type":"object"}` {
		t.Errorf("no properties written as %s", b)
	}
}
