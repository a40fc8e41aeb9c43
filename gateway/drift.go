package gateway

import (
	"log/slog"
	"strings"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// noteIgnored records the criteria a fetched page's rows show NSIP
// ignored, warning once per endpoint and criterion. The answer is still
// served: a summary leaves those rows out, a pass-through keeps them, and
// either way _meta.contradicting_criteria says so.
func (g *Gateway) noteIgnored(d *lookup.Def, p *summarize.Paging) {
	if p == nil || p.Contradicting == nil {
		return
	}
	endpoint := d.Method // the NSIP endpoint, as the shape entries name it
	c := p.Contradicting
	for _, crit := range c.Criteria() {
		example := exampleOf(c.Rows, crit)
		if g.pool.Drift().NoteIgnored(endpoint, crit, example, g.cfg.Now().UTC()) {
			g.log.Warn("NSIP returned rows that contradict a criterion of the call, a sign it ignored it; they are left out of summaries and named in _meta",
				slog.String("endpoint", endpoint),
				slog.String("criterion", crit),
				slog.Int("rows", c.ByCriterion[crit]),
				slog.String("example", example))
		}
	}
}

// exampleOf is the first named row that broke crit: the rows name the
// criterion as asked ("gender Male asked", "breed_id 640 asked"), or the
// first row when none does in those words.
func exampleOf(rows []string, crit string) string {
	word := crit
	if i := strings.LastIndexByte(crit, '.'); i >= 0 {
		word = crit[i+1:] // trait_ranges.WWT: rows say "WWT 1.9, asked …"
	}
	for _, r := range rows {
		if strings.Contains(r, word) {
			return r
		}
	}
	if len(rows) > 0 {
		return rows[0]
	}
	return ""
}
