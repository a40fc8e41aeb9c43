package upstream

import (
	"context"
	"time"

	"github.com/sony/gobreaker"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// attemptBounds holds one fetch's HTTP requests to the bounds its first
// one passed: the client retries inside one call (nsip.RetryPolicy), and
// each retry is a request to NSIP like any other, so it takes a rate-limit
// token, the shared one included, and a breaker admission, and its failure
// counts toward opening the breaker. Without this a failing NSIP saw three
// requests per token and the breaker a third of the failures.
type attemptBounds struct {
	p      *Pool
	method string
	done   func(success bool) // the breaker's verdict on the request under way; nil once given
	sent   time.Time          // when the request under way was sent
	// retried: the request under way repeats a failed one. Its being cut
	// by the fetch's deadline is then not our queueing (blame) but the
	// time NSIP's failures took, and it counts.
	retried bool
	tell    func() // Request.Sent
}

// told tells the fetch's caller of a request sent.
func (b *attemptBounds) told() {
	if b.tell != nil {
		b.tell()
	}
}

// retry is the nsip.RetryGate: it reports the failed request to the
// breaker, then admits the retry only if the breaker is closed and a token
// is had within the fetch's deadline.
func (b *attemptBounds) retry(ctx context.Context, _ int, failed *nsip.Error) error {
	b.settle(b.p.blame(ctx, b.sent, failed))
	if b.p.breaker.State() == gobreaker.StateOpen {
		return ErrBreakerOpen // spend no token on a request the breaker refuses
	}
	if err := b.p.takeToken(ctx, b.method); err != nil {
		return err
	}
	done, err := b.p.breaker.Allow()
	if err != nil {
		return ErrBreakerOpen
	}
	b.done, b.sent, b.retried = done, time.Now(), true
	b.p.requests.Add(1)
	b.told()
	return nil
}

// settle gives the breaker its verdict on the request under way: a
// failure of NSIP (breakerCounts) or not.
func (b *attemptBounds) settle(err error) {
	if b.done == nil {
		return
	}
	b.done(!b.p.breakerCounts(err))
	b.done = nil
}
