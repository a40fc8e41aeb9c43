package nsip

import (
	"slices"
	"strings"
	"unicode"
)

// A breeder asks for a trait in words ("weaning", "worms", "birth
// weight"), which no spelling distance leads to its code: WEANING is
// nearer DAG than WWT by letters. traitWords maps those words to the codes
// they mean, most likely first; a breed that lacks the first takes the
// next it has. The glossary's names are words too (meantBy adds them).
var traitWords = []struct {
	words []string
	codes []string
}{
	{[]string{"birth", "birth weight", "birthweight", "born weight", "lambing ease", "lamb size"}, []string{"BWT"}},
	{[]string{"weaning", "wean", "weaned", "weaning weight", "weight at weaning", "weaning growth"}, []string{"WWT"}},
	{[]string{"milk", "milking", "milk production", "maternal", "mothering", "maternal weaning", "maternal milk"}, []string{"MWWT"}},
	{[]string{"post weaning", "postweaning", "post weaning weight", "after weaning", "post wean"}, []string{"PWWT", "PWT"}},
	{[]string{"yearling", "yearling weight", "year weight", "growth", "mature weight"}, []string{"YWT", "PWWT", "WWT", "PWT"}},
	{[]string{"fat", "fat depth", "backfat", "back fat", "lean", "leanness", "fatness"}, []string{"FAT", "PFAT", "YFAT"}},
	{[]string{"yearling fat"}, []string{"YFAT"}},
	{[]string{"muscle", "muscling", "eye muscle", "eye muscle depth", "muscle depth", "loin", "loin eye", "loin depth", "rib eye", "ribeye", "carcass", "meat"}, []string{"EMD", "PEMD", "YEMD"}},
	{[]string{"yearling muscle", "yearling eye muscle"}, []string{"YEMD"}},
	{[]string{"lambs born", "number born", "litter", "litter size", "prolificacy", "prolific", "fertility", "twins", "twinning", "born"}, []string{"NLB"}},
	{[]string{"lambs weaned", "number weaned", "weaned lambs", "lambs raised", "mothering ability"}, []string{"NLW", "NWT"}},
	{[]string{"dag", "dags", "dagginess", "daggy", "dirty", "clean", "cleanliness", "scours"}, []string{"DAG"}},
	{[]string{"worm", "worms", "wormy", "parasite", "parasites", "parasite resistance", "resistance", "egg count", "eggs",
		"worm egg count", "fecal", "faecal", "fecal egg", "faecal egg count", "barber pole", "haemonchus", "haemonchosis"}, []string{"FEC", "WFEC", "PFEC", "WEC", "PWEC"}},
	{[]string{"weaning worm", "weaning worms", "weaning parasite", "weaning fecal egg count"}, []string{"WFEC", "WEC", "FEC"}},
	{[]string{"post weaning worm", "post weaning worms", "post weaning parasite", "post weaning fecal egg count"}, []string{"PFEC", "PWEC", "FEC"}},
	{[]string{"fleece", "fleece weight", "wool", "wool weight", "greasy fleece", "clip", "wool yield"}, []string{"YGFW"}},
	{[]string{"fiber", "fibre", "fiber diameter", "fibre diameter", "micron", "fineness", "fine wool", "diameter"}, []string{"YFD"}},
	{[]string{"staple", "staple length", "wool length", "fleece length"}, []string{"YSL"}},
}

// ebvWords are words a breeder adds around a trait that do not change
// which trait it is: "WWT EBV", "the weaning weight".
var ebvWords = []string{"ebv", "ebvs", "epd", "epds", "the", "of", "for", "trait", "value", "score", "direct", "index"}

// foldWords is s lower-cased with every run of anything but letters and
// digits made one space, trimmed: "Post-Weaning_weight" is "post weaning
// weight".
func foldWords(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	f = slices.DeleteFunc(f, func(w string) bool { return slices.Contains(ebvWords, w) })
	return strings.Join(f, " ")
}

// meantBy maps each folded phrase, the glossary's names among them, to the
// codes it means.
var meantBy = func() map[string][]string {
	m := map[string][]string{}
	add := func(phrase string, codes ...string) {
		p := foldWords(phrase)
		for _, c := range codes {
			if p != "" && !slices.Contains(m[p], c) {
				m[p] = append(m[p], c)
			}
		}
	}
	for _, t := range traitWords {
		for _, w := range t.words {
			add(w, t.codes...)
		}
	}
	for _, t := range glossary {
		name, _, _ := strings.Cut(t.Name, "(") // "Weaning weight (direct)"
		add(name, t.Code)
	}
	return m
}()

// TraitsMeant returns the trait codes that s names in words, most likely
// first, or nil when it names none: "weaning" and "Weaning Weight" give
// WWT; "worms" gives FEC and the other egg counts. A phrase is matched
// whole; failing that, the longest run of its words that names a trait
// does, so that "weaning weight EBV" and "ram's weaning weight" both give
// WWT. A trait code itself is not a word here: LookupTrait finds those.
func TraitsMeant(s string) []string {
	if groups, _ := TraitGroupsMeant(s); len(groups) > 0 {
		return groups[0]
	}
	return nil
}

// TraitGroupsMeant is every reading of s at its longest run of words that
// names a trait, leftmost first, each as TraitsMeant gives it: one group
// where s names one trait, more where it names several at once ("fat and
// muscle"), which a caller must not settle by picking one. whole says the
// run is all of s, no word of it left unread.
func TraitGroupsMeant(s string) (groups [][]string, whole bool) {
	words := strings.Fields(foldWords(s))
	if len(words) == 0 || len(words) > 8 {
		return nil, false
	}
	// Longest run first, then leftmost: the most specific phrase wins.
	for n := len(words); n > 0; n-- {
		groups = nil
		add := func(codes []string) {
			if !slices.ContainsFunc(groups, func(g []string) bool { return g[0] == codes[0] }) {
				groups = append(groups, slices.Clone(codes))
			}
		}
		for i := 0; i+n <= len(words); i++ {
			run := strings.Join(words[i:i+n], " ")
			if codes, ok := meantBy[run]; ok {
				add(codes)
			} else if codes, ok := meantBy[strings.TrimSuffix(run, "s")]; ok && n == 1 {
				// A plural or possessive ("weights", "ram's" folds to "ram s").
				add(codes)
			}
		}
		if len(groups) > 0 {
			return groups, n == len(words)
		}
	}
	return nil, false
}

// TraitMeant is the first code TraitsMeant gives for s that is among
// codes (a breed's), or false.
func TraitMeant(s string, codes []string) (string, bool) {
	for _, c := range TraitsMeant(s) {
		if slices.Contains(codes, c) {
			return c, true
		}
	}
	return "", false
}
