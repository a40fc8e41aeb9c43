package summarize

import (
	"strings"

	"github.com/pkoukk/tiktoken-go"
)

// tiktoken-go merges the byte pairs of a piece by scanning every pair for the
// lowest rank once per merge: quadratic in the piece's length. A 160 KB run
// of punctuation, or 100 KB of one letter, is one piece and took 15 to 28 s.
// Pieces longer than memoMaxPieceLen are therefore merged here, with the same
// rule in O(n log n): a heap keyed by (rank, offset) yields the pair
// tiktoken-go's scan would pick, the lowest rank and on a tie the leftmost,
// so the merges happen in the same order and the count is the same
// (TestLongPieceCountsMatchTiktoken compares them).

// maxExactPiece is the longest piece merged exactly. The merge keeps about
// 24 bytes per byte of the piece; beyond this a piece is counted as its
// length in bytes, a bound no encoding can exceed (every token covers at
// least one byte). Nothing NSIP sends has a pre-token this long: it would
// be a megabyte of one letter, digit-free punctuation or spaces.
const maxExactPiece = 1 << 20

// rankCapture keeps the rank table tiktoken-go builds its encoder from, so
// that long pieces can be merged without a second copy of it.
type rankCapture struct {
	inner tiktoken.BpeLoader
	ranks map[string]int
}

func (r *rankCapture) LoadTiktokenBpe(file string) (map[string]int, error) {
	m, err := r.inner.LoadTiktokenBpe(file)
	if err == nil && strings.Contains(file, encodingName) {
		r.ranks = m
	}
	return m, err
}

// ranks is cl100k_base's rank table, set by loadEncoding.
var ranks map[string]int

// countLong returns the tokens of one long piece.
func countLong(piece string) int {
	if len(piece) > maxExactPiece {
		return len(piece)
	}
	if _, ok := ranks[piece]; ok {
		return 1
	}
	parts, _ := mergeParts(ranks, piece)
	return parts
}

// noRank marks a part with no mergeable successor.
const noRank = -1

// mergeParts merges piece's bytes as byte-pair encoding does and returns how
// many parts remain, and how many rank look-ups it took (which tests bound).
// Parts are identified by the offset of their first byte; next and prev
// link the live ones.
func mergeParts(ranks map[string]int, piece string) (parts, probes int) {
	n := len(piece)
	if n < 2 {
		return n, 0
	}
	next := make([]int32, n) // offset of the following part, n for the last
	prev := make([]int32, n) // offset of the preceding part, -1 for the first
	for i := range n {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	// rankAt is the rank of part p joined with its successor.
	rankAt := func(p int32) int {
		q := next[p]
		if int(q) >= n {
			return noRank
		}
		probes++
		r, ok := ranks[piece[p:next[q]]]
		if !ok {
			return noRank
		}
		return r
	}
	h := make(pairHeap, 0, n)
	for i := range int32(n - 1) {
		if r := rankAt(i); r != noRank {
			h = append(h, pack(r, i))
		}
	}
	h.init()
	parts = n
	for len(h) > 0 {
		r, p := unpack(h.pop())
		// An entry is stale when its part was absorbed into its left
		// neighbour or its successor changed since it was pushed; the
		// successor's change shows in the rank, as ranks name distinct
		// byte strings.
		if prev[p] == -2 || rankAt(p) != r {
			continue
		}
		q := next[p]
		next[p] = next[q]
		if int(next[q]) < n {
			prev[next[q]] = p
		}
		prev[q] = -2 // absorbed
		parts--
		if nr := rankAt(p); nr != noRank {
			h.push(pack(nr, p))
		}
		if l := prev[p]; l >= 0 {
			if lr := rankAt(l); lr != noRank {
				h.push(pack(lr, l))
			}
		}
	}
	return parts, probes
}

// pairHeap is a binary min-heap of (rank, offset) packed into one word, so
// that ordering the words orders by rank and then by offset.
type pairHeap []uint64

func pack(rank int, offset int32) uint64 { return uint64(rank)<<32 | uint64(uint32(offset)) }

func unpack(v uint64) (int, int32) { return int(v >> 32), int32(uint32(v)) }

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(v uint64) {
	*h = append(*h, v)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

func (h *pairHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
