package toolcall

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

// Bounds of a Memo: how many argument texts it keeps, and the longest it
// keeps. A breeder's lookups are short (an LPN ID, a page); a long text
// is rarely sent twice.
//
// A text's hash picks a set of memoWays places, and the text may sit in
// any of them. With one place per hash, two of a handful of texts asked
// over and over (a flock's sixteen animals) shared a place about a third
// of the time, and then pushed each other out on every call, so those
// calls were decoded, validated and rendered again each time.
const (
	memoSets     = 64
	memoWays     = 4
	memoSlots    = memoSets * memoWays
	memoMaxBytes = 512
)

// A Memo keeps the validated Calls of argument texts a tool was sent
// recently, by their exact bytes, so that the same arguments sent again
// (many sessions asking for the same animal) are not decoded and
// validated again; beside each, the last answer it rendered from a cached
// answer alone, which stands while the cache holds that answer. Only a
// Call that depended on nothing but its text may be kept: a validation
// that read NSIP (a breed's name, a status list) could read otherwise
// later. What is kept is shared by the calls that find it and must not be
// changed. Make one with NewMemo; it is safe for concurrent use, and a nil
// Memo keeps nothing.
type Memo struct {
	seed maphash.Seed
	sets [memoSets][memoWays]atomic.Pointer[Kept]
	turn atomic.Uint32 // which place of a full set the next text takes
}

// Kept is one argument text's Call, and the answer last rendered for it.
type Kept struct {
	raw      string
	Call     Call
	answered atomic.Pointer[Answered]
}

// Answered is a call's rendered result, what it was read from, and the
// outcome its log line and metrics report.
type Answered struct {
	From    Held
	Outcome Outcome
	Result  *mcp.CallToolResult
}

// Held names the cached answer an outcome was read from alone: the
// outcome, and its rendering, stand while the cache holds that answer
// under that key.
type Held struct {
	Key    string
	Answer *upstream.Answer
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{seed: maphash.MakeSeed()} }

// Get returns what is kept for raw, if anything.
func (m *Memo) Get(raw []byte) *Kept {
	if m == nil || len(raw) == 0 || len(raw) > memoMaxBytes {
		return nil
	}
	set := &m.sets[m.set(raw)]
	for i := range set {
		if k := set[i].Load(); k != nil && k.raw == string(raw) {
			return k
		}
	}
	return nil
}

// Put keeps c as the Call of raw, in place of whatever text shared its
// slot, and returns its place (nil when raw is not kept).
func (m *Memo) Put(raw []byte, c Call) *Kept {
	if m == nil || len(raw) == 0 || len(raw) > memoMaxBytes {
		return nil
	}
	k := &Kept{raw: string(raw), Call: c}
	set := &m.sets[m.set(raw)]
	// The text's own place first, so that a text kept again replaces
	// itself; then an empty one; else the places of a full set in turn.
	way := -1
	for i := range set {
		switch old := set[i].Load(); {
		case old != nil && old.raw == k.raw:
			set[i].Store(k)
			return k
		case old == nil && way < 0:
			way = i
		}
	}
	if way < 0 {
		way = int(m.turn.Add(1) % memoWays)
	}
	set[way].Store(k)
	return k
}

func (m *Memo) set(raw []byte) uint64 { return maphash.Bytes(m.seed, raw) % memoSets }

// Answered is the answer last rendered for the call, or nil.
func (k *Kept) Answered() *Answered {
	if k == nil {
		return nil
	}
	return k.answered.Load()
}

// Answer keeps a as the call's answer.
func (k *Kept) Answer(a *Answered) {
	if k != nil {
		k.answered.Store(a)
	}
}
