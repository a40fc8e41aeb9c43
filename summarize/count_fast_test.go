package summarize

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// referenceCount is the count Count must equal: tiktoken-go over the whole
// text, with its regexp2 pre-tokenizer.
func referenceCount(t testing.TB, c *Counter, s string) int {
	t.Helper()
	e := c.encoder()
	if e == nil {
		t.Fatal("no cl100k_base table")
	}
	return len(e.EncodeOrdinary(s))
}

// cl100kPattern is the pre-tokenizer pattern of cl100k_base as tiktoken-go
// v0.1.8 compiles it; regexPieces runs it the way tiktoken-go does, so tests
// can compare piece boundaries, which decide counts.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var cl100kRegexp = regexp2.MustCompile(cl100kPattern, regexp2.None)

// regexPieces returns the end, in runes, of each match of the pattern.
func regexPieces(t testing.TB, s string) []int {
	t.Helper()
	var ends []int
	m, err := cl100kRegexp.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = cl100kRegexp.FindNextMatch(m) {
		ends = append(ends, m.Index+m.Length)
	}
	if err != nil {
		t.Fatalf("regexp2: %v", err)
	}
	return ends
}

// fastPieces returns the end, in runes, of each piece nextPiece cuts.
func fastPieces(s string) []int {
	var ends []int
	runes := 0
	for i := 0; i < len(s); {
		j := nextPiece(s, i)
		runes += utf8.RuneCountInString(s[i:j])
		ends = append(ends, runes)
		i = j
	}
	return ends
}

// checkSameCount compares Count with tiktoken-go, and the pieces nextPiece
// cuts with the matches of regexp2: two splits can give
// equal counts on one text and not on another.
func checkSameCount(t testing.TB, c *Counter, what, s string) {
	t.Helper()
	if got, want := c.Count(s), referenceCount(t, c, s); got != want {
		t.Errorf("%s: Count = %d, tiktoken-go counts %d in %.200q", what, got, want, s)
	}
	// regexp2 matches []rune(s), in which bytes that are not UTF-8 are
	// U+FFFD, and so does Count.
	if got, want := fastPieces(string([]rune(s))), regexPieces(t, s); !slices.Equal(got, want) {
		t.Errorf("%s: pieces end at runes %v, the pattern's at %v, text %.200q", what, got, want, s)
	}
}

// edgeTexts are the corners of the cl100k_base pattern: contractions in any
// case, digit runs, newline and space runs before every kind of rune,
// Unicode letters, marks, numbers and spaces, and special-token text.
var edgeTexts = []string{
	"", "a", " ", "  ", "\n", "\r\n", "'", "''", "'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'Re",
	"'ve", "'VE", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D", "'r", "'v", "'l", "'x", "'se", "'ree",
	"don't", "DON'T", "we're", "We'Ve", "i'm", "she'll", "he'd", "it's'", "'ſ", "'K", "'İ", "'\u212a",
	"rock'n'roll", "''s", " 's", "x'sy", "'ll'll", "'l\u0307", "'le",
	"1", "12", "123", "1234", "12345", "123456", "1234567", "-1.25e+07", "0.227", "١٢٣٤", "²³⁴⁵", "Ⅻ1",
	"a1", "1a", "a 1", " 1", "  1", "x  1", "$1", " $1",
	"\r", "\n\n", "\r\r\n\n", " \n", "\n ", " \n ", "\t\n\t", "a\n", "a \n b", "a\n\nb", "}\n\n  ", "\r\na",
	"a ", "a  ", "a   ", "a \t ", "a  b", "a   b", "a\tb", "a \tb", "a\t\tb", "  a", "   !", "a  !", " !!", "  !!\n\n",
	"!", "!!", "!a", "!!a", " !a", "  !a", "\t!a", "\ta", "\u00a0a", "\u00a0\u00a0a", "\u3000漢", "\u2028a", "\u0085a",
	"\u00a0", "\u2003 \u2003", "x\u00a0", "x \u00a0", "\u200ba", "\ufeffa", "\u200d",
	"é", "e\u0301", " e\u0301", "e\u0301\u0301x", "\u0301", " \u0301", "a\u0301b", "ß", "ﬁ", "Ǆ", "ǅ",
	"牧場さくら", " 牧場", "Овечья ферма", "Ferme Étoilée", "Schäferei Müller", "Ñandú", "Ōtautahi", "ๆ", "한국어",
	"🐑", "🐑🐑", " 🐑", "a🐑b", "🐑\n", "👩\u200d👩\u200d👧", "🇳🇿", "🐑a", "\U0001d400\U0001d401", "\U00010000",
	"<|endoftext|>", "<|endoftext|><|fim_prefix|>", " <|endoftext|>", "<|endofprompt|>",
	`{"lpnId":"6401492021KVL003","traits":{"BWT":{"value":0.227,"accuracy":71}}}`,
	"{\n  \"a\": [1, 2, 3],\n  \"b\": \"x y\"\n}\n", "  \"key\" : null ,\r\n\t\"k2\": true}",
	"\x00", "\x00a", "a\x00", "\x7f", "\u0000\u0001 \u001f",
	// Not UTF-8: tiktoken-go reads each bad byte as U+FFFD.
	"\xff", "\xff\xfe", "a\xffb", "'\xff", "\xc3", "\xc3(", "\xe2\x82", "\xed\xa0\x80", " \xff\n", "1\xff2", "\xef\xbf\xbd\xff",
}

