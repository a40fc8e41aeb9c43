package summarize

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/cache/recent"
)

// longPieceTexts are single long pre-tokens and texts made of them: runs of
// one character, repeated punctuation as in `{},{},…`, letters, spaces and
// newlines, each cut at lengths around and well past the memo's 64 bytes.
func longPieceTexts(rng *rand.Rand) []string {
	units := []string{"a", "{", "}", ",", " ", "\n", "=", "-", "é", "中", "{},", "],[", "!!?", "ab", "the", "xyz", "\":\"", "}}]", "  \n", "ﬀ"}
	alphabets := []string{"ab", "abcdefghij", "{}[],:\"", "!?.-_*", "éèêë", "中文字"}
	var out []string
	for _, n := range []int{65, 66, 100, 129, 257, 1000, 2500} {
		for _, u := range units {
			s := strings.Repeat(u, n/len(u)+1)
			out = append(out, s[:n], " "+s[:n], s[:n]+"\n")
		}
		for _, a := range alphabets {
			r := []rune(a)
			var sb strings.Builder
			for sb.Len() < n {
				sb.WriteRune(r[rng.Intn(len(r))])
			}
			out = append(out, sb.String())
		}
	}
	return out
}

// TestLongPieceCountsMatchTiktoken: the heap merge gives tiktoken-go's count
// exactly, on long pieces at sizes where tiktoken-go's own merge is still
// quick enough to compare with.
func TestLongPieceCountsMatchTiktoken(t *testing.T) {
	t.Parallel()
	_, c := newTestSummarizer(t)
	rng := rand.New(rand.NewSource(18))
	texts := longPieceTexts(rng)
	diffs := 0
	for _, s := range texts {
		if got, want := c.Count(s), referenceCount(t, c, s); got != want {
			diffs++
			if diffs <= 5 {
				t.Errorf("Count(%.40q… %d bytes) = %d, tiktoken-go counts %d", s, len(s), got, want)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d long-piece texts differ", diffs, len(texts))
	}
	t.Logf("%d long-piece texts agree", len(texts))
}

// TestLongPieceMergeIsLoglinear: merging a run of n bytes looks up O(n log n)
// ranks at most (tiktoken-go's scan looks up O(n²)), counted rather than
// timed; and the hostile inputs that held a core for minutes are counted
// within a hang guard far above their real cost.
func TestLongPieceMergeIsLoglinear(t *testing.T) {
	_, c := newTestSummarizer(t)
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	for _, unit := range []string{"a", "{},", " ", "=", "中"} {
		for _, n := range []int{1 << 12, 1 << 16, 1 << 19} {
			s := strings.Repeat(unit, n/len(unit))
			_, probes := mergeParts(ranks, s)
			if bound := int(4 * float64(len(s)) * math.Log2(float64(len(s)))); probes > bound {
				t.Errorf("%q×%d: %d rank look-ups, above 4·n·log2 n = %d", unit, n/len(unit), probes, bound)
			}
		}
	}

	hostile := []string{
		strings.Repeat("{},", 160<<10/3),               // a 160 KB run of punctuation
		strings.Repeat("a", 100<<10),                   // 100 KB of one letter
		`{"x":"` + strings.Repeat("a", 300<<10) + `"}`, // inside an answer
		strings.Repeat("{},", 5<<20/3),                 // past maxExactPiece: a bound
	}
	done := make(chan []int, 1)
	go func() {
		var counts []int
		for _, s := range hostile {
			counts = append(counts, c.Count(s))
		}
		done <- counts
	}()
	select {
	case counts := <-done:
		for i, s := range hostile {
			if counts[i] <= 0 || counts[i] > len(s) {
				t.Errorf("hostile text %d (%d bytes): count %d outside 1..%d", i, len(s), counts[i], len(s))
			}
		}
		if counts[3] != len(hostile[3]) {
			t.Errorf("a %d-byte piece counted %d; past maxExactPiece the count is the byte length", len(hostile[3]), counts[3])
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("counting the hostile texts did not finish within 2 minutes (tiktoken-go's merge takes 15–28 s for each of the first two)")
	}
}

// BenchmarkCountLongPiece times one long run of "{}," and of "a" by the
// heap merge ("heap") and, up to 16 KB, by tiktoken-go ("tiktoken").
func BenchmarkCountLongPiece(b *testing.B) {
	_, c := newTestSummarizer(b)
	e := c.encoder()
	for _, unit := range []string{"{},", "a"} {
		for _, n := range []int{1 << 10, 1 << 12, 1 << 14, 160 << 10, 1 << 20} {
			s := strings.Repeat(unit, n/len(unit))
			name := strings.NewReplacer("{},", "braces", "a", "letter").Replace(unit)
			b.Run(name+"/heap/"+byteSize(n), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					mergeParts(ranks, s)
				}
			})
			if n <= 1<<14 {
				b.Run(name+"/tiktoken/"+byteSize(n), func(b *testing.B) {
					b.SetBytes(int64(len(s)))
					for b.Loop() {
						e.EncodeOrdinary(s)
					}
				})
			}
		}
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + "MiB"
	}
	return strconv.Itoa(n>>10) + "KiB"
}

// A long piece repeated through a text, as a field padded on every row of
// a page is, is merged once and counted the same each time; two long
// pieces taking turns (two padded fields a row) are each merged once; the
// latest of many long pieces is kept; and a piece longer than
// longMemoMaxLen is merged every time it comes.
func TestRepeatedLongPiecesAreMergedOnce(t *testing.T) {
	_, c := newTestSummarizer(t)
	var page strings.Builder
	for i := range 3 {
		page.WriteString(`{"registrationNumber":"R` + strconv.Itoa(i) + strings.Repeat("x", 2000) + `"},`)
	}
	checkSameCount(t, c, "padded rows", page.String())

	p := newPieceMemo()
	pad := strings.Repeat("x", 10_000)
	want := countLong(pad)
	for range 100 {
		if got := p.count(nil, pad); got != want {
			t.Fatalf("a repeated long piece counted %d, merged alone %d", got, want)
		}
	}
	if n := p.merges.Load(); n != 1 {
		t.Errorf("a long piece seen 100 times was merged %d times, want once", n)
	}
	other := strings.Repeat("z", 9_000)
	before := p.merges.Load()
	for range 100 {
		p.count(nil, pad)
		p.count(nil, other)
	}
	if n := p.merges.Load() - before; n != 1 {
		t.Errorf("two long pieces taking turns 100 times were merged %d times, want once more for the second", n)
	}
	for i := range 4 * longSets * recent.Ways {
		piece := strings.Repeat(string(rune('a'+i%26)), memoMaxPieceLen+1+i)
		p.count(nil, piece)
		before := p.merges.Load()
		p.count(nil, piece)
		if p.merges.Load() != before {
			t.Fatalf("long piece %d was merged again right after it was kept", i)
		}
	}
	huge := strings.Repeat("y", longMemoMaxLen+1)
	before = p.merges.Load()
	p.count(nil, huge)
	p.count(nil, huge)
	if n := p.merges.Load() - before; n != 2 {
		t.Errorf("a piece beyond the slots' bound was merged %d times in 2 counts, want each time", n)
	}
}
