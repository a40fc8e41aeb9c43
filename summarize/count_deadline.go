package summarize

import "time"

// SummaryMargin is how many tokens under the budget a summary stays. Counts
// match tiktoken-go exactly, but OpenAI's own tokenizer differs by a token
// on characters newer than Go's Unicode tables, so a summary fitted to the
// last token could land just over the budget a client measures.
const SummaryMargin = 8

// deadlineEvery is how many pieces are counted between looks at the clock:
// a look costs about as much as counting a few pieces from the memo, and
// 4096 pieces take well under a millisecond.
const deadlineEvery = 4096

func past(deadline time.Time) bool {
	return !deadline.IsZero() && !time.Now().Before(deadline)
}

// until returns a Counter that counts for c, and once deadline has passed
// stops encoding: the rest of a text counts as one token per byte, an upper
// bound, so a fit running out of time finds nothing more fits and ends at
// once with a short note. The caller, who knows the deadline passed, then
// discards the result.
func (c *Counter) until(deadline time.Time) *Counter {
	if deadline.IsZero() {
		return c
	}
	return &Counter{enc: c.enc, base: c, deadline: deadline}
}
