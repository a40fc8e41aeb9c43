package gateway

import (
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// resultMeta is what an answer reports in _meta beside its text: where it
// came from, where a page sits, what its complete data is, and how it was
// fitted. The members are those the tools' contracts document
// (specs/contracts); each is written only when it applies. mcp-go holds
// _meta as a JSON object, which fields writes once, at the edge.
type resultMeta struct {
	cache    string            // a lookup's: hit, miss or stale
	upstream any               // an analysis's reads (analysis.Upstream)
	paging   *summarize.Paging // a page's place
	notes    []string          // trait codes the glossary does not know
	stale    bool              // served from a stale entry while NSIP failed
	staleAge int               // its age, in seconds
	why      string            // the error code NSIP failed with
	format   string            // a note that NSIP's answer was in a shape not recognized
	full     *full.Meta        // the links to a summarized answer's complete data
	fit      summarize.Result  // the answer's fit: tokens, and whether summarized
	budget   int               // the budget it was fitted to
}

// fields is m as the members of _meta.
func (m *resultMeta) fields() map[string]any {
	// Room for a plain hit's members without growing.
	out := make(map[string]any, 8)
	if m.cache != "" {
		out["cache"] = m.cache
	}
	if m.upstream != nil {
		out["upstream"] = m.upstream
	}
	if p := m.paging; p != nil {
		out["page"], out["page_size"], out["total_count"] = p.Page, p.PageSize, p.TotalCount
		if p.Next != nil {
			out["next"] = p.Next
		}
		if p.NextWithheld != "" {
			out["next_withheld"] = p.NextWithheld
		}
		// Said here for every answer, pass-throughs included, whose text
		// is NSIP's byte for byte and so cannot say it itself.
		if p.Contradicting != nil {
			out["contradicting_criteria"] = p.Contradicting
		}
	}
	if len(m.notes) > 0 {
		out["notes"] = m.notes
	}
	if m.stale {
		out["stale_age_seconds"], out["stale_reason"] = m.staleAge, m.why
	}
	if m.format != "" {
		out["shape_recognized"], out["format_note"] = false, m.format
	}
	if m.full != nil {
		out["full"] = *m.full
	}
	out["tokens"], out["original_tokens"] = m.fit.Tokens, m.fit.OriginalTokens
	out["summarized"], out["budget"] = m.fit.Summarized, m.budget
	return out
}
