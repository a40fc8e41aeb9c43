package nsip

import (
	"slices"
	"testing"
)

// TestTraitsMeant: every trait of the glossary is found by its name, and
// the words breeders use find the trait they mean, whatever spelling
// distance says.
func TestTraitsMeant(t *testing.T) {
	for _, info := range Glossary() {
		if got := TraitsMeant(info.Name); !slices.Contains(got, info.Code) {
			t.Errorf("%q (%s) means %v", info.Name, info.Code, got)
		}
	}
	for words, want := range map[string]string{
		"weaning": "WWT", "WEANING": "WWT", "Weaning Weight EBV": "WWT", "birth": "BWT", "birth-weight": "BWT",
		"worm": "FEC", "worms": "FEC", "parasite": "FEC", "parasite resistance": "FEC", "weaning worms": "WFEC",
		"post weaning weight": "PWWT", "post-weaning": "PWWT", "milk": "MWWT", "maternal weaning weight": "MWWT",
		"yearling": "YWT", "fat": "FAT", "eye muscle": "EMD", "loin": "EMD", "lambs born": "NLB", "litter size": "NLB",
		"lambs weaned": "NLW", "dags": "DAG", "fleece weight": "YGFW", "micron": "YFD", "staple length": "YSL",
		"the ram's weaning weight": "WWT",
	} {
		if got := TraitsMeant(words); len(got) == 0 || got[0] != want {
			t.Errorf("%q means %v, want %s first", words, got, want)
		}
	}
	for _, none := range []string{"", "WWT", "xyzzy", "US Hair Index"} {
		if got := TraitsMeant(none); got != nil {
			t.Errorf("%q means %v, want nothing", none, got)
		}
	}
	// A breed without the first code meant takes the next it has.
	if c, ok := TraitMeant("worms", []string{"BWT", "WFEC", "PFEC"}); !ok || c != "WFEC" {
		t.Errorf("worms among a breed's WFEC and PFEC: %q %v", c, ok)
	}
}
