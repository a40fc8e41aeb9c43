package transport

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// envelope is what one walk over a message's top-level object finds: the
// JSON-RPC members, each as sent, and the first member name repeated
// inside params.
type envelope struct {
	vals [len(members)]json.RawMessage
	has  [len(members)]bool
	// repeat is the first member name that appears twice in one object
	// inside params; see repeatedIn.
	repeat    string
	hasRepeat bool
}

// get returns the member name as sent and whether it was.
func (e *envelope) get(name string) (json.RawMessage, bool) {
	for i, m := range members {
		if m == name {
			return e.vals[i], e.has[i]
		}
	}
	return nil, false
}

// topMembers returns the JSON-RPC members of a JSON object that is known to
// be valid. mcp-go decodes with encoding/json, which matches struct fields
// case-insensitively (Unicode folding included), so a name that only folds
// to a member would make mcp-go read the message otherwise than this check
// did; a repeated name is read differently by different parsers. Both are
// refused. Other members are skipped unread.
//
// It also looks for repeated member names inside params, in the same pass:
// every message goes through here before mcp-go reads it again, so the
// bytes are walked once, not decoded token by token two more times.
func topMembers(raw []byte) (*envelope, string) {
	e := &envelope{}
	w := walker{b: raw}
	w.i = 1 // past the opening brace; raw is a valid object
	for {
		w.space()
		if w.b[w.i] == '}' {
			return e, ""
		}
		if w.b[w.i] == ',' {
			w.i++
			w.space()
		}
		nb := w.name()
		w.space()
		w.i++ // the colon
		w.space()
		start := w.i
		if string(nb) == "params" {
			// A check that finds a repeat stops inside the value; the
			// plain walk then finds its end.
			sub := walker{b: w.b, i: w.i}
			if e.repeat, e.hasRepeat = sub.value(0, true); e.hasRepeat {
				w.value(0, false)
			} else {
				w.i = sub.i
			}
		} else {
			w.value(0, false)
		}
		value := json.RawMessage(w.b[start:w.i])
		for k, want := range members {
			if !strings.EqualFold(string(nb), want) {
				continue
			}
			if string(nb) != want {
				return nil, fmt.Sprintf("member names are case-sensitive: send %q, not %q", want, nb)
			}
			if e.has[k] {
				return nil, fmt.Sprintf("member %q appears more than once", nb)
			}
			e.vals[k], e.has[k] = value, true
		}
	}
}

// walker reads JSON that json.Valid has accepted, so it checks nothing of
// the syntax.
type walker struct {
	b []byte
	i int
}

func (w *walker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\r', '\n':
			w.i++
		default:
			return
		}
	}
}

// str skips the string at w.i and reports whether it holds an escape.
func (w *walker) str() (start, end int, escaped bool) {
	start = w.i
	w.i++
	for {
		switch w.b[w.i] {
		case '"':
			w.i++
			return start, w.i, escaped
		case '\\':
			escaped = true
			w.i += 2
		default:
			w.i++
		}
	}
}

// name reads a member name, decoded: the bytes as sent unless it holds an
// escape.
func (w *walker) name() []byte {
	start, end, escaped := w.str()
	if !escaped {
		return w.b[start+1 : end-1]
	}
	var s string
	_ = json.Unmarshal(w.b[start:end], &s)
	return []byte(s)
}

// value skips one value. With check, it returns the first member name seen
// twice in one object inside it, at any depth; names of the outermost
// object (depth 0 here) count as the same when they fold to the same
// letters, as encoding/json matches them to mcp-go's struct fields.
func (w *walker) value(depth int, check bool) (string, bool) {
	switch w.b[w.i] {
	case '"':
		w.str()
	case '{':
		return w.object(depth, check)
	case '[':
		w.i++
		w.space()
		if w.b[w.i] == ']' {
			w.i++
			return "", false
		}
		for {
			w.space()
			if name, ok := w.value(depth+1, check); ok {
				return name, true
			}
			w.space()
			if w.b[w.i] == ']' {
				w.i++
				return "", false
			}
			w.i++ // the comma
		}
	default: // a number, true, false or null
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return "", false
			}
			w.i++
		}
	}
	return "", false
}

func (w *walker) object(depth int, check bool) (string, bool) {
	w.i++
	var seen nameSet
	for {
		w.space()
		switch w.b[w.i] {
		case '}':
			w.i++
			return "", false
		case ',':
			w.i++
			w.space()
		}
		if !check {
			w.str()
		} else {
			name := w.name()
			if seen.add(name, depth == 0) {
				return string(name), true
			}
		}
		w.space()
		w.i++ // the colon
		w.space()
		if name, ok := w.value(depth+1, check); ok {
			return name, true
		}
	}
}

// foldName is the form in which two names encoding/json would match to the
// same struct field are equal.
func foldName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToUpper(strings.ToLower(s))
		}
	}
	return strings.ToUpper(s) // the same for ASCII, in one step
}

// nameSet holds the names of one object: copied into an array inside the
// set while few and short, since most objects in a request have a handful
// of members (the set lives on the walker's stack, so they cost no
// allocation), and in a map past that, so that an object of many members
// costs linear time.
type nameSet struct {
	buf  [192]byte // the names, one after another
	ends [8]uint8  // where each name in buf ends
	n    int
	set  map[string]struct{}
}

// add records name, in the form foldName gives it when fold is set, and
// reports whether it was there already.
func (s *nameSet) add(name []byte, fold bool) bool {
	var tmp [64]byte
	key := name
	if fold {
		key = appendFolded(tmp[:0], name)
	}
	if s.set != nil {
		if _, ok := s.set[string(key)]; ok {
			return true
		}
		s.set[string(key)] = struct{}{}
		return false
	}
	start := 0
	for _, end := range s.ends[:s.n] {
		if string(s.buf[start:end]) == string(key) {
			return true
		}
		start = int(end)
	}
	if s.n < len(s.ends) && start+len(key) <= len(s.buf) {
		s.ends[s.n] = uint8(start + copy(s.buf[start:], key))
		s.n++
		return false
	}
	s.set = make(map[string]struct{}, 4*len(s.ends))
	start = 0
	for _, end := range s.ends[:s.n] {
		s.set[string(s.buf[start:end])] = struct{}{}
		start = int(end)
	}
	s.set[string(key)] = struct{}{}
	return false
}

// appendFolded appends foldName(name) to dst, without a string between
// them for the ASCII names that requests carry.
func appendFolded(dst, name []byte) []byte {
	for _, c := range name {
		if c >= utf8.RuneSelf {
			return append(dst, foldName(string(name))...)
		}
	}
	for _, c := range name {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
