package param

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is a JSON Schema as this server publishes one: a tool's input
// schema and its arguments', a form put to the user, an output schema.
//
// Its members are declared in the order of their JSON names as
// encoding/json sorts a map's keys, which is how the published schemas
// were spelt when they were built as maps: the bytes on the wire, and the
// tokens every conversation pays for them, stay as they were.
type Schema struct {
	Defs                 map[string]*Schema `json:"$defs,omitempty"`
	Ref                  string             `json:"$ref,omitempty"`
	AdditionalProperties *additional        `json:"additionalProperties,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	// Default is the argument's default, any JSON value as Spec.Default
	// holds it; nil for none.
	Default     any      `json:"default,omitempty"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	EnumNames   []string `json:"enumNames,omitempty"` // a form's labels of Enum, in its order
	Format      string   `json:"format,omitempty"`
	Items       *Schema  `json:"items,omitempty"`
	MaxLength   int      `json:"maxLength,omitempty"`
	Maximum     *float64 `json:"maximum,omitempty"` // a pointer: a bound of 0 is written
	MinLength   int      `json:"minLength,omitempty"`
	Minimum     *float64 `json:"minimum,omitempty"`
	Pattern     string   `json:"pattern,omitempty"`
	// Properties is written whenever it is not nil, even empty ({}): an
	// object schema names its members, none being a statement too.
	Properties Properties `json:"properties,omitzero"`
	Required   []string   `json:"required,omitempty"`
	Title      string     `json:"title,omitempty"`
	Type       Types      `json:"type,omitempty"`
}

// Type is the schema of a value of JSON type k, and nothing more.
func Type(k Kind) *Schema { return &Schema{Type: Types{k}} }

// Null is the JSON type of null, which output schemas allow where an
// answer may write it; no argument is of it.
const Null Kind = "null"

// Types are a schema's "type": one JSON type, written as a string, or
// several a value may be any of (["string","null"]), written as a list.
type Types []Kind

// MarshalJSON writes one type as a string and several as a list.
func (ts Types) MarshalJSON() ([]byte, error) {
	if len(ts) == 1 {
		return json.Marshal(string(ts[0]))
	}
	return json.Marshal([]Kind(ts))
}

// UnmarshalJSON reads either spelling.
func (ts *Types) UnmarshalJSON(b []byte) error {
	var one Kind
	if err := json.Unmarshal(b, &one); err == nil {
		*ts = Types{one}
		return nil
	}
	var many []Kind
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("param: a schema's type is a string or a list of strings, got %s", b)
	}
	*ts = many
	return nil
}

// additional is a schema's additionalProperties: false, no members but
// those it names (Schema nil), or the schema every other member is of.
type additional struct {
	Schema *Schema
}

// NoAdditional allows no members but those a schema names.
func NoAdditional() *additional { return &additional{} }

// AdditionalOf lets every member a schema does not name be of s.
func AdditionalOf(s *Schema) *additional { return &additional{Schema: s} }

// MarshalJSON writes false for none, or the members' schema.
func (a additional) MarshalJSON() ([]byte, error) {
	if a.Schema == nil {
		return []byte("false"), nil
	}
	return json.Marshal(a.Schema)
}

// UnmarshalJSON reads false or a schema; true, any member at all, is the
// empty schema.
func (a *additional) UnmarshalJSON(b []byte) error {
	var allowed bool
	if err := json.Unmarshal(b, &allowed); err == nil {
		a.Schema = nil
		if allowed {
			a.Schema = &Schema{}
		}
		return nil
	}
	a.Schema = &Schema{}
	return json.Unmarshal(b, a.Schema)
}

// Property is one member of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// Properties are an object schema's members, written in their order: an
// argument's in declaration order, so that the schema reads like the
// description; an output schema's sorted by name.
type Properties []Property

// Get is the schema of member name; nil when there is none.
func (ps Properties) Get(name string) *Schema {
	for _, p := range ps {
		if p.Name == name {
			return p.Schema
		}
	}
	return nil
}

// Names are the members' names, in order.
func (ps Properties) Names() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// ToolProperties is ps as mcp-go's ToolInputSchema takes a tool's
// properties, whose order Names keeps: the one place a typed schema is
// handed over as a map.
func (ps Properties) ToolProperties() map[string]any {
	out := make(map[string]any, len(ps))
	for _, p := range ps {
		out[p.Name] = p.Schema
	}
	return out
}

// MarshalJSON writes the members as a JSON object, in order.
func (ps Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(p.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of schemas, keeping its order.
func (ps *Properties) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("param: a schema's properties are an object, got %s", b)
	}
	out := Properties{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		p := Property{Name: t.(string), Schema: &Schema{}} // an object's keys are strings
		if err := dec.Decode(p.Schema); err != nil {
			return fmt.Errorf("param: property %s: %w", p.Name, err)
		}
		out = append(out, p)
	}
	*ps = out
	return nil
}
