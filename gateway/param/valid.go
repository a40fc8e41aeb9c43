package param

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Valid is a call's arguments once validated (Args.Validate): each the
// value its Spec or List normalised it to, with defaults filled in and
// nothing the tool does not take. What a validated argument is, and so
// what a tool's cache key, view and typed arguments are made of, is
// decided here; the rest of the server reads a Valid by name through its
// methods, or whole, as the tool's own struct, through Decode.
type Valid struct{ m map[string]any }

// The accessors take an argument's name or, for a field of an object
// argument, a dotted path (search_criteria.breed_id), as Call's do.

// Int is the integer argument name, if the call has one.
func (v Valid) Int(name string) (int, bool) {
	a, _ := valueAt(v.m, name)
	n, ok := a.(int)
	return n, ok
}

// String is the string argument name, if the call has one.
func (v Valid) String(name string) (string, bool) {
	a, _ := valueAt(v.m, name)
	s, ok := a.(string)
	return s, ok
}

// Bool is the boolean argument name; false when the call has none.
func (v Valid) Bool(name string) bool {
	a, _ := valueAt(v.m, name)
	b, _ := a.(bool)
	return b
}

// Names are the member names of the object argument name, sorted: the
// trait codes of a trait_ranges, say. None when the call has no such
// object.
func (v Valid) Names(name string) []string {
	a, _ := valueAt(v.m, name)
	obj, _ := a.(map[string]any)
	return slices.Sorted(maps.Keys(obj))
}

// Strings is the list of strings name (trait codes, LPN IDs), if the call
// has one.
func (v Valid) Strings(name string) []string {
	switch l := v.m[name].(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, s := range l {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Each calls f with each argument and its value, in name order.
func (v Valid) Each(f func(name string, value any)) {
	for _, k := range slices.Sorted(maps.Keys(v.m)) {
		f(k, v.m[k])
	}
}

// Value is argument name as validated, for an error that repeats it.
func (v Valid) Value(name string) (any, bool) { return valueAt(v.m, name) }

// Without is v less the arguments names: the view's, say, which choose
// how an answer is shown and so stay out of its cache key. v itself when
// it has none of them.
func (v Valid) Without(names []string) Valid {
	if !slices.ContainsFunc(names, func(k string) bool { _, ok := v.m[k]; return ok }) {
		return v
	}
	out := maps.Clone(v.m)
	maps.DeleteFunc(out, func(k string, _ any) bool { return slices.Contains(names, k) })
	return Valid{out}
}

// Decode reads the arguments into into, a pointer to the struct they were
// validated by (DecodeInto).
func (v Valid) Decode(into any) *FieldError {
	b, err := json.Marshal(v.m)
	if err != nil {
		return &FieldError{Field: "arguments", Problem: "could not be encoded after validation: " + err.Error()}
	}
	return DecodeInto(b, into)
}

// Members are the arguments as the JSON object they stand for, for what
// writes them out: the cache key, the summarizer's next-call hints and an
// error's example. The caller must not change it.
func (v Valid) Members() map[string]any { return v.m }

// ValidateOwn validates the server's own call of a tool taking a, made
// with the tool's argument struct own, exactly as a client's call of the
// same values is (defaults filled in, case normalised), so that it keys
// the same cache entry. Key-only fields (arg:"key") are no arguments:
// args are without them, and keyed is args with them joined as they are,
// for the cache key.
func (a *Args) ValidateOwn(own any) (args, keyed Valid, err error) {
	b, err := json.Marshal(own)
	if err != nil {
		return Valid{}, Valid{}, fmt.Errorf("%T does not encode: %w", own, err)
	}
	// The arguments as a client's call carries them: a JSON object.
	var sent Sent
	if err := json.Unmarshal(b, &sent.m); err != nil {
		return Valid{}, Valid{}, fmt.Errorf("%T is not a JSON object: %w", own, err)
	}
	keyOnly := maps.Clone(sent.m)
	maps.DeleteFunc(keyOnly, func(k string, _ any) bool { return !slices.Contains(a.Keyed, k) })
	maps.DeleteFunc(sent.m, func(k string, _ any) bool { return slices.Contains(a.Keyed, k) })
	args, errs := a.Validate(sent)
	if len(errs) > 0 {
		return Valid{}, Valid{}, fmt.Errorf("%s %s", errs[0].Field, errs[0].Problem)
	}
	keyed = args
	if len(keyOnly) > 0 {
		keyed.m = maps.Clone(args.m)
		maps.Copy(keyed.m, keyOnly)
	}
	return args, keyed, nil
}
