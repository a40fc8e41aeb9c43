package summarize

import (
	"maps"
	"sort"
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

// BenchmarkReduction fits a spread of the stand-in's answers of every kind
// and reports, per kind, how many were summarized and the median and worst
// size of the summary as a percentage of the original's tokens.
func BenchmarkReduction(b *testing.B) {
	s, _ := newTestSummarizer(b)
	up := newStandIn(b, nsiptest.FormatCurrent)
	d := up.srv.Data()
	var reqs []Request
	add := func(req Request, err error) {
		if err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	for _, size := range []int{15, 25, 50, 100} {
		for _, args := range []map[string]any{
			{"page": 0}, {"page": 3}, {"page": 1, "breed_id": 640},
			{"page": 2, "sorted_trait": "WWT", "reverse": true},
		} {
			args = maps.Clone(args)
			args["page_size"] = size
			v := up.search(b, args)
			add(Request{Kind: KindSearch, Value: v, Raw: v.Raw, Args: args}, nil)
		}
	}
	var parents []string // every 8th animal with ten or more offspring
	for i, id := range d.AnimalIDs() {
		if n := len(d.Progeny(id)); n >= 10 && i%8 == 0 {
			parents = append(parents, id)
		}
	}
	ids := sample(d.AnimalIDs(), 100)
	for _, id := range sample(parents, 12) {
		for _, size := range []int{10, 25, 50, 100} {
			args := map[string]any{"lpn_id": id, "page": 0, "page_size": size}
			v := up.progeny(b, args)
			add(Request{Kind: KindProgeny, Value: v, Raw: v.Raw, Args: args}, nil)
		}
	}
	for _, id := range ids {
		add(fetched(KindAnimal, up.c.AnimalDetails)(up.ctx, id))
		add(fetched(KindLineage, up.c.Lineage)(up.ctx, id))
	}
	for _, id := range ids[:50] {
		add(fetched(KindProfile, up.c.ByLPN)(up.ctx, id))
	}
	kinds := []Kind{KindAnimal, KindSearch, KindProgeny, KindLineage, KindProfile}
	for _, k := range kinds {
		b.Run(string(k), func(b *testing.B) {
			var ratios []float64
			answers := 0
			for _, req := range reqs {
				if req.Kind != k {
					continue
				}
				answers++
				if r := s.Fit(req); r.Summarized {
					ratios = append(ratios, 100*float64(r.Tokens)/float64(r.OriginalTokens))
				}
			}
			sort.Float64s(ratios)
			for b.Loop() {
				for _, req := range reqs {
					if req.Kind == k {
						s.Fit(req)
					}
				}
			}
			b.ReportMetric(float64(answers), "answers")
			b.ReportMetric(float64(len(ratios)), "summarized")
			if len(ratios) > 0 {
				b.ReportMetric(ratios[len(ratios)/2], "median-%")
				b.ReportMetric(ratios[len(ratios)-1], "worst-%")
			}
		})
	}
}
