package param

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// search_criteria.status is read by meaning (nsip.StatusWord): a status
// NSIP records, in any case, is that status; a word of the table is what
// it means; anything else is refused before NSIP is asked, since NSIP
// answers a status it does not know with an empty search.

// StatusPaths are where a tool's arguments hold a search's status: the
// search tools' and rankings' search_criteria, and the flock summary's
// search.
var StatusPaths = []string{"search_criteria.status", "search.search_criteria.status"}

// CheckStatus checks status s, sent as field, against statuses, the ones
// NSIP records: nil when s is one of them in any case, or a word of the
// table whose statuses NSIP has. A status NSIP records is that status even
// when it is also a word, so that NSIP's own codes always mean themselves.
func CheckStatus(field, s string, statuses []string) *FieldError {
	if slices.ContainsFunc(statuses, func(c string) bool { return strings.EqualFold(c, strings.TrimSpace(s)) }) {
		return nil
	}
	if m, ok := nsip.StatusWord(s); ok && (m.Several() || slices.Contains(statuses, m.Code)) {
		return nil
	}
	problem := fmt.Sprintf("%s is not a status NSIP records", QuoteShort(s))
	if c, ok := Closest(strings.ToUpper(strings.TrimSpace(s)), statuses); ok {
		problem += fmt.Sprintf("; did you mean %q?", c)
	}
	return &FieldError{Field: field, Problem: problem,
		Expected: fmt.Sprintf("one of NSIP's statuses: %s; or a word: %s", strings.Join(statuses, ", "), nsip.StatusWordsTable())}
}

// Sent is c as NSIP is asked it: its status as nsip.StatusSent reads it
// (a word's one status, or none for a word of several).
func (c Criteria) Sent() nsip.SearchCriteria {
	out := nsip.SearchCriteria(c) // the same fields in the same order
	out.Status = nsip.StatusSent(c.Status)
	return out
}

// StatusMeant is the meaning of c's status when it is a word that NSIP
// cannot be asked for in one search, which the rows read must be held to;
// false for none, a status code or a word of one status (sent as it).
func (c *Criteria) StatusMeant() (nsip.StatusMeaning, bool) {
	if c == nil {
		return nsip.StatusMeaning{}, false
	}
	m, ok := nsip.StatusWord(c.Status)
	return m, ok && m.Several()
}
