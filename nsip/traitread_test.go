package nsip

import (
	"reflect"
	"strings"
	"testing"
)

// Every trait of the glossary is read from its code in any case and from
// its name in any case; a name two codes share (PWWT and PWT) reads as
// one of them.
func TestReadTraitEveryGlossaryTrait(t *testing.T) {
	for _, tr := range Glossary() {
		for _, s := range []string{tr.Code, strings.ToLower(tr.Code), " " + tr.Code + " "} {
			if got, c := ReadTrait(s); got != tr.Code {
				t.Errorf("ReadTrait(%q) = %q %v; want %s", s, got, c, tr.Code)
			}
		}
		for _, s := range []string{tr.Name, strings.ToUpper(tr.Name), strings.ToLower(tr.Name)} {
			got, c := ReadTrait(s)
			info, ok := LookupTrait(got)
			if !ok || info.Name != tr.Name {
				t.Errorf("ReadTrait(%q) = %q %v; want a code named %q (%s)", s, got, c, tr.Name, tr.Code)
			}
		}
	}
}

// The words breeders use for a trait read as its code, and each reading
// says what the code measures and which way is better.
func TestReadTraitSynonyms(t *testing.T) {
	for s, want := range map[string]string{
		"weaning weight": "WWT", "Weaning Weight EBV": "WWT", "post weaning weight": "PWWT", "post-weaning weight": "PWWT",
		"fecal egg count": "FEC", "parasite resistance": "FEC", "worms": "FEC", "number of lambs born": "NLB",
		"birth weight": "BWT", "loin depth": "EMD", "eye muscle depth": "EMD", "milk": "MWWT", "backfat": "FAT",
		"yearling weight": "YWT", "lambs weaned": "NLW", "number weaned": "NWT", "fleece weight": "YGFW", "greasy": "YGFW",
		"micron": "YFD", "staple length": "YSL", "dags": "DAG", "yearling fat": "YFAT", "weaning fecal egg count": "WFEC",
	} {
		if got, c := ReadTrait(s); got != want {
			t.Errorf("ReadTrait(%q) = %q %v; want %s", s, got, c, want)
		}
	}
	for code, want := range map[string]string{
		"WWT": "WWT (weaning weight), higher is better",
		"FEC": "FEC (fecal egg count), lower is better",
		"NWT": "NWT (number weaned), direction not documented",
	} {
		if got := TraitMeaning(code); got != want {
			t.Errorf("TraitMeaning(%s) = %q; want %q", code, got, want)
		}
	}
}

// A word that names several traits at once is read as none of them: the
// refusal lists each candidate with its direction.
func TestReadTraitAmbiguous(t *testing.T) {
	for s, want := range map[string][]string{
		"weight":         {"BWT", "WWT", "MWWT", "PWWT", "YWT", "YGFW"},
		"depth":          {"FAT", "YFAT", "EMD", "YEMD"},
		"fat and muscle": {"FAT", "EMD"},
		"yearling depth": {"YFAT", "YEMD"},
	} {
		code, cands := ReadTrait(s)
		if code != "" || !reflect.DeepEqual(cands, want) {
			t.Errorf("ReadTrait(%q) = %q %v; want refused with %v", s, code, cands, want)
		}
	}
}
