package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// checkUpstream asks NSIP's cheapest endpoint once, so that a wrong
// NSIP_BASE_URL shows in the log at start rather than on a user's first
// call. It only logs: a server started offline still starts, and calls tell
// the model what fails. It returns when the answer is in or within d.
func checkUpstream(ctx context.Context, c *nsip.Client, base string, d time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := c.DateLastUpdated(ctx)
	var ne *nsip.Error
	switch {
	case err == nil:
		log.Info("start-up check: NSIP answered", "nsip_base_url", redactURL(base))
	case ctx.Err() != nil && !errors.As(err, &ne):
		// Shutting down, or no answer at all: nothing to conclude.
		log.Warn("start-up check: NSIP did not answer in time; calls will fail until it does",
			"nsip_base_url", redactURL(base), "error", err.Error())
	case errors.As(err, &ne) && ne.Kind == nsip.KindMisconfigured:
		log.Warn("start-up check: NSIP_BASE_URL does not lead to the NSIP API; fix it or unset it for "+nsip.DefaultBaseURL,
			"nsip_base_url", redactURL(base), "reason", ne.Reason, "error", err.Error())
	case ne != nil && (ne.Kind == nsip.KindConnection || ne.Kind == nsip.KindTimeout):
		log.Warn("start-up check: NSIP did not answer; calls will fail until it does (check NSIP_BASE_URL and the network if this persists)",
			"nsip_base_url", redactURL(base), "error", err.Error())
	default:
		log.Warn("start-up check: NSIP answered with an error; calls may fail while it lasts",
			"nsip_base_url", redactURL(base), "error", err.Error())
	}
}
