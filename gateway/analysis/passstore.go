package analysis

import (
	"context"

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
