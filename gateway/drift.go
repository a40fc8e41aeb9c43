package gateway

import (
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// noteIgnored records the criteria a fetched page's rows show NSIP
// ignored (upstream.Drift.NoteIgnoredRows), under the NSIP endpoint, as
// the shape entries name it.
func (g *Gateway) noteIgnored(d *lookup.Def, p *summarize.Paging) {
	if p != nil {
		g.pool.Drift().NoteIgnoredRows(d.Method, p.Contradicting, g.cfg.Now().UTC(), g.log)
	}
}
