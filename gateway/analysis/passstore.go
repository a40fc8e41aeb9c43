package analysis

import (
	"context"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"
)

// PassStore keeps breed passes between calls. A Source that is one lets
// percentiles, index rankings and group summaries read a breed once per
// evaluation; without one, each value is found by the binary search over
// NSIP's sorted pages, and each ranking and summary reads its own pages.
type PassStore interface {
	// LoadPass is the pass of breed under evaluation, nil when none is kept.
	LoadPass(ctx context.Context, breed int, evaluation string) *breedpass.BreedPass
	// StorePass keeps p, within the store's bound.
	StorePass(ctx context.Context, p *breedpass.BreedPass)
}

// PassHolder is a PassStore that can tell, without a lookup, whether it
// keeps a pass of a breed under any evaluation. A group summary reads
// NSIP's date to find a current pass only when it does, so that a
// question no pass can answer costs the lookups it did before passes.
type PassHolder interface {
	HoldsPass(ctx context.Context, breed int) bool
}

// PassFiller is a PassStore that can read a pass on its own, beyond the
// call that asked: a breed too large for one call's lookups is then read
// in the background, and a later call finds it kept.
type PassFiller interface {
	// FillPass starts the read, or says why it does not ("" when the
	// pass is being read).
	FillPass(breed int, evaluation string) string
}

// PassFill is what became of a pass asked to be read in the background.
type PassFill struct {
	Why    string // why it is not being read; "" when it is
	TaskID string // the caller's task following the read; "" for none
	Follow string // why the caller cannot follow the read, when it has no task
}

// PassTasker is a PassStore that reads a pass in the background as a task
// the caller of ctx may follow (tasks/get, tasks/cancel); the caller's
// question started the read, or an earlier one of the caller's did.
type PassTasker interface {
	FillPassFor(ctx context.Context, breed int, evaluation string) PassFill
}

// RateLimited is a Source that knows the upstream's rate limit: requests
// a second, and how many may go at once after a quiet spell.
type RateLimited interface {
	RateLimit() (perSecond float64, burst int)
}

// TimeLeft is a Source that knows how long its call may
// still make lookups.
type TimeLeft interface{ TimeLeft() time.Duration }

// PassBounded is a PassStore that bounds the bytes of a pass it keeps: a
// pass read in a call is counted against that bound as its pages come.
type PassBounded interface{ PassMaxBytes() int64 }
