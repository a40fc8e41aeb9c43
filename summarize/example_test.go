package summarize_test

import (
	"context"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Fit an answer into a budget: a page of 100 offspring, some 3,100
// tokens as NSIP sends it (an LPN ID, a birth date and a sex a row),
// becomes a summary of at most 1,000 tokens showing the first 46 rows,
// with the call that returns the rows after them (the same page, skipping
// those).
func ExampleSummarizer_Fit() {
	srv := nsiptest.Start(nsiptest.Options{Seed: 1})
	defer srv.Close()
	c, err := nsip.NewClient(nsip.WithBaseURL(srv.URL()))
	if err != nil {
		panic(err)
	}
	sire := srv.Data().MostProgeny()
	page, err := c.Progeny(context.Background(), sire, 0, 100)
	if err != nil {
		panic(err)
	}
	counter, err := summarize.NewCounter()
	if err != nil {
		panic(err)
	}
	s := summarize.New(counter)
	args := map[string]any{"lpn_id": sire, "page": 0, "page_size": 100}
	res := s.Fit(summarize.Request{Kind: summarize.KindProgeny, Value: page, Raw: page.Raw,
		Tool: "nsip_get_progeny", Args: args, Budget: 1000})
	fmt.Println("summarized:", res.Summarized, "kind:", res.Kind)
	fmt.Println("original tokens:", res.OriginalTokens, "within the budget:", res.Tokens <= 1000)
	fmt.Println("offspring:", res.Paging.TotalCount, "next:", res.Paging.Next.Tool, res.Paging.Next.Arguments["skip"])

	// An answer within the budget is passed through, compacted.
	small := s.Fit(summarize.Request{Kind: summarize.KindGeneric, Raw: []byte(`{ "date": "09/23/2025" }`)})
	fmt.Println(small.Summarized, small.Text, small.Tokens)
	// Output:
	// summarized: true kind: progeny
	// original tokens: 3118 within the budget: true
	// offspring: 259 next: nsip_get_progeny 46
	// false {"date":"09/23/2025"} 10
}
