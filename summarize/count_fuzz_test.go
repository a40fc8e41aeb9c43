package summarize

import (
	"testing"
	"unicode/utf8"
)

// FuzzCountMatchesTiktoken checks that Count equals tiktoken-go's count for
// any string, and that on valid UTF-8 the pieces are the pattern's matches.
func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range edgeTexts {
		f.Add(s)
	}
	f.Add(`{"animals":[{"lpnId":"6400012020ABC001","traits":{"BWT":{"value":-0.12,"accuracy":71}}}],"total":1}`)
	f.Add("It's 12345 o'clock\r\n\r\n  \t\u00a0héllo   wörld!!\n\n🐑🐑 1½ ²³ 'LL'Ve\xff\xfe")
	c, err := NewCounter()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4<<10 {
			return // length adds time, not new paths
		}
		checkSameCount(t, c, "fuzz", s)
		if utf8.ValidString(s) && c.Count(s) > len(s) {
			t.Errorf("%d tokens in %d bytes", c.Count(s), len(s))
		}
	})
}
