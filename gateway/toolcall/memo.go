package toolcall

import (
	"hash/maphash"
	"sync/atomic"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/cache/recent"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
)

// Bounds of a Memo: how many argument texts it keeps (in sets of
// recent.Ways, so that a handful of texts asked over and over keep their
// places), and the longest it keeps. A breeder's lookups are short (an
// LPN ID, a page); a long text is rarely sent twice.
const (
	memoSets     = 64
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
	kept *recent.Places[Kept]
}

// Kept is one argument text's Call, and the answer last rendered for it.
// The answer is held weakly: the cached answer it was rendered from holds
// it (upstream.Answer.Keep), so that it goes when the cache lets that
// answer go. Held strongly, the memo's texts kept answers, and their
// decoded models, alive past the cache's bound on memory.
type Kept struct {
	raw      string
	Call     Call
	answered atomic.Pointer[weak.Pointer[Answered]]
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
func NewMemo() *Memo { return &Memo{seed: maphash.MakeSeed(), kept: recent.New[Kept](memoSets)} }

// Get returns what is kept for raw, if anything.
func (m *Memo) Get(raw []byte) *Kept {
	if m == nil || len(raw) == 0 || len(raw) > memoMaxBytes {
		return nil
	}
	return m.kept.Find(maphash.Bytes(m.seed, raw), func(k *Kept) bool { return k.raw == string(raw) })
}

// Put keeps c as the Call of raw, in place of raw's Call before or of the
// text its set kept longest, and returns its place (nil when raw is not
// kept).
func (m *Memo) Put(raw []byte, c Call) *Kept {
	if m == nil || len(raw) == 0 || len(raw) > memoMaxBytes {
		return nil
	}
	k := &Kept{raw: string(raw), Call: c}
	m.kept.Keep(maphash.Bytes(m.seed, raw), k, func(old *Kept) bool { return old.raw == k.raw })
	return k
}

// Answered is the answer last rendered for the call, or nil, also once
// the answer it was rendered from is gone.
func (k *Kept) Answered() *Answered {
	if k == nil {
		return nil
	}
	if w := k.answered.Load(); w != nil {
		return w.Value()
	}
	return nil
}

// Answer keeps a as the call's answer, for as long as the answer it was
// rendered from (a.From.Answer) lives.
func (k *Kept) Answer(a *Answered) {
	if k == nil || a.From.Answer == nil {
		return
	}
	a.From.Answer.Keep(a)
	w := weak.Make(a)
	k.answered.Store(&w)
}
