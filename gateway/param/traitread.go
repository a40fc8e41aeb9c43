package param

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// A breeder names a trait as he says it ("weaning weight", "parasite
// resistance") as often as by its code. Wherever a trait code is taken,
// such a word is read as the one trait it means, and the answer says how
// it was read (Readings); a word that means several traits at once is
// refused with each of them, since picking one would answer a question
// not asked.

// ReadTrait reads s as a trait: a code of the glossary in any case, or a
// word or phrase naming one trait. code is "" when s is neither; then
// candidates, when more than one, are the traits s could mean.
func ReadTrait(s string) (code string, candidates []string) {
	s = strings.TrimSpace(s)
	if t, ok := nsip.LookupTrait(s); ok {
		return t.Code, nil
	}
	// A glossary name said whole is that trait, before any synonym:
	// "number weaned" is NWT's own name, though a breeder saying it of
	// lambs more often means NLW.
	groups := namedBy(s, true)
	meant, whole := nsip.TraitGroupsMeant(s)
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
	for _, t := range nsip.Glossary() {
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
	name, dir, ok := traitSense(code)
	if !ok {
		return code
	}
	return fmt.Sprintf("%s (%s), %s", code, name, dir)
}

// traitSense is what a glossary code measures, in lower case, and which
// way is better, in words.
func traitSense(code string) (name, dir string, ok bool) {
	t, ok := nsip.LookupTrait(code)
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

// Reading is the line an answer carries for a trait read from a word.
func Reading(sent, code string) string {
	return fmt.Sprintf("%s read as %s", QuoteShort(strings.TrimSpace(sent)), TraitMeaning(code))
}

// traitArg says what one trait argument takes: any well-formed code too
// (breeds publish codes beyond the glossary), or only the glossary's; and
// what its errors say it expects.
type traitArg struct {
	anyCode bool
	expect  string
	// key: the string is an object's key, which the field already names,
	// so a problem does not repeat it.
	key bool
}

// word validates one trait given as a string at field: a glossary code, a
// word for one, or a well-formed code when a.anyCode. The code it gives is
// upper case. When suggest is set, a string that is no trait is answered
// with the code it likely stands for, near, as well as in the problem.
func (a traitArg) word(field string, raw any, suggest bool) (code, near string, fe *FieldError) {
	expect := a.expect
	s, ok := raw.(string)
	if !ok {
		return "", "", &FieldError{Field: field, Problem: "must be a trait code string, got " + Describe(raw), Expected: expect}
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", &FieldError{Field: field, Problem: "must not be empty or blank", Expected: expect}
	}
	code, cands := ReadTrait(s)
	switch {
	case code != "":
		return code, "", nil
	case len(cands) > 1:
		each := make([]string, len(cands))
		for i, c := range cands {
			each[i] = TraitMeaning(c)
		}
		return "", "", &FieldError{Field: field,
			Problem:  fmt.Sprintf("%scould mean any of %d traits: %s", a.subject(s), len(cands), strings.Join(each, "; ")),
			Expected: "one of " + strings.Join(cands, ", ") + ", as its code or its name"}
	case a.anyCode && TraitCodePattern.MatchString(s):
		return strings.ToUpper(s), "", nil
	}
	problem := a.subject(s) + "is not a known trait code or name"
	if a.anyCode {
		problem = fmt.Sprintf("%sis not a trait code (1 to %d letters) nor a trait's name", a.subject(s), nsip.MaxTraitCodeLength)
	}
	fe = &FieldError{Field: field, Problem: problem, Expected: expect}
	if suggest {
		var d string
		near, d = DidYouMeanTrait(s, nsip.GlossaryCodes())
		fe.Problem += d
	}
	return "", near, fe
}

// subject is how a problem names s: quoted, unless the field names it.
func (a traitArg) subject(s string) string {
	if a.key {
		return ""
	}
	return QuoteShort(s) + " "
}

// Readings are the lines saying how each trait word of a call was read,
// from the arguments as sent and as validated: one for each string (a
// value, a list item or an object's key) that validation turned into a
// trait code other than its own spelling. A code sent as a code, in any
// case, is no reading. The lines come sorted, so that one call always
// reads the same.
func Readings(sent Sent, args Valid) []string {
	var out []string
	readingsIn(&out, sent.m, args.m)
	slices.Sort(out)
	return slices.Compact(out)
}

// readingsIn adds the readings of sent, validated as valid.
func readingsIn(out *[]string, sent, valid any) {
	switch s := sent.(type) {
	case string:
		if c, ok := valid.(string); ok {
			addReading(out, s, c, func(code string) bool { return code == c })
		}
	case []any:
		for _, e := range s {
			if str, ok := e.(string); ok {
				addReading(out, str, "", func(code string) bool { return holds(valid, code) })
			}
		}
	case map[string]any:
		for k, sv := range s {
			if vv, ok := member(valid, k); ok {
				readingsIn(out, sv, vv)
				continue
			}
			// A key read as a code: a weight or a range by trait name.
			addReading(out, k, "", func(code string) bool { _, ok := member(valid, code); return ok })
		}
	}
}

// addReading adds the reading of s when s was read as a trait code that
// kept says the validated arguments hold, and s is not that code's own
// spelling; same, when not "", is the value s became.
func addReading(out *[]string, s, same string, kept func(code string) bool) {
	t := strings.TrimSpace(s)
	if same != "" && strings.EqualFold(t, same) {
		return // the cheap case first: a code sent as itself
	}
	if code, _ := ReadTrait(t); code != "" && !strings.EqualFold(t, code) && kept(code) {
		*out = append(*out, Reading(s, code))
	}
}

// holds reports whether a validated list holds code.
func holds(list any, code string) bool {
	switch l := list.(type) {
	case []string:
		return slices.Contains(l, code)
	case []any:
		return slices.Contains(l, any(code))
	}
	return false
}

// member is the value at key of a validated object.
func member(obj any, key string) (any, bool) {
	switch o := obj.(type) {
	case map[string]any:
		v, ok := o[key]
		return v, ok
	case map[string]float64:
		v, ok := o[key]
		return v, ok
	}
	return nil, false
}
