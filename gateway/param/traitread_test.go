package param

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Every trait of the glossary is read from its code in any case and from
// its name in any case; a name two codes share (PWWT and PWT) reads as
// one of them.
func TestReadTraitEveryGlossaryTrait(t *testing.T) {
	for _, tr := range nsip.Glossary() {
		for _, s := range []string{tr.Code, strings.ToLower(tr.Code), " " + tr.Code + " "} {
			if got, c := ReadTrait(s); got != tr.Code {
				t.Errorf("ReadTrait(%q) = %q %v; want %s", s, got, c, tr.Code)
			}
		}
		for _, s := range []string{tr.Name, strings.ToUpper(tr.Name), strings.ToLower(tr.Name)} {
			got, c := ReadTrait(s)
			info, ok := nsip.LookupTrait(got)
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
		_, _, fe := traitArg{anyCode: true, expect: sortedExpect}.word("sorted_trait", s, true)
		if fe == nil {
			t.Fatalf("%q accepted", s)
		}
		for _, c := range want {
			if !strings.Contains(fe.Problem, TraitMeaning(c)) || !strings.Contains(fe.Expected, c) {
				t.Errorf("%q: %+v lacks %s with its direction", s, fe, c)
			}
		}
	}
}

// Each trait word of a call, wherever a trait is taken, is said once in
// the readings; codes sent as codes are not.
func TestReadings(t *testing.T) {
	sent := SentOf(map[string]any{
		"lpn_id":       ExampleLPN,
		"sorted_trait": "weaning weight",
		"traits":       []any{"birth weight", "nlb"},
		"weights":      map[string]any{"parasite resistance": -1.0, "WWT": 1.0},
		"search_criteria": map[string]any{"gender": "female",
			"trait_ranges": map[string]any{"loin depth": map[string]any{"min": 1.0}}},
	})
	args, errs := penArgs.Validate(sent)
	if errs != nil {
		t.Fatal(errs)
	}
	if v, _ := args.String("sorted_trait"); v != "WWT" {
		t.Errorf("sorted_trait = %q", v)
	}
	if w, _ := args.Value("weights"); !reflect.DeepEqual(w, map[string]float64{"FEC": -1, "WWT": 1}) {
		t.Errorf("weights = %v", w)
	}
	want := []string{
		`"birth weight" read as BWT (birth weight), lower is better`,
		`"loin depth" read as EMD (post-weaning eye muscle depth), higher is better`,
		`"parasite resistance" read as FEC (fecal egg count), lower is better`,
		`"weaning weight" read as WWT (weaning weight), higher is better`,
	}
	if got := Readings(sent, args); !reflect.DeepEqual(got, want) {
		t.Errorf("readings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	codes := SentOf(map[string]any{"lpn_id": ExampleLPN, "sorted_trait": "wwt", "traits": []any{"BWT"}})
	args, _ = penArgs.Validate(codes)
	if got := Readings(codes, args); got != nil {
		t.Errorf("codes read as %v", got)
	}
}
