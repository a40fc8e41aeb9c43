package argcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
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
func CheckStatus(field, s string, statuses []string) *param.FieldError {
	if slices.ContainsFunc(statuses, func(c string) bool { return strings.EqualFold(c, strings.TrimSpace(s)) }) {
		return nil
	}
	if m, ok := nsip.StatusWord(s); ok && (m.Several() || slices.Contains(statuses, m.Code)) {
		return nil
	}
	problem := fmt.Sprintf("%s is not a status NSIP records", param.QuoteShort(s))
	if c, ok := param.Closest(strings.ToUpper(strings.TrimSpace(s)), statuses); ok {
		problem += fmt.Sprintf("; did you mean %q?", c)
	}
	return &param.FieldError{Field: field, Problem: problem,
		Expected: fmt.Sprintf("one of NSIP's statuses: %s; or a word: %s", strings.Join(statuses, ", "), nsip.StatusWordsTable())}
}

// CheckStatuses checks every status args hold (StatusPaths) against
// NSIP's list, read by list only when a status is sent: the problems,
// and the edits that make the call's example correct. Nothing is refused
// when the list cannot be had: the status then goes to NSIP as read,
// which judges it.
func CheckStatuses(ctx context.Context, args param.Valid, list func(context.Context) ([]string, bool)) ([]param.FieldError, []param.Edit) {
	var errs []param.FieldError
	var fixes []param.Edit
	var statuses []string
	for _, path := range StatusPaths {
		s, ok := args.String(path)
		if !ok || s == "" {
			continue
		}
		if statuses == nil {
			if statuses, ok = list(ctx); !ok || len(statuses) == 0 {
				return nil, nil
			}
		}
		if fe := CheckStatus(path, s, statuses); fe != nil {
			errs = append(errs, *fe)
			fixes = append(fixes, param.Assign(path, "CURRENT"))
		}
	}
	return errs, fixes
}

// StatusNotes say how a call's status words were read, for _meta: a word
// that is not the status it means ("usable" is CURRENT, "living" every
// status but DEAD and CULL).
func StatusNotes(args param.Valid) []string {
	var notes []string
	for _, path := range StatusPaths {
		s, _ := args.String(path)
		if n := nsip.StatusNote(s); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// NamesStatus reports whether args name a status, which CheckStatuses
// checks against NSIP's list.
func NamesStatus(args param.Valid) bool {
	for _, path := range StatusPaths {
		if s, ok := args.String(path); ok && s != "" {
			return true
		}
	}
	return false
}