func TestCountMatchesTiktokenOnEdgeCases(t *testing.T) {
	t.Parallel()
	_, c := newTestSummarizer(t)
	for _, s := range edgeTexts {
		checkSameCount(t, c, "alone", s)
		// Each corner also inside text, after and before every kind of
		// rune, since pieces depend on their neighbours.
		for _, ctx := range []string{"a", "1", " ", "  ", "!", "\n", "'", "é", "\u00a0", "🐑"} {
			checkSameCount(t, c, "after "+ctx, ctx+s)
			checkSameCount(t, c, "before "+ctx, s+ctx)
		}
	}
}

// TestCountMatchesTiktokenOnRunes puts code points in the contexts where
// their class decides a piece boundary: after a letter, a digit, a space,
// an apostrophe, punctuation and a newline. It takes every rune below
// U+3400, where scripts, marks, number forms and Unicode spaces crowd, the
// full-width block, and a spread of the rest. Runes go in blocks, so a class
// error anywhere changes some count.
func TestCountMatchesTiktokenOnRunes(t *testing.T) {
	t.Parallel()
	_, c := newTestSummarizer(t)
	sparse := rune(61)
	if testing.Short() {
		sparse = 997
	}
	var runes []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		dense := r < 0x3400 || (r >= 0xff00 && r <= 0xffff)
		if (dense || r%sparse == 0) && !(r >= 0xd800 && r <= 0xdfff) {
			runes = append(runes, r)
		}
	}
	const block = 256
	for len(runes) > 0 {
		n := min(block, len(runes))
		var b strings.Builder
		for _, r := range runes[:n] {
			rs := string(r)
			b.WriteString("x" + rs + "1" + rs + " " + rs + "'" + rs + "!" + rs + "\n" + rs + rs + "a ")
		}
		checkSameCount(t, c, fmt.Sprintf("runes from %U", runes[0]), b.String())
		runes = runes[n:]
	}
}

// TestCountMatchesTiktokenOnStandInAnswers compares every answer the
// stand-in upstream gives, raw and compact, in both formats, and every
// summary made from them.
func TestCountMatchesTiktokenOnStandInAnswers(t *testing.T) {
	t.Parallel()
	s, c := newTestSummarizer(t)
	up := newStandIn(t, nsiptest.FormatCurrent)
	d := up.srv.Data()
	for _, fm := range formats {
		up.srv.SetFormat(fm.f)
		var reqs []Request
		for _, args := range []map[string]any{
			{"page": 0, "page_size": 100},
			{"page": 2, "page_size": 100, "sorted_trait": "WWT", "reverse": true},
			{"page": 0, "page_size": 10, "breed_id": 640},
		} {
			v := up.search(t, args)
			reqs = append(reqs, Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args})
		}
		for _, id := range append(sample(d.AnimalIDs(), 4), d.MostProgeny(), d.DeepPedigree(), d.Founder()) {
			args := map[string]any{"lpn_id": id, "page": 0, "page_size": 100}
			pg := up.progeny(t, args)
			reqs = append(reqs, Request{Kind: KindProgeny, Value: pg, Raw: pg.Raw, Args: args})
			det, err := up.c.AnimalDetails(up.ctx, id)
			if err != nil {
				t.Fatalf("details of %s: %v", id, err)
			}
			reqs = append(reqs, Request{Kind: KindAnimal, Value: det, Raw: det.Raw})
			lin, err := up.c.Lineage(up.ctx, id)
			if err != nil {
				t.Fatalf("lineage of %s: %v", id, err)
			}
			reqs = append(reqs, Request{Kind: KindLineage, Value: lin, Raw: lin.Raw})
			prof, err := up.c.ByLPN(up.ctx, id)
			if err != nil {
				t.Fatalf("profile of %s: %v", id, err)
			}
			reqs = append(reqs, Request{Kind: KindProfile, Value: prof, Raw: prof.Raw})
		}
		for i, req := range reqs {
			what := fmt.Sprintf("%s %s #%d", fm.name, req.Kind, i)
			checkSameCount(t, c, what+" raw", string(req.Raw))
			checkSameCount(t, c, what+" compact", compactOf(t, req.Raw))
			indented, err := json.MarshalIndent(json.RawMessage(req.Raw), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkSameCount(t, c, what+" indented", string(indented))
			checkSameCount(t, c, what+" summary", s.Fit(req).Text)
		}
	}
}

