package param

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// A tool's arguments are one Go struct: the struct says each argument's
// name (its json tag), its JSON type (the Go type), whether it is required
// (no omitempty) and, for an object, its fields (a nested struct). What a
// Go type cannot say (description, bounds, enum, pattern, example, what
// completions offer) is in the struct's Fields, keyed by Go field name.
// Struct derives the Specs that the schema and validation are built from,
// once, at start-up; the struct itself is what the validated arguments are
// decoded into. So an argument is described in one place.
//
// Two tags mark fields that are not plain arguments:
//
//	arg:"view" an argument that chooses how the answer is shown and not
//	           what is asked: it stays out of the cache key.
//	arg:"key"  not an argument at all but part of the cache key, set by
//	           the server (the evaluation date a page is read under).
//
// A field whose entry sets List is a List, not a Spec: a []string of LPN
// IDs or trait codes, or a map[string]float64 of weights. Lists go to
// Args.Lists, in field order; the entry's List says all but the name and
// required-ness, which the field says (a List.Unless on an omitempty field
// makes it required whenever the argument Unless names is absent).

// Fields describes the fields of one argument struct, by Go field name.
// An entry may leave Name, Kind and Required unset; any it sets must agree
// with the struct, so that a shared Spec (nsiparg.BreedID, nsiparg.LPN) can be reused.
type Fields map[string]Spec

// Table is the Fields of each argument struct type.
type Table map[reflect.Type]Fields

// Described is a struct's fields' entries keyed by each field's address
// in the struct Of hands its function: &a.BreedID, not "BreedID".
type Described map[any]Spec

// Of is the Table of argument struct T whose fields describe finds by
// their addresses. A field renamed or removed is then a compile error
// where it is described, where a name in a string (Fields) would be found
// only when the server starts; an entry that is no field of T (a nested
// struct's field, say, which its own struct describes) stops the server
// at start-up like any disagreement between a struct and its description.
func Of[T any](describe func(*T) Described) Table {
	var v T
	entries := describe(&v)
	rv := reflect.ValueOf(&v).Elem()
	t := rv.Type()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("param: Of %v, which is no struct", t))
	}
	f := Fields{}
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			continue
		}
		key := rv.Field(i).Addr().Interface()
		if s, ok := entries[key]; ok {
			f[t.Field(i).Name] = s
			delete(entries, key)
		}
	}
	if len(entries) > 0 {
		panic(fmt.Sprintf("param: %v: %d described entries are no fields of it", t, len(entries)))
	}
	return Table{t: f}
}

// Tables is the tables ts together; a struct described twice is
// described by the later table.
func Tables(ts ...Table) Table {
	out := Table{}
	for _, t := range ts {
		maps.Copy(out, t)
	}
	return out
}

// Args is an argument struct as the tool call path uses it.
type Args struct {
	Type  reflect.Type
	Specs []Spec   // the arguments, in field order, embedded structs in place
	View  []string // the names of the view arguments
	Keyed []string // the names of key-only fields, which are no arguments
	Lists []List   // the list arguments, in field order
	names map[string]string
}

// Name is the argument name of the struct's Go field field, so that code
// that reads one argument names it by its field; an unknown field panics,
// which the var initialisers that call it turn into a start-up failure.
func (a *Args) Name(field string) string {
	n, ok := a.names[field]
	if !ok {
		panic(fmt.Sprintf("param: %v has no field %s", a.Type, field))
	}
	return n
}

// IsView reports whether name is one of the view arguments.
func (a *Args) IsView(name string) bool { return slices.Contains(a.View, name) }

// Struct derives the arguments of struct type t from its fields and their
// entries in tb. Every field must have its entry and every entry its field.
func (tb Table) Struct(t reflect.Type) (Args, error) {
	a := Args{Type: t, names: map[string]string{}}
	var errs []error
	specs := tb.fields(t, t.Name(), &a, &errs)
	a.Specs = specs
	return a, errors.Join(errs...)
}

// MustStruct is Struct for the argument structs the server is built from:
// a struct and its descriptions that disagree stop it at start-up.
func MustStruct[T any](tb Table) Args {
	a, err := tb.Struct(reflect.TypeFor[T]())
	if err != nil {
		panic(err)
	}
	return a
}

func (tb Table) fields(t reflect.Type, path string, a *Args, errs *[]error) []Spec {
	if t.Kind() != reflect.Struct {
		*errs = append(*errs, fmt.Errorf("param: %s is a %s, not a struct", path, t.Kind()))
		return nil
	}
	desc := tb[t]
	seen := map[string]bool{}
	var out []Spec
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, tb.fields(f.Type, f.Type.Name(), a, errs)...)
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		where := path + "." + f.Name
		if !f.IsExported() || name == "" || name == "-" {
			*errs = append(*errs, fmt.Errorf("param: %s needs a json tag naming the argument", where))
			continue
		}
		if a.names != nil {
			a.names[f.Name] = name
		}
		role := f.Tag.Get("arg")
		entry, ok := desc[f.Name]
		seen[f.Name] = true
		switch role {
		case "key":
			if ok {
				*errs = append(*errs, fmt.Errorf("param: %s is a key-only field, not an argument, but has a description", where))
			}
			a.Keyed = append(a.Keyed, name)
			continue
		case "view":
			a.View = append(a.View, name)
		case "":
		default:
			*errs = append(*errs, fmt.Errorf("param: %s: unknown arg tag %q (view or key)", where, role))
		}
		if !ok {
			*errs = append(*errs, fmt.Errorf("param: %s (%s) has no description: add it to its struct's Fields", where, name))
			continue
		}
		required := !strings.Contains(opts, "omitempty")
		if entry.List != nil {
			if l, err := listOf(f.Type, where, name, required, entry, a); err != nil {
				*errs = append(*errs, err)
			} else {
				a.Lists = append(a.Lists, l)
			}
			continue
		}
		s, err := tb.spec(f.Type, where, name, required, entry, a, errs)
		if err != nil {
			*errs = append(*errs, err)
			continue
		}
		out = append(out, s)
	}
	for _, k := range slices.Sorted(maps.Keys(desc)) {
		if !seen[k] {
			*errs = append(*errs, fmt.Errorf("param: %s has a description for %s, which is no field of it", path, k))
		}
	}
	return out
}

