package nsiparg

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// TraitCodePattern is a well-formed trait code. Which codes exist is the
// breed's business (its getTraitRangesByBreed answer), not a list here:
// argcheck checks a code against the breed's.
var TraitCodePattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z]{1,%d}$`, nsip.MaxTraitCodeLength))

// TraitArg is what one trait argument takes: a glossary code, a breeder's
// word for one trait (nsip.ReadTrait), and with AnyCode any well-formed
// code (breeds publish codes beyond the glossary). Key says the string is
// an object's key, which the field already names.
type TraitArg struct {
	AnyCode, Key bool
	Expect       string
}

// Read validates one trait given at field, giving its code in upper case.
// When suggest is set, a string that is no trait is answered with the
// code it likely stands for, near, as well as in the problem.
func (a TraitArg) Read(field string, raw any, suggest bool) (code, near string, fe *param.FieldError) {
	expect := a.Expect
	s, ok := raw.(string)
	if !ok {
		return "", "", &param.FieldError{Field: field, Problem: "must be a trait code string, got " + param.Describe(raw), Expected: expect}
	}
	s = strings.TrimSpace(s)
	code, cands := nsip.ReadTrait(s)
	switch {
	case code != "":
		return code, "", nil
	case len(cands) > 1:
		each := make([]string, len(cands))
		for i, c := range cands {
			each[i] = nsip.TraitMeaning(c)
		}
		return "", "", &param.FieldError{Field: field,
			Problem:  fmt.Sprintf("%scould mean any of %d traits: %s", a.subject(s), len(cands), strings.Join(each, "; ")),
			Expected: "one of " + strings.Join(cands, ", ") + ", as its code or its name"}
	case a.AnyCode && TraitCodePattern.MatchString(s):
		return strings.ToUpper(s), "", nil
	}
	problem := a.subject(s) + "is not a known trait code or name"
	if a.AnyCode {
		problem = fmt.Sprintf("%sis not a trait code (1 to %d letters) nor a trait's name", a.subject(s), nsip.MaxTraitCodeLength)
	}
	fe = &param.FieldError{Field: field, Problem: problem, Expected: expect}
	if suggest {
		var d string
		near, d = DidYouMeanTrait(s, nsip.GlossaryCodes())
		fe.Problem += d
	}
	return "", near, fe
}

// subject is how a problem names s: quoted, unless the field names it.
func (a TraitArg) subject(s string) string {
	if a.Key {
		return ""
	}
	return param.QuoteShort(s) + " "
}

// SuggestTrait names the code among codes that s most likely stands for:
// by meaning first, as a breeder words it ("weaning" is WWT, "worms" FEC),
// then by spelling (WWTT is WWT). byMeaning says which, so that a message
// can say what the code measures.
func SuggestTrait(s string, codes []string) (code string, byMeaning, ok bool) {
	if c, ok := nsip.TraitMeant(s, codes); ok {
		return c, true, true
	}
	// A code of the glossary that codes lack: what its name means among
	// them (a breed without YWT is offered WWT, not BWT, one letter off).
	if info, known := nsip.LookupTrait(s); known {
		if c, ok := nsip.TraitMeant(info.Name, codes); ok {
			return c, true, true
		}
	}
	c, ok := param.Closest(strings.TrimSpace(s), codes)
	return c, false, ok
}

// DidYouMeanTrait is the did-you-mean a message about s adds, naming what
// the code measures when the suggestion came from the meaning of s; "" when
// codes hold nothing s plausibly stands for.
func DidYouMeanTrait(s string, codes []string) (string, string) {
	c, byMeaning, ok := SuggestTrait(s, codes)
	if !ok {
		return "", ""
	}
	if name, dir, known := nsip.TraitSense(c); known && byMeaning {
		return c, fmt.Sprintf("; did you mean %q (%s, %s)?", c, name, dir)
	}
	return c, fmt.Sprintf("; did you mean %q?", c)
}
