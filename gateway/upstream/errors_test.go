package upstream

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestBreakerCountsOnlyUpstreamTrouble(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&nsip.Error{Kind: nsip.KindNotFound, Status: 404}, false},
		{&nsip.Error{Kind: nsip.KindInvalidArgument, Status: 400}, false},
		{&nsip.Error{Kind: nsip.KindRateLimited, Status: 429}, false},
		{&nsip.Error{Kind: nsip.KindCanceled}, false},
		{&nsip.Error{Kind: nsip.KindUnexpectedResponse, Status: 403}, false},
		{&nsip.Error{Kind: nsip.KindUpstream, Status: 503}, true},
		{&nsip.Error{Kind: nsip.KindUnexpectedResponse, Status: 200}, true},
		{&nsip.Error{Kind: nsip.KindTimeout}, true},
		{&nsip.Error{Kind: nsip.KindConnection}, true},
		{context.Canceled, false},
		{errors.New("other"), true},
	}
	for _, tt := range tests {
		if got := countsAsFailure(tt.err); got != tt.want {
			t.Errorf("CountsAsFailure(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestRateLimitErrorText(t *testing.T) {
	err := error(&RateLimited{RetryAfter: time.Second, Reason: "all 4 NSIP connections busy"})
	if err.Error() != "rate limited: all 4 NSIP connections busy" {
		t.Errorf("Error() = %q", err.Error())
	}
}
