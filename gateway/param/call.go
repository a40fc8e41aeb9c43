package param

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
)

// Call is the example of a correct call that an error carries: a tool's
// arguments by name, what the caller sent right kept and examples for the
// rest. The type is named Call, not Example, because that is what the
// value is, a call the caller can make; the functions that build one keep
// the name Example ([Example], [Args.Example], the analyses' Def.Example),
// as each builds the example Call of a tool.
//
// A Call is built once from what was sent and then edited only through
// its methods or [Edit]s. An edit copies each object it writes into, so it
// never reaches the sent arguments or a Spec's Example value the Call
// holds. It is written as JSON exactly as the object of its arguments
// would be: members in name order, numbers as encoding/json writes them.
// A nil *Call is no example; reading it finds nothing and editing it does
// nothing.
type Call struct {
	args map[string]any
}

// Value is the argument a dotted path names (search_criteria.breed_id),
// and whether the call has it. Paths split at every dot: argument names
// have none.
func (c *Call) Value(path string) (any, bool) {
	if c == nil {
		return nil, false
	}
	return valueAt(c.args, path)
}

// valueAt is the member of m a dotted path names.
func valueAt(m map[string]any, path string) (any, bool) {
	for {
		head, rest, nested := strings.Cut(path, ".")
		v, ok := m[head]
		if !nested || !ok {
			return v, ok
		}
		if m, ok = v.(map[string]any); !ok {
			return nil, false
		}
		path = rest
	}
}

// Set makes the argument a dotted path names v, creating the objects on
// the way; a member on the way that is not an object is replaced by one.
func (c *Call) Set(path string, v any) {
	if c == nil {
		return
	}
	if c.args == nil {
		c.args = map[string]any{}
	}
	setPath(c.args, path, v)
}

// setPath sets path in m, which the call owns; the objects below it are
// copied before they are written to, as the call may share them.
func setPath(m map[string]any, path string, v any) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		m[head] = v
		return
	}
	inner, _ := m[head].(map[string]any)
	inner = maps.Clone(inner)
	if inner == nil {
		inner = map[string]any{}
	}
	m[head] = inner
	setPath(inner, rest, v)
}

// Delete leaves out the argument a dotted path names; a path the call
// does not have is no change.
func (c *Call) Delete(path string) {
	if _, ok := c.Value(path); !ok {
		return
	}
	parent, name, nested := cutLast(path)
	if !nested {
		delete(c.args, name)
		return
	}
	inner, _ := c.Value(parent)
	m := maps.Clone(inner.(map[string]any)) // Value found path below it
	delete(m, name)
	c.Set(parent, m)
}

// cutLast splits a dotted path before its last name.
func cutLast(path string) (parent, name string, nested bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path, false
	}
	return path[:i], path[i+1:], true
}

// Edit is one change to a Call, stated where the change is known (an
// argument the data refused, say) and applied to the example later.
type Edit struct {
	path  string
	value any
	drop  bool
}

// Assign is the edit that sets the argument at path to v (Call.Set).
func Assign(path string, v any) Edit { return Edit{path: path, value: v} }

// Drop is the edit that leaves out the argument at path (Call.Delete).
func Drop(path string) Edit { return Edit{path: path, drop: true} }

// Apply makes edits in order.
func (c *Call) Apply(edits ...Edit) {
	for _, e := range edits {
		if e.drop {
			c.Delete(e.path)
		} else {
			c.Set(e.path, e.value)
		}
	}
}

// IsZero reports a call with no arguments, which an error leaves out
// (json omitzero) as it left out an empty object.
func (c *Call) IsZero() bool { return c == nil || len(c.args) == 0 }

// MarshalJSON writes the call's arguments as a JSON object. It escapes no
// HTML: an encoder that does (json.Marshal) escapes what a Marshaler
// writes itself, and one that does not (nsip.PlainJSON) keeps it.
func (c *Call) MarshalJSON() ([]byte, error) {
	if c == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.args); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a call as encoding/json reads an object into a
// map[string]any (numbers as float64), as a client reading an error does.
func (c *Call) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	c.args = m
	return nil
}

// String is the call as JSON, for logs and messages.
func (c *Call) String() string { return JSONText(c) }
