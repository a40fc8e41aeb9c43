package session

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// lpnPattern is the rule quotedLPNs implements, as a regular expression.
var lpnPattern = regexp.MustCompile(`"([0-9]{6,}[A-Za-z][A-Za-z0-9]{0,24})"`)

func lpnsByPattern(text string) []string {
	var ids []string
	for _, m := range lpnPattern.FindAllStringSubmatch(text, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestQuotedLPNsMatchesThePattern(t *testing.T) {
	cases := []string{
		`{"lpnId":"6402382024NCS310","sire":"6400462020VPI007","dam":""}`,
		`["6402382024NCS310","6402382024NCS311"]`,
		`"123456A""123456B"`,
		`"12345A"`,  // five digits
		`"1234567"`, // no letter
		`"123456A` + strings.Repeat("B", 24) + `"`, // 24 after the letter
		`"123456A` + strings.Repeat("B", 25) + `"`, // 25: too long
		`"123456A-1"`,
		`x"123456Ab"`, `"`, `""`, `"123456`, `"123456A`,
		`"abc","6402382024NCS310"`,
		`\"1234567AB\"`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := `"0123456789aZ-\ `
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		if got, want := quotedLPNs(c), lpnsByPattern(c); !slices.Equal(got, want) {
			t.Fatalf("%q: got %q, the pattern finds %q", c, got, want)
		}
	}
}

func FuzzQuotedLPNs(f *testing.F) {
	f.Add(`{"lpnId":"6402382024NCS310"}`)
	f.Add(`"123456A""123456B"`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := quotedLPNs(s), lpnsByPattern(s); !slices.Equal(got, want) {
			t.Fatalf("%q: got %q, the pattern finds %q", s, got, want)
		}
	})
}

func TestIsAlnumMatchesThePattern(t *testing.T) {
	for _, s := range []string{"", "6402382024NCS310", "abcXYZ09", "640-1", "é", " a", "a\n", "Z", "0"} {
		if got, want := isAlnum(s), param.AlnumPattern.MatchString(s); got != want {
			t.Errorf("isAlnum(%q) = %v, the pattern says %v", s, got, want)
		}
	}
}
