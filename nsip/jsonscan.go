package nsip

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip/jsonwalk"
)

// Bodies are validated once, as a whole, by payload (and asArray validates
// what it is given); the functions below walk validated bytes without
// checking them again or copying values.

// elements splits a valid JSON array into its values. Each value's capacity
// ends with it, so appending to one never writes into its neighbour.
func elements(raw []byte) []json.RawMessage {
	items := []json.RawMessage{}
	i := jsonwalk.SkipSpace(raw, 1)
	for i < len(raw) && raw[i] != ']' {
		end := jsonwalk.SkipValue(raw, i)
		items = append(items, raw[i:end:end])
		i = jsonwalk.SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonwalk.SkipSpace(raw, i+1)
		}
	}
	return items
}

// lowKey is what decoding needs to know about a lower-cased field name.
type lowKey struct {
	s       string
	code    string  // upper case, for trait codes
	accOf   string  // for "accX", the name X it qualifies
	acc     *lowKey // X's entry, once seen
	known   bool    // one of TraitCodes
	letters bool
	index   bool // contains "index"

	// Scratch for the one object being built or collected at a time.
	stamp, accStamp uint32
	accAt           int
}

// spelling is a field name as the upstream spelled it (unescaped).
type spelling struct {
	name string
	low  *lowKey
}

// keyTable interns the field names of one body: a page repeats the same
// forty or so names in every row, so each is unescaped and lower-cased once.
type keyTable struct {
	raw    map[string]*spelling // escaped name → spelling
	byName map[string]*spelling
	lower  map[string]*lowKey
	gen    uint32

	// The layout of the last object filled and how its members map to
	// fields.
	layout  []*spelling
	order   []int
	first   []bool
	members []member

	keys  []int  // collect's scratch: unclaimed fields in name order
	pairs []pair // collect's scratch
}

func newKeyTable() *keyTable {
	return &keyTable{raw: map[string]*spelling{}, byName: map[string]*spelling{}, lower: map[string]*lowKey{}}
}

func (kt *keyTable) lowKey(l string) *lowKey {
	if lk, ok := kt.lower[l]; ok {
		return lk
	}
	lk := &lowKey{s: l, code: strings.ToUpper(l), known: knownTrait[l], letters: isLetters(l), index: strings.Contains(l, "index")}
	if len(l) > 3 && l[:3] == "acc" {
		lk.accOf = l[3:]
	}
	kt.lower[l] = lk
	return lk
}

// spelling interns the name whose JSON string literal is lit.
func (kt *keyTable) spelling(lit []byte) *spelling {
	if sp, ok := kt.raw[string(lit[1:len(lit)-1])]; ok {
		return sp
	}
	var name string
	if plainASCII(lit[1 : len(lit)-1]) {
		name = string(lit[1 : len(lit)-1])
	} else if json.Unmarshal(lit, &name) != nil {
		name = string(lit[1 : len(lit)-1]) // not reached: the body is valid
	}
	sp, ok := kt.byName[name]
	if !ok {
		sp = &spelling{name: name, low: kt.lowKey(strings.ToLower(name))}
		kt.byName[name] = sp
	}
	kt.raw[string(lit[1:len(lit)-1])] = sp
	return sp
}

// plainASCII reports whether b is printable ASCII without escapes, so that
// as the inside of a JSON string it stands for itself.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}

// object builds the object held in raw, which must be valid JSON; ok is
// false when raw is not an object.
func (kt *keyTable) object(raw []byte) (*object, bool) {
	o := &object{keys: kt}
	return o, kt.fill(o, raw)
}

// fill is object reusing o's field slice.
func (kt *keyTable) fill(o *object, raw []byte) bool {
	o.keys, o.fields = kt, o.fields[:0]
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	members := kt.members[:0]
	i := jsonwalk.SkipSpace(raw, 1)
	for i < len(raw) && raw[i] == '"' {
		kEnd := jsonwalk.SkipString(raw, i)
		sp := kt.spelling(raw[i:kEnd])
		i = jsonwalk.SkipSpace(raw, jsonwalk.SkipSpace(raw, kEnd)+1) // past the colon
		end := jsonwalk.SkipValue(raw, i)
		members = append(members, member{sp, raw[i:end:end]})
		i = jsonwalk.SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonwalk.SkipSpace(raw, i+1)
		}
	}
	kt.members = members
	// The rows of a page share their names and order: arrange them once.
	if !kt.sameLayout(members) {
		kt.arrange(members)
	}
	for k, j := range kt.order {
		sp := members[j].sp
		o.fields = append(o.fields, field{name: sp.name, low: sp.low, raw: members[j].raw, first: kt.first[k]})
	}
	return true
}

type member struct {
	sp  *spelling
	raw json.RawMessage
}

func (kt *keyTable) sameLayout(members []member) bool {
	if len(members) != len(kt.layout) {
		return false
	}
	for i, m := range members {
		if m.sp != kt.layout[i] {
			return false
		}
	}
	return true
}

// arrange works out the fields of an object with these members: in name
// order, as collect wants them, and each name once with its last value, as
// encoding/json keeps it. Of two spellings of one name, lookups find the
// first in byte order; the other stays unclaimed and lands in Extra.
func (kt *keyTable) arrange(members []member) {
	kt.layout = kt.layout[:0]
	order := kt.order[:0]
	for i, m := range members {
		kt.layout = append(kt.layout, m.sp)
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(members[a].sp.name, members[b].sp.name) })
	n := 0
	for _, j := range order {
		if n > 0 && members[order[n-1]].sp == members[j].sp {
			order[n-1] = j
			continue
		}
		order[n] = j
		n++
	}
	kt.order = order[:n]
	kt.gen++
	kt.first = kt.first[:0]
	for _, j := range kt.order {
		lk := members[j].sp.low
		kt.first = append(kt.first, lk.stamp != kt.gen)
		lk.stamp = kt.gen
	}
}
