package toolcall

import (
	"hash/maphash"
	"sync/atomic"
)

// Bounds of a Memo: how many argument texts it keeps, and the longest it
// keeps. A breeder's lookups are short (an LPN ID, a page); a long text
// is rarely sent twice.
const (
	memoSlots    = 64
	memoMaxBytes = 512
)

// A Memo keeps the validated Calls of argument texts a tool was sent
// recently, by their exact bytes, so that the same arguments sent again
// (many sessions asking for the same animal) are not decoded and
// validated again. Only a Call that depended on nothing but its text may
// be kept: a validation that read NSIP (a breed's name, a status list)
// could read otherwise later. Kept Calls are shared by the calls that
// find them and must not be changed. Make one with NewMemo; it is safe
// for concurrent use, and a nil Memo keeps nothing.
type Memo struct {
	seed  maphash.Seed
	slots [memoSlots]atomic.Pointer[memoEntry]
}

type memoEntry struct {
	raw  string
	call Call
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{seed: maphash.MakeSeed()} }

// Get returns the Call kept for raw, if any.
func (m *Memo) Get(raw []byte) (Call, bool) {
	if m == nil || len(raw) == 0 || len(raw) > memoMaxBytes {
		return Call{}, false
	}
	e := m.slots[m.slot(raw)].Load()
	if e == nil || e.raw != string(raw) {
		return Call{}, false
	}
	return e.call, true
}

// Put keeps c as the Call of raw, in place of whatever text shared its
// slot.
func (m *Memo) Put(raw []byte, c Call) {
	if m == nil || len(raw) == 0 || len(raw) > memoMaxBytes {
		return
	}
	m.slots[m.slot(raw)].Store(&memoEntry{raw: string(raw), call: c})
}

func (m *Memo) slot(raw []byte) uint64 { return maphash.Bytes(m.seed, raw) % memoSlots }
