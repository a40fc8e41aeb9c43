// Package toolcall is one tool call as every tool's run sees it: the
// validated arguments it is run with (Call) and what it answers
// (Outcome). It sits below the tools (gateway/lookup, the analyses) and
// the gateway that runs them, so that a tool's run and the one call path
// speak the same types whatever the tool computes.
package toolcall

import (
	"encoding/json"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Where an answer came from, as _meta.cache and the logs report it.
const (
	Hit    = upstream.SourceHit
	Miss   = upstream.SourceMiss
	Stale  = upstream.SourceStale
	Shared = upstream.SourceShared
)

// A Call is one call's arguments once decoded and validated.
type Call struct {
	// Sent are the arguments as the caller sent them (or as the user
	// completed them when asked): an error's example starts from them.
	Sent param.Sent
	// Args are the validated arguments, the view's among them: read by
	// the summarizer and named by errors.
	Args param.Valid
	// View is how the caller asked to see the answer.
	View View
	// Read says how each of the caller's words was read: a trait's name
	// as its code, a breed's name as its ID (param.Readings).
	Read []string
}

// A View is how a call asked to see its answer: the arguments that shape
// the text without changing what is read.
type View struct {
	Budget int // max_tokens; 0: the server's default, with the share rule
	Traits []string
	Skip   int
}

// Set reports whether the call asked for anything but the default view,
// which is the one the cache holds.
func (v View) Set() bool { return v.Budget > 0 || len(v.Traits) > 0 || v.Skip > 0 }

// An Outcome is one call's answer before it is rendered: its fitted text
// and what _meta and the log line report of it. A failed call has Err.
type Outcome struct {
	Res summarize.Result
	// Source is where the answer came from (Hit, Miss, Stale or Shared),
	// for the log line and metrics; Cache is the same when _meta.cache
	// reports it, "" when the answer is a computation over several reads.
	Source, Cache string
	StaleAge      time.Duration
	StaleReason   string // the error code NSIP failed with while a stale answer was served
	FormatNote    string // set when NSIP's answer was in an unrecognized shape
	Err           *toolerr.Error
	// Reads are what a computed answer read, for the log line; Upstream
	// is the same as _meta.upstream reports it.
	Reads    *calllog.Reads
	Upstream any
	// Value is the model the answer was fitted from, for
	// structuredContent; Structured is the copy kept with a cached answer,
	// or a computed answer's own JSON.
	Value      any
	Structured json.RawMessage
	// Data is what the answer was made from, offered as links to its
	// complete data (gateway/full).
	Data full.Data
	// PageLinks: a summary's next page is also offered as a resource
	// link (features.ResourceLinks).
	PageLinks bool
	// Params are the arguments as the log line shows them; "" for the
	// caller's own.
	Params string
	// From is the cached answer the outcome was read from alone, if it
	// was: the same call may be answered the same while the cache holds
	// it (Kept.Answered).
	From Held
}

// Failed is the outcome of a call that failed with te.
func Failed(te *toolerr.Error) Outcome { return Outcome{Err: te} }

// Obtained is one upstream answer and how it was come by: from the cache,
// from NSIP, from another replica, or stale while NSIP failed.
type Obtained struct {
	A           *upstream.Answer
	Source      string
	StaleAge    time.Duration
	StaleReason string
}
