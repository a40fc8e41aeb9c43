// Package shape is the contract of the NSIP Search API's answers: for each
// endpoint, the members its envelope and payload carry, named as NSIP spells
// them, and the members recognised by pattern (trait pairs, indexes, trait
// codes) because they vary by breed. Compare reads one answer against it and
// names what is missing, what is new and what arrived as another kind of
// value.
//
// It is the one place these names are written down. The check against the
// live API (nsip-mcp check-nsip) reads them, and this package's test holds
// them to the captures in nsip/testdata/contract, so that the contract and
// what NSIP was seen to send cannot disagree.
package shape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Kind is what a JSON value is.
type Kind uint8

const (
	// Scalar is a string, number or boolean. Null is accepted wherever a
	// scalar is: captures show members sent as null (a founder's lpnSre),
	// and a member that is there but empty is not a change of shape.
	Scalar Kind = iota
	String
	Number
	Bool
	Object
	Array
	null // what a JSON null is, for messages; never expected
)

var kindNames = [...]string{"a scalar", "a string", "a number", "a boolean", "an object", "an array", "null"}

// String names the kind with its article, for messages: "an object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// accepts reports whether a value of kind got is what k expects.
func (k Kind) accepts(got Kind) bool {
	switch k {
	case Object, Array:
		return got == k
	case Scalar:
		return got != Object && got != Array
	}
	return got == k || got == null
}

// Shape is what one JSON value is expected to be.
type Shape struct {
	Kind     Kind
	Members  []Member  // Object: the members named, in the order captured
	Patterns []Pattern // Object: members recognised by name and value rather than listed
	Elem     *Shape    // Array: what every element is
}

// Member is one member an object is expected to carry.
type Member struct {
	Name     string // exactly as NSIP spells it
	Optional bool   // may be absent
	Value    *Shape // nil: any scalar
}

// Pattern recognises members whose names are data rather than contract:
// a breed's trait pairs (bwt, accbwt), its indexes (usHairIndex), a trait
// range's code (BWT). A member matches when its name does and its value is
// of Value's kind.
type Pattern struct {
	Label string // how reports name the members it matches, e.g. "trait"
	Name  func(name string) bool
	Value *Shape
	// Assumed, when set, says why the pattern is accepted although no
	// capture shows a member it matches; a pattern without it must match
	// in the endpoint's capture (the package's test checks).
	Assumed string
}

func (m Member) shape() *Shape {
	if m.Value == nil {
		return &Shape{Kind: Scalar}
	}
	return m.Value
}

// Diff is how one answer differs from its contract. Paths name members as
// sent, joined by dots, with [] for the elements of an array and <label>
// for members a pattern matched: records[].gender,
// data.searchResultViewModel.lpnSre, <trait code>.mean.
type Diff struct {
	Missing []string `json:"missing"` // members the contract expects that the answer lacks
	New     []string `json:"new"`     // members the answer has that the contract does not name
	Changed []string `json:"changed"` // values of another kind than expected, e.g. "data: an array where an object belongs"
	// Matched counts the members each pattern recognised, by label.
	Matched map[string]int `json:"-"`
}

// Drift reports whether the answer differs from its contract at all.
func (d Diff) Drift() bool { return len(d.Missing)+len(d.New)+len(d.Changed) > 0 }

// ErrNotJSON is returned by Compare for a body that is not one JSON value.
var ErrNotJSON = errors.New("the answer is not JSON")

// Compare reads body against s. Each path is listed once however many
// array elements show it.
func Compare(s *Shape, body []byte) (Diff, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Diff{}, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	if _, err := dec.Token(); err == nil {
		return Diff{}, fmt.Errorf("%w: more than one value", ErrNotJSON)
	}
	w := walker{missing: map[string]bool{}, added: map[string]bool{}, changed: map[string]bool{}, matched: map[string]int{}}
	w.value(s, v, "")
	return Diff{Missing: sorted(w.missing), New: sorted(w.added), Changed: sorted(w.changed), Matched: w.matched}, nil
}

// walker collects a Diff as sets, so that a member missing from every row
// of a page is one entry.
type walker struct {
	missing, added, changed map[string]bool
	matched                 map[string]int
}

func (w *walker) value(s *Shape, v any, path string) {
	got := kindOf(v)
	if !s.Kind.accepts(got) {
		at := path
		if at == "" {
			at = "the answer"
		}
		w.changed[fmt.Sprintf("%s: %s where %s belongs", at, got, s.Kind)] = true
		return
	}
	switch s.Kind {
	case Object:
		w.object(s, v.(map[string]any), path)
	case Array:
		for _, e := range v.([]any) {
			w.value(s.Elem, e, path+"[]")
		}
	}
}

func (w *walker) object(s *Shape, obj map[string]any, path string) {
	for _, m := range s.Members {
		v, ok := obj[m.Name]
		if !ok {
			if !m.Optional {
				w.missing[join(path, m.Name)] = true
			}
			continue
		}
		w.value(m.shape(), v, join(path, m.Name))
	}
	for name, v := range obj {
		if slices.ContainsFunc(s.Members, func(m Member) bool { return m.Name == name }) {
			continue
		}
		if p := s.pattern(name, v); p != nil {
			w.matched[p.Label]++
			w.value(p.Value, v, join(path, "<"+p.Label+">"))
			continue
		}
		w.added[join(path, name)] = true
	}
}

// pattern is the first pattern that recognises the member, or nil.
func (s *Shape) pattern(name string, v any) *Pattern {
	for i := range s.Patterns {
		p := &s.Patterns[i]
		if p.Name(name) && p.Value.Kind.accepts(kindOf(v)) {
			return p
		}
	}
	return nil
}

func kindOf(v any) Kind {
	switch v.(type) {
	case map[string]any:
		return Object
	case []any:
		return Array
	case string:
		return String
	case json.Number:
		return Number
	case bool:
		return Bool
	}
	return null
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isLower reports whether s is made of a to z only.
func isLower(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' })
}
