package summarize

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// benchRequests fetches the large answers of the stand-in once: a 100-row
// search page, a 100-row progeny page, the deepest lineage and a profile.
func benchRequests(b *testing.B) []Request {
	b.Helper()
	up := newStandIn(b, nsiptest.FormatCurrent)
	d := up.srv.Data()
	search := up.search(b, map[string]any{"page": 0, "page_size": 100})
	progeny := up.progeny(b, map[string]any{"lpn_id": d.MostProgeny(), "page": 0, "page_size": 100})
	lineage, err := up.c.Lineage(up.ctx, d.DeepPedigree())
	if err != nil {
		b.Fatal(err)
	}
	profile, err := up.c.ByLPN(up.ctx, d.MostProgeny())
	if err != nil {
		b.Fatalf("fetching from the stand-in: %v", err)
	}
	return []Request{
		{Kind: KindSearch, Value: search, Raw: search.Raw, Args: map[string]any{"page": 0, "page_size": 100}},
		{Kind: KindProgeny, Value: progeny, Raw: progeny.Raw},
		{Kind: KindLineage, Value: lineage, Raw: lineage.Raw},
		{Kind: KindProfile, Value: profile, Raw: profile.Raw},
	}
}

func BenchmarkCount100RowPage(b *testing.B) {
	_, c := newTestSummarizer(b)
	page := compactOf(b, benchRequests(b)[0].Raw)
	tokens := c.Count(page)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		c.Count(page)
	}
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(float64(tokens), "tokens/op")
}

// BenchmarkFit times the whole policy on each large kind: counting the
// original, choosing the summary and counting it.
func BenchmarkFit(b *testing.B) {
	s, c := newTestSummarizer(b)
	for _, req := range benchRequests(b) {
		b.Run(string(req.Kind), func(b *testing.B) {
			r := s.Fit(req)
			before := c.calls.Load()
			for b.Loop() {
				s.Fit(req)
			}
			b.ReportMetric(float64(c.calls.Load()-before)/float64(b.N), "encodings/op")
			b.ReportMetric(float64(r.OriginalTokens), "tokens-in")
			b.ReportMetric(float64(r.Tokens), "tokens-out")
		})
	}
}

// BenchmarkFitKnownOriginal is Fit when the caller has the original's count
// already (the gateway keeps it with the cached answer).
func BenchmarkFitKnownOriginal(b *testing.B) {
	s, c := newTestSummarizer(b)
	for _, req := range benchRequests(b) {
		req.OriginalTokens = c.Count(compactOf(b, req.Raw))
		b.Run(string(req.Kind), func(b *testing.B) {
			before := c.calls.Load()
			for b.Loop() {
				s.Fit(req)
			}
			b.ReportMetric(float64(c.calls.Load()-before)/float64(b.N), "encodings/op")
		})
	}
}
