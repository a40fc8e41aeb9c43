package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Key builds the cache key "method:params" where params is the compact JSON
// of params with object keys sorted at every depth, e.g.
// get_animal_details:{"search_string":"6402382024NCS310"}. Nil params encode
// as {}. Callers fill in defaults first so that omitted and explicit defaults
// share a key.
//
// encoding/json writes map keys sorted; any other value (a struct, whose
// fields it writes in declaration order) is first reduced to maps by a
// marshal and decode. HTML escaping is off so that <, > and & stay readable
// in keys and logs.
func Key(method string, params any) string {
	if params == nil {
		return method + ":{}"
	}
	if m, ok := params.(map[string]any); ok {
		// Every tool call builds a key, cache hits included: the arguments
		// the gateway passes (strings, numbers, booleans, nested maps and
		// lists) are written directly, as encoding/json would write them.
		b := make([]byte, 0, len(method)+256)
		b = append(b, method...)
		b = append(b, ':')
		if b, ok := appendValue(b, m); ok {
			return string(b)
		}
	} else {
		raw, err := json.Marshal(params)
		if err != nil {
			return fmt.Sprintf("%s:%#v", method, params)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // numbers stay as written
		if dec.Decode(&params) != nil {
			return fmt.Sprintf("%s:%#v", method, params)
		}
	}
	var b bytes.Buffer
	b.Grow(len(method) + 128)
	b.WriteString(method)
	b.WriteByte(':')
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		// Only values JSON cannot represent get here (channels, NaN); %#v is
		// deterministic for them and cannot collide with a JSON key, which
		// never starts with "map[" or a Go type name.
		return fmt.Sprintf("%s:%#v", method, params)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// appendValue writes v as encoding/json does with HTML escaping off and
// reports false for anything it leaves to encoding/json: other types,
// non-ASCII strings, json.Number, NaN and infinities. TestKeyMatchesReference
// holds the two to the same bytes.
func appendValue(b []byte, v any) ([]byte, bool) {
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
	case float64:
		return appendFloat(b, v)
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		keys := make([]string, 0, len(v))
		for k := range v {
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
			if b, ok = appendValue(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	case []any:
		return appendArray(b, v, appendValue)
	case []string:
		return appendArray(b, v, appendString)
	}
	return b, false
}

// appendArray writes xs as a JSON array, each element by add; a nil slice
// is null, as encoding/json writes it.
func appendArray[T any](b []byte, xs []T, add func([]byte, T) ([]byte, bool)) ([]byte, bool) {
	if xs == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = add(b, x); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendString writes an ASCII string with encoding/json's escapes.
func appendString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return b, false
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}

// appendFloat writes a finite float64 as encoding/json does: the shortest
// decimal, in exponent form below 1e-6 and from 1e21, with a one-digit
// negative exponent as e-7, not e-07.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
