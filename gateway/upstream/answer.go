package upstream

import (
	"encoding/json"

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

	// Structured is the structuredContent of a pass-through answer NSIP
	// sent as something other than an object (a bare list), which
	// structuredContent cannot be: its model, encoded once when the
	// answer is stored rather than on every hit. It is nil when the copy is
	// the text itself (an object) or not made (KeepStructured).
	Structured json.RawMessage

	Shared bool // loaded from the replicas' shared tier rather than fetched
	// Drift is set when NSIP answered in a shape the client cannot read:
	// Raw is then NSIP's JSON as sent and Value is nil.
	Drift *nsip.Error
}

// KeepStructured encodes a's structured copy, once, before a is cached
// (so that the cache counts its bytes), when the copy cannot be the text:
// NSIP answered with a bare list, whose model every hit would otherwise
// encode again. A text that is an object (NSIP's own, or a summary) is its
// own copy, and an answer of an unrecognized shape has no model.
func (a *Answer) KeepStructured() {
	if a.Value == nil || a.Drift != nil || a.Res.Summarized || a.Res.IsObject() {
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
// decoded model if it is kept (measured, see HeapSize), and the fitted
// text. Undercounting lets the process outgrow the configured bound;
// TestCacheBytesTrackTheHeap and TestCacheBoundHoldsForHostileShapes keep
// the measure honest.
func (a *Answer) Size(key string) int64 {
	return HeapSize(a, map[uintptr]bool{}) + int64(len(key)) + EntryOverhead
}

// EntryOverhead covers the cache's bookkeeping and the fixed fields of an
// entry.
const EntryOverhead = 256
