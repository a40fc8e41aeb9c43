package param

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// How a caller's names and values are repeated in errors and matched
// for a did-you-mean, kept apart from the specs that use them.

// MaxShown bounds how many characters of a caller's key or value an error
// message repeats; longer ones are cut and marked, keeping messages one
// readable line.
const MaxShown = 64

// FieldName renders a key the caller sent as one step of a field path.
// Ordinary names appear as they are; anything else (empty, blank, with
// spaces, dots, quotes or control characters, or very long) is quoted and
// cut short, so the path always names something visible.
func FieldName(k string) string {
	if k == "" || utf8.RuneCountInString(k) > MaxShown {
		return QuoteShort(k)
	}
	for _, r := range k {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
			return QuoteShort(k)
		}
	}
	return k
}

// QuoteShort quotes s with Go escapes for anything unprintable, keeping at
// most MaxShown characters; a cut is marked by an ellipsis after the quote.
func QuoteShort(s string) string {
	n := 0
	for i := range s {
		if n == MaxShown {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// Duration is d as a person writes it: 1h, 30m, 1h30m, 2m5s, without the
// zero units time.Duration's String leaves at the end (1h0m0s, 30m0s).
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// asInteger accepts JSON numbers with no fractional part.
func asInteger(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return int(i), true
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !math.IsInf(f, 0) {
			return 0, false
		}
		return asInteger(f)
	case float64:
		// Huge values are clamped rather than refused, so that the range
		// check reports them as too large instead of as not integers.
		switch {
		case n != math.Trunc(n) || math.IsNaN(n):
			return 0, false
		case n >= math.MaxInt64:
			return math.MaxInt64, true
		case n <= math.MinInt64:
			return math.MinInt64, true
		}
		return int(n), true
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}

// AsNumber reads a JSON number as it is held: decoded (json.Number), a
// float64, or an int a form or a test gives.
func AsNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// Describe names a value's JSON type and, when short, the value itself.
func Describe(v any) string {
	t := jsonType(v)
	switch x := v.(type) { // plainly too long to show: not worth encoding
	case string:
		if len(x) > 40 {
			return t
		}
	case []any:
		if len(x) > 20 {
			return t
		}
	case map[string]any:
		if len(x) > 20 {
			return t
		}
	}
	b, err := nsip.PlainJSON(v)
	if err != nil || len(b) > 40 {
		return t
	}
	return fmt.Sprintf("%s %s", t, b)
}

func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if n == math.Trunc(n) {
			return "integer"
		}
		return "number"
	case int, int64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// maxSuggest bounds the length of a name or value that gets a
// did-you-mean: nothing longer is a slip of a short name, and comparing it
// would cost time in proportion to its length.
const maxSuggest = MaxShown

// folder ignores what Closest does not count as a difference.
var folder = strings.NewReplacer("_", "", "-", "", " ", "")

// distance is the edit distance Closest compares with. A variable so that
// the tests which bound the work an error costs can count the runs.
var distance = Levenshtein

// Closest returns the candidate nearest to s, ignoring case, underscores and
// hyphens, when it is near enough to be a plausible slip; failing that, a
// candidate that contains s (criteria -> search_criteria). Only candidates
// whose length is within the threshold of s's are compared: the length
// difference alone puts the others beyond it.
func Closest(s string, candidates []string) (string, bool) {
	if utf8.RuneCountInString(s) > maxSuggest {
		return "", false
	}
	fold := func(x string) string { return folder.Replace(strings.ToLower(x)) }
	fs := fold(s)
	n := utf8.RuneCountInString(fs)
	limit := max(1, n/3)
	best, bestD := "", math.MaxInt
	for _, c := range candidates {
		fc := fold(c)
		if d := utf8.RuneCountInString(fc) - n; d > limit || -d > limit {
			continue
		}
		if d := distance(fs, fc); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= limit {
		return best, true
	}
	if len(fs) > 3 {
		for _, c := range candidates {
			if strings.Contains(fold(c), fs) {
				return c, true
			}
		}
	}
	return "", false
}

// Levenshtein is the edit distance between a and b, in runes.
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func JSONText(v any) string {
	b, err := nsip.PlainJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
