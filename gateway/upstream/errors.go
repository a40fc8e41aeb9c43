package upstream

import (
	"context"
	"errors"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// ErrBreakerOpen is returned instead of calling NSIP while the breaker is
// open, this replica's or, through the shared tier, another one's.
var ErrBreakerOpen = errors.New("circuit breaker open")

// RateLimited is a refusal for lack of capacity, local or upstream: the
// caller may try again after RetryAfter.
type RateLimited struct {
	RetryAfter time.Duration
	Reason     string
}

func (e *RateLimited) Error() string { return "rate limited: " + e.Reason }

// countsAsFailure tells the breaker which errors say NSIP is unwell. Answers
// about the request itself (not found, rejected, throttled) and our own
// refusals do not.
func countsAsFailure(err error) bool {
	if err == nil {
		return false
	}
	var ne *nsip.Error
	if errors.As(err, &ne) {
		switch ne.Kind {
		case nsip.KindNotFound, nsip.KindInvalidArgument, nsip.KindRateLimited, nsip.KindCanceled,
			nsip.KindNoData, nsip.KindFormatChanged: // NSIP answered
			return false
		}
		return ne.Status < 400 || ne.Status >= 500
	}
	return !errors.Is(err, context.Canceled)
}
