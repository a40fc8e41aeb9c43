package summarize

import (
	"fmt"
	"strings"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A search whose status is a word of several statuses ("living", every
// status but DEAD and CULL) was sent to NSIP with no status, as NSIP takes
// one a search (nsip.StatusSent). Its page then holds animals of every
// status: the summary leaves out the rows of the others, counting them by
// status, and is a summary even when NSIP's page would fit, so that no
// such row is shown as if it matched. Paging stays NSIP's, by its page and
// row numbers, so a page may show fewer rows than its size, or none, with
// more to follow. NSIP's count is of every status: how many animals the
// word holds is known only when the page holds NSIP's whole listing.

// StatusHeld counts the rows of a search page left out by such a word.
type StatusHeld struct {
	// Read says how the word was read: `status "living" read as every
	// status but DEAD and CULL`.
	Read     string         `json:"read"`
	LeftOut  int            `json:"left_out"`
	ByStatus map[string]int `json:"by_status,omitempty"`
	// TotalProven says whether total_count counts the animals the word
	// holds (the page held NSIP's whole listing); TotalCount says what
	// total_count is either way.
	TotalProven bool   `json:"total_proven"`
	TotalCount  string `json:"total_count"`
	// Count is how many animals the word holds, when TotalProven.
	Count *int `json:"count,omitempty"`
}

// heldWord is the status word of several statuses a search's arguments
// give, or nil.
func heldWord(args map[string]any) *nsip.StatusMeaning {
	if m, ok := nsip.StatusWord(criteriaStatus(args)); ok && m.Several() {
		return &m
	}
	return nil
}

// criteriaStatus is the status a search's arguments give, "" for none.
func criteriaStatus(args map[string]any) string {
	crit, _ := args["search_criteria"].(map[string]any)
	st, _ := crit["status"].(string)
	return st
}

// heldOut reports whether m leaves row out: it states a status m does not
// hold. A row stating none is not shown to be of another status.
func heldOut(m *nsip.StatusMeaning, row nsip.AnimalRow) bool {
	st := strings.TrimSpace(row.Status)
	return m != nil && st != "" && !m.Holds(st)
}

// statusHeld is the account of v's page, whose search gave args, held to
// their status word; nil when they give none of several statuses.
func statusHeld(v *nsip.SearchResults, args map[string]any) *StatusHeld {
	m := heldWord(args)
	if m == nil || v == nil {
		return nil
	}
	h := &StatusHeld{Read: m.Note() + ", which NSIP takes no one search for: NSIP was asked for every status and the rows of the others are left out here"}
	for _, r := range v.Results {
		if heldOut(m, r) {
			if h.ByStatus == nil {
				h.ByStatus = map[string]int{}
			}
			h.ByStatus[strings.ToUpper(strings.TrimSpace(r.Status))]++
			h.LeftOut++
		}
	}
	// The page holds NSIP's whole listing only when it is the first and
	// NSIP counts no more rows than it holds.
	if v.Page == 0 && len(v.Results) >= v.TotalCount {
		n := len(v.Results) - h.LeftOut
		h.TotalProven, h.Count = true, &n
		h.TotalCount = fmt.Sprintf("the %d animals of this page the word holds: the page holds all %d NSIP counts of every status", len(v.Results)-h.LeftOut, v.TotalCount)
		return h
	}
	h.TotalCount = fmt.Sprintf("null: NSIP counts %d animals of every status for the other criteria; how many the word holds is known only by reading every page "+
		"(pages are NSIP's, so one may show fewer rows than its size, or none, with more to follow)", v.TotalCount)
	return h
}

// heldTotal is total_count as an answer with h gives it: NSIP's count
// without h, else the animals h holds when proven, else null (nil).
func heldTotal(v *nsip.SearchResults, h *StatusHeld) *int {
	if h != nil {
		return h.Count
	}
	n := v.TotalCount
	return &n
}
