package nsip

import (
	"slices"
	"strings"
	"testing"
)

// Every code the API document names must have an entry, or weights and
// comparisons on it would be refused.
func TestGlossaryCoversDocumentedCodes(t *testing.T) {
	documented := []string{
		"BWT", "WWT", "PWWT", "YWT", "FAT", "EMD", "NLB", "NWT", "PWT", "DAG", "WGR", "WEC", "FEC",
		"MWWT", "NLW", "WFEC", "PFEC", "YEMD", "YFAT", "PEMD", "PFAT", "YGFW", "YFD", "YSL",
	}
	codes := GlossaryCodes()
	for _, c := range documented {
		if !slices.Contains(codes, c) {
			t.Errorf("glossary lacks %s", c)
		}
	}
	for _, c := range TraitCodes {
		if _, ok := LookupTrait(strings.ToLower(c)); !ok {
			t.Errorf("LookupTrait(%q) not found", strings.ToLower(c))
		}
	}
}

func TestGlossaryDirections(t *testing.T) {
	cases := []struct {
		code   string
		a, b   float64
		better bool
	}{
		{"WWT", 2, 1, true},      // heavier weaning weight
		{"BWT", -0.2, 0.3, true}, // lighter birth weight
		{"WFEC", 10, -5, false},  // more eggs is worse
		{"WGR", 5, 1, false},     // direction unknown: never better
		{"WGR", 1, 5, false},
	}
	for _, c := range cases {
		info, ok := LookupTrait(c.code)
		if !ok {
			t.Fatalf("%s missing", c.code)
		}
		if got := info.Better(c.a, c.b); got != c.better {
			t.Errorf("%s.Better(%v, %v) = %v, want %v", c.code, c.a, c.b, got, c.better)
		}
	}
	if _, ok := LookupTrait("XYZ"); ok {
		t.Error("an unknown code was found")
	}
}

func TestGlossaryRejectsBadData(t *testing.T) {
	for name, doc := range map[string]string{
		"repeat":    `{"traits":[{"code":"BWT","name":"a","direction":"lower"},{"code":"BWT","name":"b","direction":"lower"}]}`,
		"lowercase": `{"traits":[{"code":"bwt","name":"a","direction":"lower"}]}`,
		"direction": `{"traits":[{"code":"BWT","name":"a","direction":"down"}]}`,
		"syntax":    `{"traits":[`,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: accepted", name)
				}
			}()
			mustGlossary([]byte(doc))
		}()
	}
}
