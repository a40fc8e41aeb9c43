// Package outschema writes a tool's output schema from the Go types whose
// JSON encoding is its answer, so the schema cannot drift from the code
// that produces the answer: a field added to a model or a summary is in the
// schema at the next build.
//
// The schema follows encoding/json: exported fields under their json names,
// "-" left out, embedded structs inlined, omitempty members optional and the
// others required, nil slices, maps and pointers of members that are not
// omitempty as null, and so are pointers to anything but a struct among
// items, map values and behind a pointer (nilCell). Named struct types are defined once under $defs and
// referred to, which keeps shared types (a trait, a next call) from being
// repeated and lets a recursive type (a pedigree node) refer to itself. Only
// keywords that JSON Schema drafts 7 and 2020-12 read alike are used
// (type, properties, required, additionalProperties, items, anyOf, $ref),
// so that a validator of either draft accepts the same answers.
//
// A member tagged outschema:"object" is published as an open object, as a
// map[string]any member is, whatever its Go type: a member that was a map
// when its schema was published, and is typed since, keeps that schema.
package outschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// Names are the published names of the named struct types an output
// schema may hold: each becomes a $defs key and, for an answer's own type,
// a title. Each package that owns answer types lists its own.
type Names map[reflect.Type]string

// Merge is the union of n and others. It panics when two types share a
// name, when one type is named twice differently, or when a name is not a
// plain identifier: a published contract must not depend on the order
// tables were merged in.
func (n Names) Merge(others ...Names) Names {
	out := Names{}
	byName := map[string]reflect.Type{}
	for _, tbl := range append([]Names{n}, others...) {
		for t, name := range tbl {
			if !plainName(name) {
				panic(fmt.Sprintf("outschema: %s is published as %q: use letters and digits, starting with a capital", t, name))
			}
			if prev, ok := out[t]; ok && prev != name {
				panic(fmt.Sprintf("outschema: %s is published as both %q and %q", t, prev, name))
			}
			if other, ok := byName[name]; ok && other != t {
				panic(fmt.Sprintf("outschema: %s and %s are both published as %q", other, t, name))
			}
			out[t], byName[name] = name, t
		}
	}
	return out
}

func plainName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// A Doc is one output schema under construction: the shapes an answer may
// take, and the named types they share.
type Doc struct {
	names    Names
	defs     map[string]*param.Schema
	branches []*param.Schema
	titles   []string
}

// New starts an output schema whose named struct types are published
// under names.
func New(names Names) *Doc { return &Doc{names: names, defs: map[string]*param.Schema{}} }

// Name is t's published name (a pointer is followed); it panics when names
// gives t none.
func (d *Doc) Name(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name, ok := d.names[t]
	if !ok {
		panic(fmt.Sprintf("outschema: %s has no published name: add it to its package's schema names", t))
	}
	return name
}

// Add declares that an answer may be the JSON encoding of a value of type
// t (a pointer is followed), titled for readers of the schema.
func (d *Doc) Add(title string, t reflect.Type) *Doc {
	d.branches = append(d.branches, d.of(t, false))
	d.titles = append(d.titles, title)
	return d
}

// AddObject declares that an answer may be any JSON object, one whose
// members this server does not choose (an upstream's own answer passed on
// as it came), titled and described for readers of the schema.
func (d *Doc) AddObject(title, description string) *Doc {
	d.branches = append(d.branches, &param.Schema{Type: param.Types{param.Object}, Description: description})
	d.titles = append(d.titles, title)
	return d
}

// Schema is the output schema: an object that is one of the shapes added,
// with the named types they use under $defs.
func (d *Doc) Schema() *param.Schema {
	var out param.Schema
	if len(d.branches) == 1 {
		out = *d.branches[0]
	} else {
		for i, b := range d.branches {
			b.Title = d.titles[i]
		}
		out.AnyOf = d.branches
	}
	if out.Type == nil { // a branch's own type, where it has one, stands
		out.Type = param.Types{param.Object}
	}
	if len(d.defs) > 0 {
		out.Defs = d.defs
	}
	return &out
}

