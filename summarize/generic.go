package summarize

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// node is a JSON value with object members in their original order, which
// a map would lose.
type node struct {
	kind  byte   // '{', '[', '"' or 'l' for a number, true, false or null
	text  string // a string's value or a literal's JSON text
	keys  []string
	elems []*node // object values or array elements
}

// parseJSON reads one JSON value, keeping numbers as written.
func parseJSON(b []byte) (*node, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return parseValue(d)
}

func parseValue(d *json.Decoder) (*node, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		n := &node{kind: byte(x)}
		for d.More() {
			if x == '{' {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				n.keys = append(n.keys, k)
			}
			e, err := parseValue(d)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, e)
		}
		if _, err := d.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &node{kind: '"', text: x}, nil
	case json.Number:
		return &node{kind: 'l', text: x.String()}, nil
	case bool:
		return &node{kind: 'l', text: strconv.FormatBool(x)}, nil
	case nil:
		return &node{kind: 'l', text: "null"}, nil
	}
	return nil, errors.New("summarize: unexpected JSON token")
}

// widest is the largest number of elements or members of any container.
func widest(n *node) int {
	w := len(n.elems)
	for _, e := range n.elems {
		w = max(w, widest(e))
	}
	return w
}

// keyLike reports whether a member name suggests an identifier or a count,
// which the structural summary keeps even when it cuts an object short.
func keyLike(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"id", "lpn", "sire", "dam", "sre", "count", "total", "name", "code", "breed", "date", "status"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// maxKeyLike caps the identifier-like members kept beyond the width, so a
// pathological object of a million "id_n" members still shrinks.
const maxKeyLike = 16

// shape bounds a structural summary: containers show at most width
// elements (plus identifier-like members), nothing deeper than depth is
// expanded, and strings are clipped to clip bytes.
type shape struct{ width, depth, clip int }

// writer renders a node under a shape.
type writer struct {
	buf bytes.Buffer
	enc *json.Encoder
	s   shape
}

// newWriter's encoder writes straight into the buffer the node is rendered
// in, one string at a time, rather than returning a slice per value as
// nsip.PlainJSON does.
func newWriter(s shape) *writer {
	w := &writer{s: s}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	return w
}

func (w *writer) str(s string) {
	_ = w.enc.Encode(clip(s, w.s.clip)) // a string always encodes
	w.buf.Truncate(w.buf.Len() - 1)     // Encode's newline
}

// cut writes the note that a container shows shown of its total entries.
func (w *writer) cut(shown, total int) {
	w.buf.WriteString(`{"shown":`)
	w.buf.WriteString(strconv.Itoa(shown))
	w.buf.WriteString(`,"total":`)
	w.buf.WriteString(strconv.Itoa(total))
	w.buf.WriteByte('}')
}

func (w *writer) value(n *node, depth int) {
	switch n.kind {
	case '"':
		w.str(n.text)
	case 'l':
		w.buf.WriteString(n.text)
	case '[':
		w.array(n, depth)
	case '{':
		w.object(n, depth)
	}
}

func (w *writer) array(n *node, depth int) {
	shown := min(len(n.elems), w.s.width)
	if depth >= w.s.depth {
		shown = 0
	}
	w.buf.WriteByte('[')
	for i := range shown {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.value(n.elems[i], depth+1)
	}
	if shown < len(n.elems) {
		if shown > 0 {
			w.buf.WriteByte(',')
		}
		w.buf.WriteString(`{"_truncated":`)
		w.cut(shown, len(n.elems))
		w.buf.WriteByte('}')
	}
	w.buf.WriteByte(']')
}

// object keeps identifier-like scalar members wherever they are, then the
// first width members; past the depth limit only scalars stay. A call the
// answer offers (an object naming its tool) keeps its arguments whole: a
// call cut short would fail.
func (w *writer) object(n *node, depth int) {
	deep := depth >= w.s.depth
	call := isCall(n)
	shown, others, likes := 0, 0, 0
	w.buf.WriteByte('{')
	for i, k := range n.keys {
		e := n.elems[i]
		scalar := e.kind == '"' || e.kind == 'l'
		args := call && (k == "set" || k == "arguments")
		switch {
		case args:
		case scalar && likes < maxKeyLike && keyLike(k):
			likes++
		case others < w.s.width && (scalar || !deep):
			others++
		default:
			continue
		}
		if shown > 0 {
			w.buf.WriteByte(',')
		}
		shown++
		w.str(k)
		w.buf.WriteByte(':')
		if args {
			w.whole(e)
			continue
		}
		w.value(e, depth+1)
	}
	if shown < len(n.keys) {
		if shown > 0 {
			w.buf.WriteByte(',')
		}
		w.buf.WriteString(`"_truncated":`)
		w.cut(shown, len(n.keys))
	}
	w.buf.WriteByte('}')
}

// isCall reports whether n is a call an answer offers: an object whose
// "tool" member names the tool.
func isCall(n *node) bool {
	for i, k := range n.keys {
		if k == "tool" && n.elems[i].kind == '"' {
			return true
		}
	}
	return false
}

// whole writes n as it is, with no width, depth or clip.
func (w *writer) whole(n *node) {
	s := w.s
	w.s = shape{width: math.MaxInt, depth: math.MaxInt, clip: math.MaxInt}
	w.value(n, 0)
	w.s = s
}

// genericShapes are the structural summary's levels, tried in turn until
// one shows at least one element of every container it opens.
var genericShapes = []shape{{depth: 8, clip: 256}, {depth: 4, clip: 64}, {depth: 2, clip: 24}}

// genericSummary summarizes any JSON by structure: every container cut to
// the widest width that fits, with a note wherever something was cut.
func genericSummary(f *fitter, kind Kind, orig []byte) ([]byte, error) {
	root, err := parseJSON(orig)
	if err != nil {
		return nil, err
	}
	head := `{"summary":true,"kind":"generic",`
	if kind != KindGeneric {
		head += `"of":"` + string(kind) + `",`
	}
	head += `"data":`
	most := widest(root)
	out, _, err := firstComplete(len(genericShapes), func(i int) ([]byte, bool, error) {
		s := genericShapes[i]
		render := func(k int) ([]byte, error) {
			s.width = k
			w := newWriter(s)
			w.buf.WriteString(head)
			w.value(root, 0)
			w.buf.WriteByte('}')
			return w.buf.Bytes(), nil
		}
		k, out, ok, err := f.largest(most, 1, render)
		if err != nil || !ok {
			return nil, false, err
		}
		return out, k > 0 || most == 0, nil
	})
	return out, err
}
