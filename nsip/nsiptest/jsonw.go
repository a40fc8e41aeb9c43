package nsiptest

import (
	"strconv"
	"unicode/utf8"
)

// jw writes JSON with keys in a fixed order and without escaping HTML, as
// the real API (an ASP.NET service) does: lineage fragments arrive as
// "<div>…</div>", not "\u003cdiv\u003e". Fixed key order is what makes two
// servers with the same seed answer byte for byte alike.
type jw struct {
	b     []byte
	first []bool // per open container: no member written yet
}

func (w *jw) open(c byte) {
	w.b = append(w.b, c)
	w.first = append(w.first, true)
}

func (w *jw) close(c byte) {
	w.b = append(w.b, c)
	w.first = w.first[:len(w.first)-1]
}

// sep writes the comma before every member but the first.
func (w *jw) sep() {
	if n := len(w.first); n > 0 {
		if w.first[n-1] {
			w.first[n-1] = false
		} else {
			w.b = append(w.b, ',')
		}
	}
}

func (w *jw) key(k string) {
	w.sep()
	w.quote(k)
	w.b = append(w.b, ':')
}

func (w *jw) str(k, v string)         { w.key(k); w.quote(v) }
func (w *jw) num(k string, v float64) { w.key(k); w.float(v) }
func (w *jw) int(k string, v int)     { w.key(k); w.b = strconv.AppendInt(w.b, int64(v), 10) }
func (w *jw) bool(k string, v bool)   { w.key(k); w.b = strconv.AppendBool(w.b, v) }

// strOrNull writes null for an empty value: how the current format marks a
// field the breeder never filled in.
func (w *jw) strOrNull(k, v string) {
	if v == "" {
		w.key(k)
		w.b = append(w.b, "null"...)
		return
	}
	w.str(k, v)
}

func (w *jw) float(v float64) { w.b = strconv.AppendFloat(w.b, v, 'f', -1, 64) }

func (w *jw) quote(s string) {
	const hex = "0123456789abcdef"
	w.b = append(w.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				w.b = append(w.b, `\ufffd`...)
			} else {
				w.b = append(w.b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			w.b = append(w.b, '\\', c)
		case c == '\n':
			w.b = append(w.b, `\n`...)
		case c == '\t':
			w.b = append(w.b, `\t`...)
		case c < 0x20:
			w.b = append(w.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			w.b = append(w.b, c)
		}
		i++
	}
	w.b = append(w.b, '"')
}