// JSON is the schema's encoding, for mcp.Tool.RawOutputSchema.
func (d *Doc) JSON() json.RawMessage {
	b, err := json.Marshal(d.Schema())
	if err != nil {
		panic(fmt.Sprintf("outschema: %v", err)) // schemas of strings and slices always encode
	}
	return b
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// of is the schema of a value of type t; nullable when the encoding may
// write null for it (a nil pointer, slice or map that is not omitted).
func (d *Doc) of(t reflect.Type, nullable bool) *param.Schema {
	if t == rawMessage {
		return &param.Schema{} // any JSON value
	}
	if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
		panic(fmt.Sprintf("outschema: %s writes its own JSON; its schema cannot be read from its fields", t))
	}
	switch t.Kind() {
	case reflect.Pointer:
		return orNull(d.of(t.Elem(), nilCell(t.Elem())), nullable)
	case reflect.Interface:
		return &param.Schema{}
	case reflect.Bool:
		return param.Type(param.Boolean)
	case reflect.String:
		return param.Type(param.String)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return param.Type(param.Integer)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &param.Schema{Type: param.Types{param.Integer}, Minimum: param.Bound(0)}
	case reflect.Float32, reflect.Float64:
		return param.Type(param.Number)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return orNull(param.Type(param.String), nullable) // base64, as encoding/json writes bytes
		}
		s := &param.Schema{Type: param.Types{param.Array}, Items: d.of(t.Elem(), nilCell(t.Elem()))}
		return orNull(s, nullable && t.Kind() == reflect.Slice)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("outschema: %s has keys that are not strings", t))
		}
		s := &param.Schema{Type: param.Types{param.Object}, AdditionalProperties: param.AdditionalOf(d.of(t.Elem(), nilCell(t.Elem())))}
		return orNull(s, nullable)
	case reflect.Struct:
		if t.Name() == "" {
			return d.object(t)
		}
		name := d.Name(t)
		if _, ok := d.defs[name]; !ok {
			d.defs[name] = nil // in progress: a recursive field refers to it
			d.defs[name] = d.object(t)
		}
		return &param.Schema{Ref: "#/$defs/" + name}
	}
	panic(fmt.Sprintf("outschema: %s has no JSON encoding", t))
}

// object is a struct's schema: its members, by name, the required ones,
// no others.
func (d *Doc) object(t reflect.Type) *param.Schema {
	props, required := param.Properties{}, map[string]bool{}
	d.fields(t, &props, required)
	slices.SortFunc(props, func(x, y param.Property) int { return strings.Compare(x.Name, y.Name) })
	var names []string
	for _, p := range props {
		if required[p.Name] {
			names = append(names, p.Name)
		}
	}
	return &param.Schema{Type: param.Types{param.Object}, Properties: props, AdditionalProperties: param.NoAdditional(), Required: names}
}

// fields adds t's members to props as encoding/json writes them, and
// whether each is required to required; a member named again replaces the
// one before.
func (d *Doc) fields(t reflect.Type, props *param.Properties, required map[string]bool) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				d.fields(et, props, required)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		// omitempty leaves a struct in; omitzero leaves out its zero value.
		o := strings.Split(opts, ",")
		omit := slices.Contains(o, "omitzero") || slices.Contains(o, "omitempty") && f.Type.Kind() != reflect.Struct
		setProp(props, name, d.member(f, !omit))
		required[name] = !omit
	}
}

var openObject = reflect.TypeFor[map[string]any]()

// member is the schema of field f, which may be null when nullable; or,
// tagged outschema:"object", the open object the tag pins, null only when
// f's own type may be nil.
func (d *Doc) member(f reflect.StructField, nullable bool) *param.Schema {
	switch pin := f.Tag.Get("outschema"); pin {
	case "":
		return d.of(f.Type, nullable)
	case "object":
		k := f.Type.Kind()
		return d.of(openObject, nullable && (k == reflect.Pointer || k == reflect.Map || k == reflect.Interface))
	default:
		panic(fmt.Sprintf("outschema: field %s (%s) is tagged outschema:%q; the one pin is \"object\"", f.Name, f.Type, pin))
	}
}

// setProp sets member name of props to s, in place of any it had.
func setProp(props *param.Properties, name string, s *param.Schema) {
	for i := range *props {
		if (*props)[i].Name == name {
			(*props)[i].Schema = s
			return
		}
	}
	*props = append(*props, param.Property{Name: name, Schema: s})
}

// nilCell reports whether an item, a map value or a pointee of type t is
// taken to be null at times: a pointer to a number, a string or an array
// there exists to write null (an EBV NSIP does not have, a date that could
// not be read), where a pointer to a struct (a pedigree node) is a shared
// value that is always there.
func nilCell(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Struct
}

// orNull lets s also be null.
func orNull(s *param.Schema, nullable bool) *param.Schema {
	if !nullable {
		return s
	}
	if len(s.Type) == 1 {
		s.Type = append(s.Type, param.Null)
		return s
	}
	return &param.Schema{AnyOf: []*param.Schema{s, param.Type(param.Null)}}
}
