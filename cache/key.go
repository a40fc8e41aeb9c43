package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Key builds the cache key "method:params" where params is the compact JSON
// of params with object keys sorted at every depth, e.g.
// get_animal_details:{"search_string":"6402382024NCS310"}. Nil params encode
// as {}. Callers fill in defaults first so that omitted and explicit defaults
// share a key.
//
// The JSON-shaped values the gateway passes (maps of strings, integers,
// floats, booleans, nested maps and []any) are written directly; anything
// else takes the general route through encoding/json, which gives the same
// bytes at about ten times the cost.
func Key(method string, params any) string {
	if params == nil {
		return method + ":{}"
	}
	b := make([]byte, 0, 256) // room for the gateway's largest usual keys
	b = append(append(b, method...), ':')
	if out, ok := appendCanonical(b, params); ok {
		return string(out)
	}
	return slowKey(method, params)
}

// appendCanonical appends v as slowKey would write it, or reports false for
// a value it does not handle, leaving the decision to slowKey.
func appendCanonical(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		return appendFloat(b, v)
	case map[string]any:
		return appendObject(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendCanonical(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return b, false
}

func appendObject(b []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	var arr [16]string // the gateway's objects have at most a dozen keys
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendString(b, k); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendCanonical(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendString quotes s the way encoding/json does with HTML escaping off.
// Invalid UTF-8, which encoding/json rewrites (and which could make two map
// keys one), is left to slowKey.
func appendString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return b, false
			}
			if r == '\u2028' || r == '\u2029' {
				b = append(b, s[start:i]...)
				b = append(b, `\u202`...)
				b = append(b, "0123456789abcdef"[r&0xf])
				start = i + size
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		i++
		start = i
	}
	return append(append(b, s[start:]...), '"'), true
}

// appendFloat formats f as encoding/json does: shortest representation,
// exponent form outside [1e-6, 1e21), exponents without a leading zero.
// NaN and infinities are not JSON and go to slowKey.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// slowKey is the reference encoding: marshal, decode into maps (which
// encoding/json writes with sorted keys) keeping numbers as written, and
// encode again without HTML escaping.
func slowKey(method string, params any) string {
	if params == nil {
		return method + ":{}"
	}
	raw, err := json.Marshal(params)
	if err != nil {
		// Only values JSON cannot represent get here (channels, NaN); %#v is
		// deterministic for them and cannot collide with a JSON key.
		return fmt.Sprintf("%s:%#v", method, params)
	}
	// Neither step can fail on what json.Marshal just produced.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	_ = dec.Decode(&generic)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <, > and & readable in keys and logs
	_ = enc.Encode(generic)
	return method + ":" + strings.TrimSuffix(b.String(), "\n")
}
