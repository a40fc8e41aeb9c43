package gateway

import (
	"errors"
	"log/slog"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// noteThrottle makes calls to d's endpoint wait out a 429's Retry-After, up
// to MaxUpstreamPause, so that NSIP sees no further requests there until
// then. The error the caller gets is rewritten to the capped wait.
func (g *Gateway) noteThrottle(d *toolDef, err error) {
	var ne *nsip.Error
	if !errors.As(err, &ne) || ne.Kind != nsip.KindRateLimited {
		return
	}
	asked := ne.RetryAfter
	ne.RetryAfter = g.pauses.Set(d.method, asked, g.cfg.MaxUpstreamPause, time.Now())
	g.shared.Throttle(d.method, ne.RetryAfter, asked)
	if asked > g.cfg.MaxUpstreamPause {
		g.log.Warn("nsip asked for a pause longer than the limit; pausing for the limit",
			slog.String("method", d.method), slog.Duration("asked", asked), slog.Duration("limit", g.cfg.MaxUpstreamPause))
	}
}

// paused refuses a fetch for d while NSIP's pause on its endpoint lasts.
func (g *Gateway) paused(d *toolDef) error {
	if left := g.pauses.Left(d.method, time.Now()); left > 0 {
		return &rateLimitError{RetryAfter: left, Reason: "NSIP asked us to wait"}
	}
	return nil
}
