package argcheck

import (
	"context"
	"reflect"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

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
