package scan

import (
	"context"
	"errors"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
)

// NSIP publishes new evaluations without notice, and answers cached across
// one mix two (see the API notes). A scan whose verdict rests on every
// page, a ranking's "exact", is tied to one evaluation: NSIP's last-update
// date is read before the first page, the pages are cached under it as
// well as their arguments, so that a page kept from an earlier evaluation
// is fetched again rather than read beside a later one, and the date is
// read again after the last page. Dates only move forward, so the same
// date on both sides puts every page between under it.

// EvalLookups is what the date costs a scan: one read before, one after.
const EvalLookups = 2

// EvalBracket is a scan's hold on one evaluation.
type EvalBracket struct {
	Date string // "" when it could not be read
	why  string // why not, when it could not
}

// OpenEvaluation reads the date before a scan and keys the scan's search
// by it. A date NSIP does not give leaves the pages unkeyed and the scan
// unproven (close says so); only the caller's own end stops the call.
func OpenEvaluation(ctx context.Context, r *analysis.Call, search *analysis.Query) (*EvalBracket, error) {
	d, err := r.Evaluation(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return &EvalBracket{why: "could not be read (" + r.Src.ErrorCode(err) + ")"}, nil
	case d == "":
		return &EvalBracket{why: "was not given by NSIP"}, nil
	}
	search.Evaluation = d
	return &EvalBracket{Date: d}, nil
}

// close reads the date again after the scan: "" when the pages are shown
// to be of the evaluation read before them, else why they are not.
func (b *EvalBracket) close(ctx context.Context, r *analysis.Call) (string, error) {
	if b.Date == "" {
		return "not proven exact: NSIP's last-update date " + b.why + ", so the pages are not shown to be of one evaluation", nil
	}
	d, err := r.Evaluation(ctx)
	switch {
	case err != nil && ctx.Err() != nil && !errors.Is(err, analysis.ErrCeiling):
		return "", err
	case err != nil:
		return fmt.Sprintf("not proven exact: NSIP's last-update date could not be read again after the pages (%s), so they are not shown to be of one evaluation", r.Src.ErrorCode(err)), nil
	case d != b.Date:
		return fmt.Sprintf("not proven exact: NSIP published a new evaluation (%s, then %s) while the pages were read; call again for a ranking of one evaluation", b.Date, d), nil
	}
	return "", nil
}

// Verdict is a scan's last word on exactness, and what withdrew it.
type Verdict struct {
	Exact      bool
	evaluation string            // why the pages are not shown to be of one evaluation
	Stale      string            // why lookups answered from stale copies leave it unproven
	upstream   analysis.Upstream // what the call read, the second date read included
}

// Settle decides whether a scan whose pages prove its answer (exact) may
// say so: its pages must be of one evaluation, read again only then, and
// none of its lookups a copy kept after NSIP failed, which may predate a
// change to the listing.
func Settle(ctx context.Context, r *analysis.Call, eb *EvalBracket, exact bool) (Verdict, error) {
	v := Verdict{Exact: exact}
	if exact {
		why, err := eb.close(ctx, r)
		if err != nil {
			return v, err
		}
		v.evaluation, v.Exact = why, why == ""
	}
	v.upstream = r.Upstream()
	if n := v.upstream.Stale; n > 0 {
		v.Exact = false
		v.Stale = fmt.Sprintf("not proven exact: %d lookups were answered from copies kept past their hour because NSIP failed, so the pages may not show NSIP's listing at one time", n)
	}
	return v, nil
}

// Proof is what a ranking's computed block says of its scan.
func (v Verdict) Proof(sc *PageScan, eb *EvalBracket, stop string, read, unindexed int) analysis.ScanProof {
	return analysis.ScanProof{
		AnimalsRead: read, Exact: v.Exact, Stopped: stop, Population: sc.Total, WithoutIndex: unindexed, Pages: sc.pages,
		Upstream: v.upstream, Paging: sc.unsettled(), Evaluation: eb.Date, EvaluationCheck: v.evaluation, Stale: v.Stale,
	}
}
