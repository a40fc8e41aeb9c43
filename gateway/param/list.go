package param

import (
	"fmt"
	"slices"
)

// List is a list argument: an array of items or, when its Items are
// Keyed, an object of items to numbers (weights). What an item is (an LPN
// ID, a trait code) is the business of the package whose rules those
// are; param checks only the shape.
type List struct {
	Name, Desc         string
	Required           bool
	MinItems, MaxItems int
	Item               Items
	Example            any
	// Unless names an argument that stands in for this one: when it is
	// sent, a Required list is not (nor is it in the schema's required).
	Unless string
}

// Items say what a list holds: how a list of them is read and what it
// accepts.
type Items interface {
	// Validate reads list l's value raw, normalised, or gives its
	// problems, capped as every validation caps them.
	Validate(l *List, raw any) (any, []FieldError)
	// Expected says in a few words what list l accepts.
	Expected(l *List) string
	// Keyed says the list is an object of items to numbers, not an array.
	Keyed() bool
}

// requiredIn reports whether the list is required of a call that sent sent.
func (l *List) requiredIn(sent Sent) bool {
	return l.Required && (l.Unless == "" || !sent.Has(l.Unless))
}

// Schema is the list's shape only: its bounds, patterns and uniqueness are
// in the tool's description and enforced by validate, and would cost every
// conversation tokens a second time in tools/list.
func (l *List) Schema() *Schema {
	if l.Item.Keyed() {
		return &Schema{Description: l.Desc, Type: Types{Object}, AdditionalProperties: AdditionalOf(Type(Number))}
	}
	return &Schema{Description: l.Desc, Type: Types{Array}, Items: Type(String)}
}

// Expected says what the list accepts.
func (l *List) Expected() string { return l.Item.Expected(l) }

// Validate checks one list argument and returns it normalised.
func (l *List) Validate(raw any) (any, []FieldError) { return l.Item.Validate(l, raw) }

// Strings are Items of strings, MinItems to MaxItems of them, none twice,
// each read by Read. suggest is false once the list's problems are listed
// in full, when a did-you-mean would not be shown.
type Strings struct {
	Noun string // what the list holds, e.g. "distinct LPN IDs"
	Read func(l *List, field string, raw any, suggest bool) (string, *FieldError)
}

func (Strings) Keyed() bool { return false }

func (a Strings) Expected(l *List) string {
	return fmt.Sprintf("array of %d..%d %s, e.g. %s", l.MinItems, l.MaxItems, a.Noun, JSONText(l.Example))
}

func (a Strings) Validate(l *List, raw any) (any, []FieldError) {
	arr, ok := raw.([]any)
	if !ok {
		return nil, []FieldError{{Field: l.Name, Problem: "must be an array, got " + Describe(raw), Expected: l.Expected()}}
	}
	if len(arr) < l.MinItems || len(arr) > l.MaxItems {
		return nil, []FieldError{{Field: l.Name, Problem: fmt.Sprintf("has %d items; give %d..%d", len(arr), l.MinItems, l.MaxItems), Expected: l.Expected()}}
	}
	out := make([]string, 0, len(arr))
	var errs Problems
	for i, v := range arr {
		f := fmt.Sprintf("%s[%d]", l.Name, i)
		s, fe := a.Read(l, f, v, !errs.Full())
		if fe != nil {
			errs.Add(*fe)
			continue
		}
		if slices.Contains(out, s) {
			errs.Add(FieldError{Field: f, Problem: s + " is listed twice", Expected: l.Expected()})
			continue
		}
		out = append(out, s)
	}
	if errs.Count() > 0 {
		return nil, errs.Errs()
	}
	return out, nil
}
