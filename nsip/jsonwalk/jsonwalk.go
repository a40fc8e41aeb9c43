// Package jsonwalk steps over the parts of JSON text that is already known
// to be valid (checked once with json.Valid), so that callers can split
// objects and arrays into their raw members without decoding them again.
// On text that is not valid the functions stay within the slice: they never
// panic, they just stop at its end.
package jsonwalk

// IsSpace reports whether c is white space JSON allows between tokens.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not
// white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the index just past the string that opens at b[i].
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++ // the escaped byte cannot end the string
		}
	}
	return len(b)
}

// SkipValue returns the index just past the value that starts at b[i].
func SkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && !IsSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}
