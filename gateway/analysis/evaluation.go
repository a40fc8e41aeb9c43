package analysis

import (
	"context"
	"errors"
	"fmt"
)

// NSIP publishes new evaluations without notice, and answers cached across
// one mix two (see the API notes). A scan whose verdict rests on every
// page, a ranking's "exact", is tied to one evaluation: NSIP's last-update
// date is read before the first page, the pages are cached under it as
// well as their arguments, so that a page kept from an earlier evaluation
// is fetched again rather than read beside a later one, and the date is
// read again after the last page. Dates only move forward, so the same
// date on both sides puts every page between under it.

// evalLookups is what the date costs a scan: one read before, one after.
const evalLookups = 2

// evalBracket is a scan's hold on one evaluation.
type evalBracket struct {
	date string // "" when it could not be read
	why  string // why not, when it could not
}

// openEvaluation reads the date before a scan and keys the scan's search
// by it. A date NSIP does not give leaves the pages unkeyed and the scan
// unproven (close says so); only the caller's own end stops the call.
func openEvaluation(ctx context.Context, r *call, search *Query) (*evalBracket, error) {
	d, err := r.evaluation(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return &evalBracket{why: "could not be read (" + r.src.ErrorCode(err) + ")"}, nil
	case d == "":
		return &evalBracket{why: "was not given by NSIP"}, nil
	}
	search.Evaluation = d
	return &evalBracket{date: d}, nil
}

// close reads the date again after the scan: "" when the pages are shown
// to be of the evaluation read before them, else why they are not.
func (b *evalBracket) close(ctx context.Context, r *call) (string, error) {
	if b.date == "" {
		return "not proven exact: NSIP's last-update date " + b.why + ", so the pages are not shown to be of one evaluation", nil
	}
	d, err := r.evaluation(ctx)
	switch {
	case err != nil && ctx.Err() != nil && !errors.Is(err, ErrCeiling):
		return "", err
	case err != nil:
		return fmt.Sprintf("not proven exact: NSIP's last-update date could not be read again after the pages (%s), so they are not shown to be of one evaluation", r.src.ErrorCode(err)), nil
	case d != b.date:
		return fmt.Sprintf("not proven exact: NSIP published a new evaluation (%s, then %s) while the pages were read; call again for a ranking of one evaluation", b.date, d), nil
	}
	return "", nil
}

// verdict is a scan's last word on exactness, and what withdrew it.
type verdict struct {
	exact      bool
	evaluation string   // why the pages are not shown to be of one evaluation
	stale      string   // why lookups answered from stale copies leave it unproven
	upstream   Upstream // what the call read, the second date read included
}

// settle decides whether a scan whose pages prove its answer (exact) may
// say so: its pages must be of one evaluation, read again only then, and
// none of its lookups a copy kept after NSIP failed, which may predate a
// change to the listing.
func settle(ctx context.Context, r *call, eb *evalBracket, exact bool) (verdict, error) {
	v := verdict{exact: exact}
	if exact {
		why, err := eb.close(ctx, r)
		if err != nil {
			return v, err
		}
		v.evaluation, v.exact = why, why == ""
	}
	v.upstream = r.upstream()
	if n := v.upstream.Stale; n > 0 {
		v.exact = false
		v.stale = fmt.Sprintf("not proven exact: %d lookups were answered from copies kept past their hour because NSIP failed, so the pages may not show NSIP's listing at one time", n)
	}
	return v, nil
}

// proof is what a ranking's computed block says of its scan.
func (v verdict) proof(sc *pageScan, eb *evalBracket, stop string, read, unindexed int) ScanProof {
	return ScanProof{
		AnimalsRead: read, Exact: v.exact, Stopped: stop, Population: sc.total, WithoutIndex: unindexed, Pages: sc.pages,
		Upstream: v.upstream, Paging: sc.unsettled(), Evaluation: eb.date, EvaluationCheck: v.evaluation, Stale: v.stale,
	}
}
