package summarize

import "testing"

// BenchmarkCount times the hand-written pre-tokenizer with its piece memo
// ("pieces") against tiktoken-go over the whole text ("tiktoken") on the
// 100-row search page, compact as the summaries are counted.
func BenchmarkCount(b *testing.B) {
	_, c := newTestSummarizer(b)
	page := compactOf(b, benchRequests(b)[0].Raw)
	e := c.encoder()
	tokens := len(e.EncodeOrdinary(page))
	if got := c.Count(page); got != tokens {
		b.Fatalf("Count = %d, tiktoken-go counts %d", got, tokens)
	}
	for _, bc := range []struct {
		name  string
		count func(string) int
	}{
		{"tiktoken", func(s string) int { return len(e.EncodeOrdinary(s)) }},
		{"pieces", c.Count},
		// Every piece encoded afresh, as for text never seen before.
		{"pieces-cold", func(s string) int {
			pieceCounts = newPieceMemo()
			return c.Count(s)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				bc.count(page)
			}
			b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
