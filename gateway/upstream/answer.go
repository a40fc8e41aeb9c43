package upstream

import (
	"encoding/json"
	"sync/atomic"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Where an answer came from, as reported in _meta.cache and the logs.
const (
	SourceHit   = "hit"
	SourceMiss  = "miss"
	SourceStale = "stale"
	// SourceShared is an answer another replica fetched, found in Redis.
	SourceShared = "shared"
)

// Answer is what the cache keeps for one key: the upstream answer, which
// profiles are assembled from, and the result fitted from it once when it
// arrived. The budget is fixed per gateway and the key fixes the tool and
// its arguments, so the fit holds for every later hit, stale fallback and
// waiter on the same fetch; re-fitting a 100-row page on each hit cost
// milliseconds of CPU (see specs/benchmarks.md).
type Answer struct {
	ID    uint64 // tells a refetched answer from the one a profile was fitted on
	Value any
	Raw   json.RawMessage
	Res   summarize.Result

	// Structured is the answer's structuredContent, kept when the answer
	// is stored rather than made on every hit: the text's own bytes when
	// the text is a JSON object (NSIP's own, a summary), or, for an answer
	// NSIP sent as a bare list, which structuredContent cannot be, its
	// model encoded. It is nil when no copy can be made (keepStructured).
	Structured json.RawMessage

	Shared bool // loaded from the replicas' shared tier rather than fetched
	// Drift is set when NSIP answered in a shape the client cannot read:
	// Raw is then NSIP's JSON as sent and Value is nil.
	Drift *nsip.Error

	// kept are values made from the answer that live exactly as long as
	// it does (Keep): the few results rendered from it lately.
	kept     [KeptPlaces]atomic.Pointer[keptValue]
	nextKept atomic.Uint32
}

// KeptPlaces is how many values an answer keeps (Keep): as many as the
// argument texts a memo keeps in one set, so that a few texts asked over
// and over for one answer each keep theirs.
const KeptPlaces = 4

type keptValue struct{ v any }

// Keep keeps v for as long as the answer lives, in place of the value
// kept longest ago once KeptPlaces are full. Whoever holds v only weakly
// (toolcall.Memo) then holds it while the cache holds the answer and no
// longer: a result rendered from an answer the cache has let go would
// hold the answer's memory outside the cache's bound.
func (a *Answer) Keep(v any) {
	i := (a.nextKept.Add(1) - 1) % KeptPlaces
	a.kept[i].Store(&keptValue{v})
}

// keepStructured makes a's structured copy, once, before a is cached (so
// that the cache counts its bytes and a hit sends them without copying):
// a text that is an object is its own copy; a bare list's copy is its
// model. An answer of an unrecognized shape that is no object has none.
func (a *Answer) keepStructured() {
	if a.Res.IsObject() {
		a.Structured = json.RawMessage(a.Res.Text)
		return
	}
	if a.Value == nil || a.Drift != nil || a.Res.Summarized {
		return
	}
	if b, err := nsip.PlainJSON(a.Value); err == nil {
		a.Structured = b
	}
}

// Note is what _meta says of the answer's shape, if anything.
func (a *Answer) Note() string {
	if a.Drift == nil {
		return ""
	}
	return FormatNote(a.Drift)
}

// Size is the bytes an answer under key holds: the upstream JSON, the
// decoded model if it is kept (measured, see heapSize), and the fitted
// text. Undercounting lets the process outgrow the configured bound;
// TestCacheBytesTrackTheHeap and TestCacheBoundHoldsForHostileShapes keep
// the measure honest.
func (a *Answer) Size(key string) int64 {
	return heapSize(a, map[uintptr]bool{}) + int64(len(key)) + EntryOverhead
}

// EntryOverhead covers the cache's bookkeeping and the fixed fields of an
// entry.
const EntryOverhead = 256
