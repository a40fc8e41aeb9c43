package gateway

import (
	"log/slog"

	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// NSIP has no published schema and has changed its answers before (see
// specs/upstream.md). An answer the client cannot read is still JSON NSIP
// sent: the gateway passes it on, fitted by the generic summarizer, and
// notes its shape so that operators learn of the change from one warning
// per endpoint and shape and from /healthz, not from users.

// noteDrift records an unrecognized answer, warning once per endpoint and
// shape.
func (g *Gateway) noteDrift(ne *nsip.Error) {
	sig := upstream.Signature(ne.Body)
	if g.drift.Note(ne.Endpoint, sig, ne.Reason, g.cfg.Now().UTC()) {
		g.log.Warn("NSIP answered in a shape this server does not recognize; passing it on as sent",
			slog.String("endpoint", ne.Endpoint),
			slog.String("signature", sig),
			slog.String("missing", ne.Reason))
	}
}
