package summarize

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// manyRecords is a JSON list of n small records, far over any budget.
func manyRecords(n int) []byte {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"LpnId":"6400%012d","Name":"ewe number %d","BWT":%.3f,"Status":"CURRENT"}`, i, i, float64(i%997)/1000)
	}
	sb.WriteByte(']')
	return []byte(sb.String())
}

// TestSummariesKeepAMargin: a summary lands at least SummaryMargin tokens
// under the budget, for the budgets clients use; a pass-through may still
// use the whole budget.
func TestSummariesKeepAMargin(t *testing.T) {
	s, c := newTestSummarizer(t)
	raw := manyRecords(400)
	for _, budget := range []int{300, 1000, 2000, 5000} {
		res := s.Fit(Request{Kind: KindGeneric, Raw: raw, Budget: budget})
		if !res.Summarized || res.Tokens != c.Count(res.Text) {
			t.Fatalf("budget %d: summarized=%v, tokens %d for a text of %d", budget, res.Summarized, res.Tokens, c.Count(res.Text))
		}
		if res.Tokens > budget-SummaryMargin {
			t.Errorf("budget %d: summary of %d tokens, want at most %d", budget, res.Tokens, budget-SummaryMargin)
		}
	}
	small := []byte(`{"a":"` + strings.Repeat("word ", 1990) + `"}`)
	n := c.Count(string(small))
	if res := s.Fit(Request{Kind: KindGeneric, Raw: small, Budget: n}); res.Summarized || res.Tokens != n {
		t.Errorf("an answer of exactly the budget (%d) was summarized to %d tokens", n, res.Tokens)
	}
}

// TestFitStopsAtItsDeadline: a fit whose deadline has passed counts nothing
// more: the original is taken at its byte length (an upper bound), and the
// summary is whatever fits by its byte length alone.
func TestFitStopsAtItsDeadline(t *testing.T) {
	t.Parallel()
	s, c := newTestSummarizer(t)
	// About 160 KB: tens of thousands of pieces, many times deadlineEvery,
	// so a clock looked at only now and then would still be caught
	// counting; a larger answer adds only time under the race detector.
	raw := manyRecords(2000)
	res := s.Fit(Request{Kind: KindGeneric, Raw: raw, Budget: 2000, Deadline: time.Now().Add(-time.Second)})
	if res.OriginalTokens != len(raw) {
		t.Errorf("original counted %d tokens past the deadline, want the byte bound %d", res.OriginalTokens, len(raw))
	}
	// What still fits is what is short enough in bytes to need no count.
	if !res.Summarized || !json.Valid([]byte(res.Text)) || len(res.Text) > 2000-SummaryMargin {
		t.Errorf("past the deadline the fit gave %d bytes, want valid JSON of at most %d: %.200s", len(res.Text), 2000-SummaryMargin, res.Text)
	}
	// Without a deadline the same answer is counted exactly.
	if got, want := s.Fit(Request{Kind: KindGeneric, Raw: raw, Budget: 2000}).OriginalTokens, referenceCount(t, c, string(raw)); got != want {
		t.Errorf("without a deadline: %d tokens, tiktoken-go counts %d", got, want)
	}
}
