package summarize

import (
	"unicode"
	"unicode/utf8"
)

// The cl100k_base pre-tokenizer, written out by hand. tiktoken-go splits
// text with regexp2 before byte-pair encoding, using
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// and that backtracking engine is most of the cost of a count. nextPiece
// reproduces its matches exactly: the first alternative that matches at a
// position wins, each with its greedy-then-backtrack length. The character
// classes are the ones regexp2 uses: \s is unicode.IsSpace, \p{L} and \p{N}
// are the Unicode categories L and N, and (?i) compares unicode.ToLower of
// the text character with the pattern character.

// Rune classes. Every rune is exactly one of letter, number, space or
// other; newline marks the two spaces (\r, \n) the pattern names.
const (
	clOther uint8 = iota
	clLetter
	clNumber
	clSpace
	clNewline
)

// asciiClass holds the class of each ASCII byte, the bulk of JSON.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOfSlow(r)
	}
	return t
}()

func classOfSlow(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return clNewline
	case unicode.IsSpace(r):
		return clSpace
	case unicode.Is(unicode.L, r):
		return clLetter
	case unicode.Is(unicode.N, r):
		return clNumber
	}
	return clOther
}

// runeAt decodes the rune at byte i of s with its class and width.
func runeAt(s string, i int) (rune, uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), asciiClass[c], 1
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return r, classOfSlow(r), w
}

// classAt is runeAt without the rune; end of text reads as clOther with
// width 0, which no caller treats as a match.
func classAt(s string, i int) (uint8, int) {
	if i >= len(s) {
		return clOther, 0
	}
	_, cl, w := runeAt(s, i)
	return cl, w
}

func isSpaceClass(cl uint8) bool { return cl == clSpace || cl == clNewline }

// contraction returns the length of a case-insensitive 's 't 're 've 'm 'll
// 'd at byte i of s, or 0.
func contraction(s string, i int) int {
	if s[i] != '\'' || i+1 >= len(s) {
		return 0
	}
	r1, w1 := utf8.DecodeRuneInString(s[i+1:])
	var second rune
	switch unicode.ToLower(r1) {
	case 's', 't', 'm', 'd':
		return 1 + w1
	case 'r', 'v':
		second = 'e'
	case 'l':
		second = 'l'
	default:
		return 0
	}
	j := i + 1 + w1
	if j >= len(s) {
		return 0
	}
	r2, w2 := utf8.DecodeRuneInString(s[j:])
	if unicode.ToLower(r2) != second {
		return 0
	}
	return j + w2 - i
}

// skipClass returns the byte index after the run of runes of class cl from
// i, stopping after at most limit runes (limit < 0: no limit).
func skipClass(s string, i int, cl uint8, limit int) int {
	for ; i < len(s) && limit != 0; limit-- {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiClass[c] != cl {
				break
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if classOfSlow(r) != cl {
			break
		}
		i += w
	}
	return i
}

// nextPiece returns the end of the pre-token that starts at byte i of s,
// which must be valid UTF-8 with i < len(s).
func nextPiece(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	_, cl, w := runeAt(s, i)
	switch cl {
	case clLetter:
		// [^\r\n\p{L}\p{N}]?\p{L}+ with the optional part empty.
		return skipClass(s, i, clLetter, -1)
	case clNumber:
		return skipClass(s, i, clNumber, 3)
	case clOther, clSpace:
		// One non-newline, non-letter, non-number rune may lead a word.
		if next, _ := classAt(s, i+w); next == clLetter {
			return skipClass(s, i+w, clLetter, -1)
		}
	}
	if cl == clOther {
		// ?[^\s\p{L}\p{N}]+[\r\n]* without the space.
		j := skipClass(s, i, clOther, -1)
		return skipClass(s, j, clNewline, -1)
	}
	if s[i] == ' ' {
		// The space-led form of the same alternative.
		if next, _ := classAt(s, i+1); next == clOther {
			j := skipClass(s, i+1, clOther, -1)
			return skipClass(s, j, clNewline, -1)
		}
	}
	// A run of whitespace: \s*[\r\n]+ ends after the run's last newline.
	end := i
	lastNewline := -1
	for end < len(s) {
		c, w := classAt(s, end)
		if !isSpaceClass(c) {
			break
		}
		end += w
		if c == clNewline {
			lastNewline = end
		}
	}
	if lastNewline >= 0 {
		return lastNewline
	}
	// \s+(?!\S) keeps the run at the end of text, or gives its last rune
	// to the token that follows; \s+ takes a lone rune before non-space.
	if end == len(s) {
		return end
	}
	_, lastW := utf8.DecodeLastRuneInString(s[:end])
	if end-lastW > i {
		return end - lastW
	}
	return end
}
