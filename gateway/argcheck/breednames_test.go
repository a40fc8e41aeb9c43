package argcheck

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// Breed IDs sent as text are read: a number as itself, a name or the start
// of one as the breed so named, in objects too; the list is read once,
// and only for a name.
func TestReadBreedNames(t *testing.T) {
	l := newLists()
	b := l.checker()
	paths := []string{"breed_id", "search_criteria.breed_id"}
	sent := param.SentOf(map[string]any{"breed_id": " 640 ", "search_criteria": map[string]any{"breed_id": 641}})
	got, reads, errs := b.ReadNames(context.Background(), sent, paths)
	if errs != nil || param.JSONText(got) != `{"breed_id":640,"search_criteria":{"breed_id":641}}` || l.listReads != 0 ||
		!reflect.DeepEqual(reads, []string{`" 640 " read as breed 640`}) {
		t.Errorf("a number: %s %q %+v, list read %d times", param.JSONText(got), reads, errs, l.listReads)
	}
	sent = param.SentOf(map[string]any{"breed_id": "KATAHDIN", "search_criteria": map[string]any{"breed_id": "dor", "gender": "Male"}})
	got, reads, errs = b.ReadNames(context.Background(), sent, paths)
	if errs != nil || param.JSONText(got) != `{"breed_id":640,"search_criteria":{"breed_id":641,"gender":"Male"}}` || l.listReads != 1 ||
		!reflect.DeepEqual(reads, []string{`"KATAHDIN" read as breed 640 (Katahdin)`, `"dor" read as breed 641 (Dorper)`}) {
		t.Errorf("names: %s %q %+v, list read %d times", param.JSONText(got), reads, errs, l.listReads)
	}
	if v, _ := sent.Value("breed_id"); v != "KATAHDIN" {
		t.Errorf("the call sent was changed: %v", v)
	}
}

// A name no breed or several answer to is refused naming the nearest
// breeds with their IDs; without the list, a name cannot be read.
func TestReadBreedNamesRefused(t *testing.T) {
	l := newLists()
	l.breeds.Groups[1].Breeds = append(l.breeds.Groups[1].Breeds, l.breeds.Groups[1].Breeds[1])
	l.breeds.Groups[1].Breeds[2].ID, l.breeds.Groups[1].Breeds[2].Name = 643, "Dorset"
	b := l.checker()
	for name, want := range map[string]string{
		"dor":     `"dor" could be any of 2 breeds`,
		"Katadin": `"Katadin" names no breed NSIP has`,
	} {
		_, _, errs := b.ReadNames(context.Background(), param.SentOf(map[string]any{"breed_id": name}), []string{"breed_id"})
		if len(errs) != 1 || errs[0].Field != "breed_id" || errs[0].Problem != want {
			t.Fatalf("%s: %+v", name, errs)
		}
		if name == "dor" && !strings.Contains(errs[0].Expected, "nearest being 641 Dorper, 643 Dorset;") {
			t.Errorf("%s: %s", name, errs[0].Expected)
		}
		if name == "Katadin" && !strings.Contains(errs[0].Expected, "nearest being 640 Katahdin, ") {
			t.Errorf("%s: %s", name, errs[0].Expected)
		}
	}
	// An empty or blank text names nothing, and NSIP is not asked.
	reads := l.listReads
	for _, blank := range []string{"", "  "} {
		_, _, errs := b.ReadNames(context.Background(), param.SentOf(map[string]any{"breed_id": blank}), []string{"breed_id"})
		if len(errs) != 1 || errs[0].Field != "breed_id" || errs[0].Problem != param.QuoteShort(blank)+" is empty" || !strings.Contains(errs[0].Expected, "e.g. 640") || l.listReads != reads {
			t.Errorf("%q: %+v, list read %d more times; want it refused as empty without the list", blank, errs, l.listReads-reads)
		}
	}
	l.breeds = nil
	_, _, errs := b.ReadNames(context.Background(), param.SentOf(map[string]any{"breed_id": "Katahdin"}), []string{"breed_id"})
	if len(errs) != 1 || !strings.Contains(errs[0].Problem, "breed list could not be had") {
		t.Errorf("no list: %+v", errs)
	}
}

// A trait in words whose likeliest code the breed lacks is read as the
// breed's own code for the same words; a code, or a word the breed has no
// code for, is left as sent for CheckTraits to judge.
func TestReadForBreed(t *testing.T) {
	l := newLists()
	b := l.checker()
	rng := map[string]any{"min": 0.0}
	sent := param.SentOf(map[string]any{"breed_id": 640, "sorted_trait": "parasite resistance", "search_criteria": map[string]any{
		"trait_ranges": map[string]any{"weaning worms": rng, "yearling weight": rng, "fleece": rng, "BWT": rng}}})
	args := searchArgs(t, sent.Members())
	got, reads := b.ReadForBreed(context.Background(), sent, args)
	// WFEC for weaning worms is the breed's already; it has no fleece.
	want := `{"breed_id":640,"search_criteria":{"trait_ranges":{"BWT":{"min":0},"PWWT":{"min":0},"fleece":{"min":0},"weaning worms":{"min":0}}},"sorted_trait":"WFEC"}`
	if param.JSONText(got) != want {
		t.Errorf("read as\n%s\nwant\n%s", param.JSONText(got), want)
	}
	if w := []string{
		`"parasite resistance" read as WFEC (weaning fecal egg count), lower is better`,
		`"yearling weight" read as PWWT (post-weaning weight), higher is better`,
	}; !reflect.DeepEqual(reads, w) {
		t.Errorf("reads %q", reads)
	}
	if l.rangeReads != 1 {
		t.Errorf("trait ranges read %d times", l.rangeReads)
	}
	// Codes only: nothing read, no trait ranges read.
	codes := param.SentOf(map[string]any{"breed_id": 640, "sorted_trait": "FEC"})
	if got, reads := b.ReadForBreed(context.Background(), codes, searchArgs(t, codes.Members())); reads != nil || param.JSONText(got) != `{"breed_id":640,"sorted_trait":"FEC"}` || l.rangeReads != 1 {
		t.Errorf("codes: %s %q, ranges read %d times", param.JSONText(got), reads, l.rangeReads)
	}
	// A range the call already gives the breed's code stands, and the
	// word is left for CheckTraits.
	both := param.SentOf(map[string]any{"breed_id": 640, "search_criteria": map[string]any{"trait_ranges": map[string]any{"yearling weight": rng, "PWWT": rng}}})
	if got, reads := b.ReadForBreed(context.Background(), both, searchArgs(t, both.Members())); reads != nil || param.JSONText(got) != param.JSONText(both) {
		t.Errorf("both: %s %q", param.JSONText(got), reads)
	}
	// No breed: nothing to read against.
	none := param.SentOf(map[string]any{"sorted_trait": "parasite resistance"})
	if _, reads := b.ReadForBreed(context.Background(), none, searchArgs(t, none.Members())); reads != nil {
		t.Errorf("no breed: %q", reads)
	}
}
