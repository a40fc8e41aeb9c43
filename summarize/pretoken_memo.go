package summarize

import (
	"hash/maphash"
	"strings"
	"sync/atomic"

	"github.com/pkoukk/tiktoken-go"

	"github.com/nsip-tools/nsip-mcp/cache/recent"
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
// pieces cost about 0.4 s a page; a few places keep the latest long
// pieces, at most longSets * recent.Ways * longMemoMaxLen bytes (256 KiB)
// whatever comes. In sets of recent.Ways, so that the few long pieces of
// one page (two padded fields a row) never push each other out.
const (
	longSets       = 2
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
	longs *recent.Places[memoEntry]
	// merges counts the long pieces merged, which tests hold to once per
	// distinct piece.
	merges atomic.Int64
}

type memoEntry struct {
	piece  string
	tokens int
}

var pieceCounts = newPieceMemo()

func newPieceMemo() *pieceMemo {
	return &pieceMemo{seed: maphash.MakeSeed(), longs: recent.New[memoEntry](longSets)}
}

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
	hash := maphash.String(p.seed, piece)
	is := func(m *memoEntry) bool { return m.piece == piece }
	if m := p.longs.Find(hash, is); m != nil {
		return m.tokens
	}
	p.merges.Add(1)
	n := countLong(piece)
	p.longs.Keep(hash, &memoEntry{piece: strings.Clone(piece), tokens: n}, is)
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
