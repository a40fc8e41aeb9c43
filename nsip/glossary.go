package nsip

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// TraitInfo says what one EBV code measures. Direction is "higher" or
// "lower" for the value breeders usually select for, and empty where NSIP
// publishes the code without a documented meaning; callers must not rank
// such a trait as better or worse.
type TraitInfo struct {
	Code      string `json:"code"`
	Name      string `json:"name"`
	Unit      string `json:"unit,omitempty"`
	Direction string `json:"direction"`
	Group     string `json:"group"`
	Note      string `json:"note,omitempty"`
}

// Better reports whether EBV a is preferable to b for this trait. It is
// false both ways when the direction is unknown.
func (t TraitInfo) Better(a, b float64) bool {
	switch t.Direction {
	case "higher":
		return a > b
	case "lower":
		return a < b
	}
	return false
}

//go:embed traits.json
var glossaryJSON []byte

var glossary = mustGlossary(glossaryJSON)

func mustGlossary(b []byte) []TraitInfo {
	var doc struct {
		Traits []TraitInfo `json:"traits"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		panic(fmt.Sprintf("nsip: traits.json: %v", err))
	}
	seen := map[string]bool{}
	for _, t := range doc.Traits {
		if t.Code != strings.ToUpper(t.Code) || seen[t.Code] || t.Name == "" {
			panic(fmt.Sprintf("nsip: traits.json: bad or repeated entry %q", t.Code))
		}
		if t.Direction != "higher" && t.Direction != "lower" && t.Direction != "" {
			panic(fmt.Sprintf("nsip: traits.json: %s: direction %q", t.Code, t.Direction))
		}
		seen[t.Code] = true
	}
	return doc.Traits
}

// Glossary returns every trait code the server knows a meaning for, in a
// stable order (growth, maternal, carcass, reproduction, health, wool). It
// describes codes; it is not the list of codes a breed has, which only the
// breed's trait ranges answer gives.
func Glossary() []TraitInfo { return slices.Clone(glossary) }

// LookupTrait finds a code, case-insensitively.
func LookupTrait(code string) (TraitInfo, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	for _, t := range glossary {
		if t.Code == code {
			return t, true
		}
	}
	return TraitInfo{}, false
}

// GlossaryCodes lists the glossary's codes in its order.
func GlossaryCodes() []string {
	out := make([]string, len(glossary))
	for i, t := range glossary {
		out[i] = t.Code
	}
	return out
}
