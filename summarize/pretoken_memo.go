package summarize

import (
	"hash/maphash"
	"strings"
	"sync/atomic"

	"github.com/pkoukk/tiktoken-go"
)

// Bounds of the piece memo. JSON repeats a small set of pieces (keys,
// punctuation runs, short numbers, enum values), so a few tens of thousands
// of slots hold a working set; longer pieces are rare and not kept.
const (
	memoSlots       = 1 << 15 // a power of two
	memoMaxPieceLen = 64      // bytes; longer pieces go to the long slots
)

// Bounds of the long slots. A long piece is rare in JSON, but a text that
// has one often has it on every row: a field padded to kilobytes of one
// letter on each of a page's hundred rows. Merged once per row, 10 KB
// pieces cost about 0.4 s a page; a few slots keep the latest long pieces,
// at most longSlots * longMemoMaxLen bytes (256 KiB) whatever comes.
const (
	longSlots      = 8        // a power of two
	longMemoMaxLen = 32 << 10 // bytes; longer pieces are merged every time
)

// pieceMemo maps a pre-token to its token count. It is a direct-mapped
// table: a piece has one slot, chosen by its hash, and a new piece replaces
// whatever held the slot. Memory is thus fixed at memoSlots entries of at
// most memoMaxPieceLen bytes whatever text comes through, and readers take
// no lock, only an atomic load.
type pieceMemo struct {
	seed  maphash.Seed
	slots [memoSlots]atomic.Pointer[memoEntry]
	longs [longSlots]atomic.Pointer[memoEntry]
	// merges counts the long pieces merged, which tests hold to once per
	// distinct piece.
	merges atomic.Int64
}

type memoEntry struct {
	piece  string
	tokens int
}

var pieceCounts = newPieceMemo()

func newPieceMemo() *pieceMemo { return &pieceMemo{seed: maphash.MakeSeed()} }

// count returns the tokens of one pre-token, from the memo when it can.
func (p *pieceMemo) count(e *tiktoken.Tiktoken, piece string) int {
	if len(piece) > memoMaxPieceLen {
		return p.countLong(piece)
	}
	slot := &p.slots[maphash.String(p.seed, piece)&(memoSlots-1)]
	if m := slot.Load(); m != nil && m.piece == piece {
		return m.tokens
	}
	n := len(e.EncodeOrdinary(piece))
	// The clone lets the caller's text, often a whole page, be freed.
	slot.Store(&memoEntry{piece: strings.Clone(piece), tokens: n})
	return n
}

// countLong returns the tokens of a piece longer than memoMaxPieceLen,
// from the long slots when it can.
func (p *pieceMemo) countLong(piece string) int {
	if len(piece) > longMemoMaxLen {
		p.merges.Add(1)
		return countLong(piece)
	}
	slot := &p.longs[maphash.String(p.seed, piece)&(longSlots-1)]
	if m := slot.Load(); m != nil && m.piece == piece {
		return m.tokens
	}
	p.merges.Add(1)
	n := countLong(piece)
	slot.Store(&memoEntry{piece: strings.Clone(piece), tokens: n})
	return n
}

// entries returns the pieces held, for tests of the bound.
func (p *pieceMemo) entries() []string {
	var out []string
	for i := range p.slots {
		if m := p.slots[i].Load(); m != nil {
			out = append(out, m.piece)
		}
	}
	return out
}
