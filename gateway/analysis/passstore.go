package analysis

import (
	"context"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
)

// Passes are the breed passes a Source keeps between calls (Source.Passes).
// A source that keeps them lets percentiles, index rankings and group
// summaries read a breed once per evaluation; without them, each value is
// found by the binary search over NSIP's sorted pages, and each ranking
// and summary reads its own pages.
//
// Every method is part of the one interface, so that an analysis asks the
// store what it can do rather than guessing from its type: a store that
// cannot tell, read or bound says so in the method's answer, as each
// method's comment describes.
type Passes interface {
	// Load is the pass of breed under evaluation, nil when none is kept.
	Load(ctx context.Context, breed int, evaluation string) *breedpass.BreedPass
	// Keep keeps p, within the store's bound.
	Keep(ctx context.Context, p *breedpass.BreedPass)
	// Holds reports, without a lookup, whether the store keeps a pass of
	// breed under any evaluation. A group summary reads NSIP's date to
	// find a current pass only when it does, so that a question no pass
	// can answer costs the lookups it did before passes. A store that
	// cannot tell answers true: the date is then read and the pass looked
	// for, as if one might be kept.
	Holds(ctx context.Context, breed int) bool
	// Fill has breed's pass under evaluation read in the background,
	// beyond the call that asked: a breed too large for one call's
	// lookups is then read on its own, and a later call finds it kept.
	// The answer's Why says why it is not being read ("" when it is); a
	// store that reads no pass on its own answers Cannot, and nothing was
	// asked.
	Fill(breed int, evaluation string) PassFill
	// FillFor is Fill for the caller of ctx, who may follow the read as
	// one of its tasks (tasks/get, tasks/cancel); the caller's question
	// started the read, or an earlier one of the caller's did. A store
	// with no tasks answers as Fill does.
	FillFor(ctx context.Context, breed int, evaluation string) PassFill
	// MaxBytes is the most bytes a pass the store keeps may take, 0 for
	// no bound: a pass read in a call is counted against it as its pages
	// come, so that one too large stops being read.
	MaxBytes() int64
}

// PassFill is what became of a pass asked to be read in the background.
type PassFill struct {
	Cannot bool   // the store reads no pass on its own: nothing was asked
	Why    string // why it is not being read; "" when it is
	TaskID string // the caller's task following the read; "" for none
	Follow string // why the caller cannot follow the read, when it has no task
}

// Limits are what a Source says of the call's room (Source.Limits): how
// many lookups may be under way at once, how long it may still make
// them, and the upstream's rate limit. Each has a value meaning the
// source does not say, so that a source with no limit to tell (a test's
// fake) answers with the zero Limits.
type Limits struct {
	// Parallel is how many lookups the call may have under way at once;
	// 0 when the source does not say, and the analyses then keep
	// defaultParallel under way, the gateway's own default.
	Parallel int
	// TimeLeft is how long the call may still make lookups, by which an
	// analysis judges whether a long read (a breed's pass) fits; nil
	// when the source does not say, and then every read is begun. It is
	// a function because the time left shrinks as the call goes on: it
	// is asked at the moment it is judged.
	TimeLeft func() time.Duration
	// PerSecond and Burst are the upstream's rate limit: requests a
	// second, and how many may go at once after a quiet spell. A breed
	// pass's pages wait for it however fast NSIP answers. PerSecond is 0
	// when the source knows no rate limit.
	PerSecond float64
	Burst     int
}
