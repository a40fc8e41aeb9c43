package nsip

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A breeder names a trait as he says it ("weaning weight", "parasite
// resistance") as often as by its code. ReadTrait reads such a word as the
// one trait it means; a word that means several traits at once is read as
// none, with each of them, since picking one would answer a question not
// asked.

// ReadTrait reads s as a trait: a code of the glossary in any case, or a
// word or phrase naming one trait. code is "" when s is neither; then
// candidates, when more than one, are the traits s could mean.
func ReadTrait(s string) (code string, candidates []string) {
	s = strings.TrimSpace(s)
	if t, ok := LookupTrait(s); ok {
		return t.Code, nil
	}
	// A glossary name said whole is that trait, before any synonym:
	// "number weaned" is NWT's own name, though a breeder saying it of
	// lambs more often means NLW.
	groups := namedBy(s, true)
	meant, whole := TraitGroupsMeant(s)
	if len(groups) == 0 && whole {
		groups = meant
	}
	// Then a trait whose name holds every word ("yearling depth" is two),
	// before a reading that leaves words unread.
	if len(groups) == 0 {
		groups = namedBy(s, false)
	}
	if len(groups) == 0 {
		groups = meant
	}
	switch len(groups) {
	case 0:
		return "", nil
	case 1:
		// A group's codes are one trait under the names breeds give it
		// (PWWT or PWT), the likeliest first.
		return groups[0][0], nil
	}
	for _, g := range groups {
		candidates = append(candidates, g[0])
	}
	return "", candidates
}

// namedBy are the traits whose glossary name is s (whole) or holds every
// word of s ("greasy" is YGFW's; "depth" both fat's and muscle's), codes
// under one name counted as one trait.
func namedBy(s string, whole bool) [][]string {
	words := nameWords(s)
	if len(words) == 0 {
		return nil
	}
	var groups [][]string
	names := map[string]int{}
	for _, t := range glossary {
		name := nameWords(t.Name)
		if whole && !slices.Equal(name, words) || !whole && !containsAll(name, words) {
			continue
		}
		if i, seen := names[t.Name]; seen {
			groups[i] = append(groups[i], t.Code)
			continue
		}
		names[t.Name] = len(groups)
		groups = append(groups, []string{t.Code})
	}
	return groups
}

// nameWords are the words of a trait's name, lower case, without
// punctuation: "Post-weaning weight" is post, weaning, weight.
func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// TraitMeaning is a code as an answer explains it: "WWT (weaning weight),
// higher is better".
func TraitMeaning(code string) string {
	name, dir, ok := TraitSense(code)
	if !ok {
		return code
	}
	return fmt.Sprintf("%s (%s), %s", code, name, dir)
}

// TraitSense is what a glossary code measures, in lower case, and which
// way is better, in words.
func TraitSense(code string) (name, dir string, ok bool) {
	t, ok := LookupTrait(code)
	if !ok {
		return "", "", false
	}
	name, _, _ = strings.Cut(t.Name, " (direct)") // says nothing a breeder asked about
	name = strings.ToLower(name[:1]) + name[1:]
	if t.Direction == "" {
		return name, "direction not documented", true
	}
	return name, t.Direction + " is better", true
}
