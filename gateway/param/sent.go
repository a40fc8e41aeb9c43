package param

import (
	"bytes"
	"encoding/json"
	"maps"
)

// Sent is a call's arguments as the caller sent them: the JSON object of
// its params.arguments (Decode), numbers kept as json.Number, or that
// object as the user completed it when asked (With). Validation judges it
// (Args.Validate) and an error's example of a correct call starts from it
// (Args.Example); the rest of the server only asks it what it holds.
type Sent struct{ m map[string]any }

// SentOf is the call that sends the JSON object m: a user's answer to a
// form, read from the object mcp-go hands over, or a test's call.
func SentOf(m map[string]any) Sent { return Sent{m} }

// Has reports whether the call sent name with a value: a member sent as
// null is as good as left out.
func (s Sent) Has(name string) bool { return s.m[name] != nil }

// Value is the member a dotted path names, as sent.
func (s Sent) Value(path string) (any, bool) { return valueAt(s.m, path) }

// With is the call with name sent as v too, the call itself unchanged.
func (s Sent) With(name string, v any) Sent {
	m := maps.Clone(s.m)
	if m == nil {
		m = map[string]any{}
	}
	m[name] = v
	return Sent{m}
}

// Members are the call's arguments by name, as sent, to be read only.
func (s Sent) Members() map[string]any { return s.m }

// WithAt is the call with the member a dotted path names sent as v, the
// call itself unchanged: a breed's name replaced by its ID.
func (s Sent) WithAt(path string, v any) Sent {
	m := maps.Clone(s.m)
	if m == nil {
		m = map[string]any{}
	}
	setPath(m, path, v)
	return Sent{m}
}

// MarshalJSON writes the call as the JSON object it sends.
func (s Sent) MarshalJSON() ([]byte, error) {
	if s.m == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(s.m)
}

// UnmarshalJSON reads a call from the JSON object it sends, numbers kept
// as json.Number as Decode keeps them.
func (s *Sent) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(&s.m)
}

// Sent is the validated call as a call sending its arguments, defaults
// included: where an error's example is best built from what passed
// validation (the breed trait check, NSIP refusing a request).
func (v Valid) Sent() Sent { return Sent(v) }
