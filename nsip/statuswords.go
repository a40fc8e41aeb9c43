package nsip

import (
	"fmt"
	"slices"
	"strings"
)

// Breeders ask for "living" or "usable" animals, not for NSIP's status
// codes; NSIP answers a status it does not record with an empty search,
// which reads as "no such animals". The words below have one clear
// meaning among NSIP's statuses (CURRENT, SOLD, DEAD, COMMERCIAL, CULL,
// EXPORTED, by getStatusesByBreedGroup), so they are read as it. NSIP
// takes one status a search: a word meaning several is sent as no status
// at all, and the rows are held to its meaning by whoever reads them.

// StatusMeaning is what a word for animals' statuses means: one status
// NSIP records, or every status but some.
type StatusMeaning struct {
	Word   string   // the word, lower case: "living"
	Code   string   // the one status it means; "" when AllBut
	AllBut []string // the statuses it leaves out, when it means every other
}

// gone are the statuses of animals no longer alive or kept.
var gone = []string{"DEAD", "CULL"}

// statusWords are the words read, each with its meaning.
var statusWords = []StatusMeaning{
	{Word: "living", AllBut: gone},
	{Word: "alive", AllBut: gone},
	{Word: "usable", Code: "CURRENT"},
	{Word: "available", Code: "CURRENT"},
	{Word: "current", Code: "CURRENT"},
	{Word: "active", Code: "CURRENT"},
	{Word: "dead", Code: "DEAD"},
	{Word: "culled", Code: "CULL"},
	{Word: "cull", Code: "CULL"},
	{Word: "sold", Code: "SOLD"},
	{Word: "exported", Code: "EXPORTED"},
	{Word: "commercial", Code: "COMMERCIAL"},
	{Word: "any", AllBut: []string{}},
}

// StatusWords are the words StatusWord reads, in the table's order.
func StatusWords() []string {
	out := make([]string, len(statusWords))
	for i, m := range statusWords {
		out[i] = m.Word
	}
	return out
}

// StatusWord is the meaning of s, in any case; false when s is no word of
// the table (a status code, say, or a mistake).
func StatusWord(s string) (StatusMeaning, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, m := range statusWords {
		if m.Word == s {
			return m, true
		}
	}
	return StatusMeaning{}, false
}

// StatusSent is what NSIP is sent for search_criteria.status s: the code
// a word of one status means, "" for a word of several (NSIP takes one),
// and s itself for anything else, which the caller checked is a status.
func StatusSent(s string) string {
	if m, ok := StatusWord(s); ok {
		return m.Code
	}
	return s
}

// Several reports whether m means more than one status, which NSIP cannot
// be asked for, so that the rows must be held to it after they are read.
func (m StatusMeaning) Several() bool { return m.Code == "" }

// Holds reports whether an animal of status (as a row carries it) is one
// m means. A row that carries no status is not shown to be one.
func (m StatusMeaning) Holds(status string) bool {
	status = strings.ToUpper(strings.TrimSpace(status))
	if m.Code == "" && len(m.AllBut) == 0 {
		return true // every status, or none stated
	}
	if status == "" {
		return false
	}
	if m.Code != "" {
		return status == m.Code
	}
	return !slices.Contains(m.AllBut, status)
}

// Reading is what m stands for, as an answer says it: "CURRENT", or
// "every status but DEAD and CULL".
func (m StatusMeaning) Reading() string {
	if m.Code != "" {
		return m.Code
	}
	if len(m.AllBut) == 0 {
		return "every status"
	}
	return "every status but " + strings.Join(m.AllBut, " and ")
}

// Note says how a status word was read, for the answer: `status "living"
// read as every status but DEAD and CULL`.
func (m StatusMeaning) Note() string {
	return fmt.Sprintf("status %q read as %s", m.Word, m.Reading())
}

// StatusNote is how status s was read when it is a word that is not the
// status it means ("usable", "living"); "" for anything else.
func StatusNote(s string) string {
	if m, ok := StatusWord(s); ok && m.Word != strings.ToLower(m.Code) {
		return m.Note()
	}
	return ""
}

// StatusWordsTable is the table as an error's expected value lists it:
// `living/alive (every status but DEAD and CULL), usable/... (CURRENT), ...`.
func StatusWordsTable() string {
	var parts []string
	for i := 0; i < len(statusWords); {
		j, words := i, []string{}
		for ; j < len(statusWords) && statusWords[j].Reading() == statusWords[i].Reading(); j++ {
			words = append(words, statusWords[j].Word)
		}
		parts = append(parts, strings.Join(words, "/")+" ("+statusWords[i].Reading()+")")
		i = j
	}
	return strings.Join(parts, ", ")
}
