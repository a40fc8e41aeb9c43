package param

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/nsip-tools/nsip-mcp/gateway/internal/jsonpool"
)

// InputSchema is the published input schema of a tool taking a: its
// scalars and objects in their order, then its lists, each required
// unless another argument may stand in for it (List.Unless).
func (a *Args) InputSchema() mcp.ToolInputSchema {
	s := InputSchema(a.Specs)
	for i := range a.Lists {
		l := &a.Lists[i]
		s.Properties[l.Name] = l.Schema()
		s.PropertyOrder = append(s.PropertyOrder, l.Name)
		if l.Required && l.Unless == "" {
			s.Required = append(s.Required, l.Name)
		}
	}
	return s
}

// Validate checks the arguments sent against a: the scalars and objects by
// their Specs, the lists by their List, and every name a does not take.
// Like every validation it lists the first MaxProblems problems and counts
// the rest.
func (a *Args) Validate(call Sent) (Valid, []FieldError) {
	sent := call.m
	if len(a.Lists) == 0 {
		return ValidateObject("", a.Specs, call)
	}
	// The scalars are validated without judging the names they lack, so
	// that the lists and unknown names are judged once, below.
	var pr Problems
	args := validateFields(&pr, "", a.Specs, sent)
	errs := pr.Errs()
	known := slices.Clone(a.Specs)
	for _, l := range a.Lists {
		known = append(known, Spec{Name: l.Name})
		raw, present := sent[l.Name]
		if !present || raw == nil {
			if l.requiredIn(call) {
				errs = append(errs, FieldError{Field: l.Name, Problem: "is required", Expected: l.Expected()})
			}
			continue
		}
		v, fe := l.Validate(raw)
		if fe != nil {
			errs = append(errs, fe...)
			continue
		}
		args[l.Name] = v
	}
	// namesNotTaken describes at most MaxProblems names, so its
	// did-you-mean work is bounded however many names were sent.
	return Valid{args}, Cap(append(errs, namesNotTaken("", known, sent)...))
}

// Example is a correct call for an error message: what sent got right,
// and examples for the rest that a call needs.
func (a *Args) Example(call Sent) *Call {
	sent := call.m
	out := example(a.Specs, sent)
	for _, l := range a.Lists {
		if raw, ok := sent[l.Name]; ok {
			if _, fe := l.Validate(raw); fe == nil {
				out[l.Name] = raw
				continue
			}
		}
		if l.requiredIn(call) || call.Has(l.Name) {
			out[l.Name] = l.Example
		}
	}
	return &Call{args: out}
}

// DecodeInto reads validated arguments, as JSON, into v, a pointer to the
// struct they were validated by. A member v has no field for, or a value
// of another type, means the validation and the struct disagree: the
// error names the member, found from the struct rather than from the
// decoder's message.
func DecodeInto(params []byte, v any) *FieldError {
	err := jsonpool.Strict(params, v)
	if err == nil {
		return nil
	}
	field := "arguments"
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field = memberPath(te.Field, reflect.TypeOf(v))
	} else if name := unknownMember(params, reflect.TypeOf(v)); name != "" {
		field = name
	}
	return &FieldError{Field: field, Problem: "does not fit the tool's arguments after validation: " + err.Error()}
}

// unknownMember is the first member of the object params that struct
// type t (or a pointer to it) has no field for; "" when there is none.
func unknownMember(params []byte, t reflect.Type) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
		return ""
	}
	known := jsonNames(t)
	var unknown []string
	for k := range members {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if len(unknown) == 0 {
		return ""
	}
	return unknown[0]
}

// memberPath is the decoder's path of a field of struct type t as the
// caller names it: JSON member names, without the embedded structs' type
// names that the decoder puts in.
func memberPath(path string, t reflect.Type) string {
	embedded := embeddedNames(t)
	var out []string
	for _, p := range strings.Split(path, ".") {
		if !slices.Contains(embedded, p) {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

// embeddedNames are the type names of the structs embedded in t, at any
// depth of embedding.
func embeddedNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous {
			out = append(append(out, f.Name), embeddedNames(f.Type)...)
		}
	}
	return out
}

// jsonNames are the member names struct type t decodes, embedded
// structs' included.
func jsonNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "":
			out = append(out, jsonNames(f.Type)...)
		case name == "":
			out = append(out, f.Name)
		case name != "-":
			out = append(out, name)
		}
	}
	return out
}
