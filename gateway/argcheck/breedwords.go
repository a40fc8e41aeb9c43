package argcheck

import (
	"context"
	"maps"
	"slices"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Breeds publish one trait under different codes (post-weaning eye muscle
// depth is EMD in one, PEMD in another). A trait a search names in words
// is read as the glossary's likeliest code, which the breed searched may
// lack; the breed's own code for the same words is then the trait meant,
// not a mistake to refuse.

// ReadForBreed reads again, against the breed searched, the trait words
// of a search sent (sorted_trait, search_criteria.trait_ranges' keys)
// whose glossary code args, the call validated, hold but the breed does
// not publish: each word whose meaning the breed has under another code is
// put in its place in sent, with a reading saying so. A word the breed has
// no code for is left to CheckTraits to refuse. It reads the breed's trait
// ranges only when a trait was sent in words.
func (b *Breeds) ReadForBreed(ctx context.Context, sent param.Sent, args param.Valid) (param.Sent, []string) {
	f := b.Search
	rangesAt := f.Criteria + "." + f.TraitRanges
	type word struct {
		s   string
		key bool // a key of the trait ranges, else the sorted trait
	}
	var words []word
	sorted, _ := sent.Value(f.SortedTrait)
	if s, _ := sorted.(string); isWord(s) {
		words = append(words, word{s, false})
	}
	ranges, _ := sent.Value(rangesAt)
	rm, _ := ranges.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(rm)) {
		if isWord(k) {
			words = append(words, word{k, true})
		}
	}
	_, breed := b.Searched(args)
	if len(words) == 0 || breed == 0 {
		return sent, nil
	}
	codes, ok := b.traitCodes(ctx, breed)
	if !ok {
		return sent, nil
	}
	var reads []string
	for _, w := range words {
		read, _ := nsip.ReadTrait(w.s)
		c, meant := nsip.TraitMeant(w.s, codes)
		if read == "" || slices.Contains(codes, read) || !meant {
			continue
		}
		switch _, taken := rm[c]; {
		case !w.key:
			sent = sent.WithAt(f.SortedTrait, c)
		case taken:
			continue // the range the call gives the breed's code stands
		default:
			rm = maps.Clone(rm)
			rm[c] = rm[w.s]
			delete(rm, w.s)
			sent = sent.WithAt(rangesAt, rm)
		}
		reads = append(reads, Reading(w.s, c))
	}
	return sent, reads
}

// isWord reports whether s names a trait otherwise than by a glossary
// code: a word, or a code of no glossary trait.
func isWord(s string) bool {
	_, isCode := nsip.LookupTrait(s)
	return s != "" && !isCode
}
