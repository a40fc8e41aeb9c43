package param

import "github.com/nsip-tools/nsip-mcp/nsip"

// Sent is c as NSIP is asked it: its status as nsip.StatusSent reads it
// (a word's one status, or none for a word of several), the status having
// been checked against NSIP's own (argcheck.CheckStatus).
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