// listOf completes entry's List with what the field says.
func listOf(t reflect.Type, where, name string, required bool, entry Spec, a *Args) (List, error) {
	l := *entry.List
	if l.Item == nil {
		return l, fmt.Errorf("param: %s: a list says what it holds (Item)", where)
	}
	want := reflect.TypeFor[[]string]()
	if l.Item.Keyed() {
		want = reflect.TypeFor[map[string]float64]()
	}
	switch {
	case a.names == nil: // a nested struct's Args keeps no names
		return l, fmt.Errorf("param: %s: a list is an argument of its own, not a field of an object", where)
	case t.Kind() != want.Kind() || !t.ConvertibleTo(want): // breeding.Weights will do
		return l, fmt.Errorf("param: %s has Go type %s, but a list of its items is a %s", where, t, want)
	case !reflect.DeepEqual(entry, Spec{List: entry.List}):
		return l, fmt.Errorf("param: %s: a list's description is all in its List", where)
	case l.Name != "" && l.Name != name:
		return l, fmt.Errorf("param: %s is named %q by its json tag but %q by its List", where, name, l.Name)
	case required && l.Unless != "":
		return l, fmt.Errorf("param: %s is required, so nothing stands in for it: drop Unless or mark it omitempty", where)
	case !required && l.Required && l.Unless == "":
		return l, fmt.Errorf("param: %s is optional by its json tag (omitempty) but required by its List", where)
	}
	l.Name, l.Required = name, required || l.Unless != ""
	return l, nil
}

// spec completes entry with what the Go type of the field says.
func (tb Table) spec(t reflect.Type, where, name string, required bool, entry Spec, a *Args, errs *[]error) (Spec, error) {
	s := entry
	kind, elem := kindOf(t)
	if kind == "" {
		return s, fmt.Errorf("param: %s has Go type %s, which is no JSON argument type", where, t)
	}
	switch {
	case s.Name != "" && s.Name != name:
		return s, fmt.Errorf("param: %s is named %q by its json tag but %q by its description", where, name, s.Name)
	case s.Kind != "" && s.Kind != kind:
		return s, fmt.Errorf("param: %s is a JSON %s by its Go type but a %s by its description", where, kind, s.Kind)
	case (s.Name != "" || s.Required) && s.Required != required:
		return s, fmt.Errorf("param: %s is required=%v by its json tag (omitempty: optional) but %v by its description", where, required, s.Required)
	case required && s.Default != nil:
		return s, fmt.Errorf("param: %s is required and has a default: mark it omitempty", where)
	case s.Props != nil || s.Items != nil:
		return s, fmt.Errorf("param: %s: its fields and items come from its Go type, not its description", where)
	}
	s.Name, s.Kind, s.Required = name, kind, required
	switch {
	case kind == Array:
		ek, _ := kindOf(elem)
		s.Items = Type(ek)
	case kind == Object && t.Kind() == reflect.Map:
		if s.Custom == nil {
			return s, fmt.Errorf("param: %s is a map, whose keys only its own Custom can read", where)
		}
		vk, _ := kindOf(elem)
		s.Members = Type(vk)
	case kind == Object:
		s.Props = tb.fields(elem, where, &Args{}, errs)
		for _, w := range s.Without {
			f, ok := elem.FieldByName(w)
			if !ok {
				return s, fmt.Errorf("param: %s is without %s, which is no field of %v", where, w, elem)
			}
			json, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			s.Props = slices.DeleteFunc(s.Props, func(p Spec) bool { return p.Name == json })
		}
	}
	return s, nil
}

// kindOf is the JSON type of Go type t, and the element type of an array
// or object.
func kindOf(t reflect.Type) (Kind, reflect.Type) {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return Integer, nil
	case reflect.Float64:
		return Number, nil
	case reflect.String:
		return String, nil
	case reflect.Bool:
		return Boolean, nil
	case reflect.Slice:
		return Array, t.Elem()
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return Object, t.Elem()
		}
	case reflect.Struct:
		return Object, t
	case reflect.Pointer:
		// A pointer tells an argument left out from one sent as the zero
		// value, where 0 means something (a COI limit of 0).
		switch e := t.Elem(); e.Kind() {
		case reflect.Struct:
			return Object, e
		case reflect.Pointer, reflect.Slice, reflect.Map:
		default:
			k, _ := kindOf(e)
			return k, nil
		}
	}
	return "", nil
}