// TestCountMatchesTiktokenOnGeneratedAnswers covers what the stand-in does
// not write: several scripts, missing fields and huge strings.
func TestCountMatchesTiktokenOnGeneratedAnswers(t *testing.T) {
	t.Parallel()
	_, c := newTestSummarizer(t)
	for seed := range int64(12) {
		g := newGen(seed)
		g.unicode = seed%2 == 0
		g.sparse = seed%3 == 0
		g.old = seed%4 == 1
		if seed%5 == 4 {
			g.huge = 3000
		}
		texts := []string{
			string(g.searchRaw(g.search(60, 500, 0, 60))),
			string(g.detailsRaw(g.details())),
			string(g.progenyRaw(g.progeny(g.lpn(), 40, 80, 0, 40))),
		}
		for i, s := range texts {
			checkSameCount(t, c, fmt.Sprintf("seed %d text %d", seed, i), s)
		}
	}
}

func TestCountMatchesTiktokenOnRandomText(t *testing.T) {
	t.Parallel()
	_, c := newTestSummarizer(t)
	r := rand.New(rand.NewSource(7))
	for i := range 3000 {
		checkSameCount(t, c, fmt.Sprintf("text %d", i), randomText(r, r.Intn(200), i%4 == 0))
	}
}

// TestPieceMemoStaysBounded feeds many more distinct pieces than the memo
// has slots, and long ones, and checks what it keeps while counts stay right.
func TestPieceMemoStaysBounded(t *testing.T) {
	_, c := newTestSummarizer(t)
	var b strings.Builder
	for i := range 3 * memoSlots {
		// A distinct word per i: its digits in base 26, as letters.
		b.WriteString(" w")
		for n := i; n > 0; n /= 26 {
			b.WriteByte(byte('a' + n%26))
		}
		if b.Len() > 1<<16 {
			checkSameCount(t, c, "distinct words", b.String())
			b.Reset()
		}
	}
	checkSameCount(t, c, "long piece", strings.Repeat("z", 5*memoMaxPieceLen))
	kept := pieceCounts.entries()
	if len(kept) > memoSlots {
		t.Errorf("memo holds %d pieces, it has %d slots", len(kept), memoSlots)
	}
	if len(kept) < memoSlots/2 {
		t.Errorf("memo holds %d pieces after %d distinct ones; it should keep most of its %d slots", len(kept), 3*memoSlots, memoSlots)
	}
	for _, k := range kept {
		if len(k) > memoMaxPieceLen {
			t.Errorf("memo keeps a %d-byte piece, bound is %d", len(k), memoMaxPieceLen)
		}
	}
}

// TestCountConcurrent counts from many goroutines at once, under -race,
// while the memo fills and empties.
func TestCountConcurrent(t *testing.T) {
	t.Parallel()
	_, c := newTestSummarizer(t)
	texts := make([]string, 64)
	want := make([]int, len(texts))
	r := rand.New(rand.NewSource(11))
	for i := range texts {
		texts[i] = randomText(r, 2000, false) + fmt.Sprint(i, " unique", i*7919)
		want[i] = referenceCount(t, c, texts[i])
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(texts)*4)
	for g := range 8 {
		wg.Go(func() {
			for k := range 4 * len(texts) {
				i := (k + g*13) % len(texts)
				if got := c.Count(texts[i]); got != want[i] {
					errs <- fmt.Sprintf("text %d: Count = %d, want %d", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
