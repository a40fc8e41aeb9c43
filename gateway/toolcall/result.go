package toolcall

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// Fitted is the result of a call whose answer was fitted into budget:
// its text, then more, and in _meta what every tool reports of the fit
// beside the caller's own entries in meta.
func Fitted(res summarize.Result, budget int, meta *Meta, more ...mcp.Content) *mcp.CallToolResult {
	meta.fit, meta.budget = res, budget
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: meta.fields()}},
		Content: append([]mcp.Content{mcp.NewTextContent(res.Text)}, more...),
	}
}

// Meta is what an answer reports in _meta beside its text: where it
// came from, where a page sits, what its complete data is, and how it was
// fitted. The members are those the tools' contracts document
// (specs/contracts); each is written only when it applies. mcp-go holds
// _meta as a JSON object, which Fitted writes once, at the edge.
type Meta struct {
	Cache    string            // a lookup's: hit, miss or stale
	Upstream any               // an analysis's reads (analysis.Upstream)
	Paging   *summarize.Paging // a page's place
	Read     []string          // how the caller's words were read (Call.Read)
	Notes    []string          // trait codes the glossary does not know
	Stale    bool              // served from a stale entry while NSIP failed
	StaleAge int               // its age, in seconds
	Why      string            // the error code NSIP failed with
	Format   string            // a note that NSIP's answer was in a shape not recognized
	Full     *full.Meta        // the links to a summarized answer's complete data
	fit      summarize.Result  // the answer's fit: tokens, and whether summarized
	budget   int               // the budget it was fitted to
}

// fields is m as the members of _meta.
func (m *Meta) fields() map[string]any {
	// Room for a plain hit's members without growing.
	out := make(map[string]any, 8)
	if m.Cache != "" {
		out["cache"] = m.Cache
	}
	if m.Upstream != nil {
		out["upstream"] = m.Upstream
	}
	if p := m.Paging; p != nil {
		out["page"], out["page_size"], out["total_count"] = p.Page, p.PageSize, p.TotalCount
		if p.Next != nil {
			out["next"] = p.Next
		}
		if p.TotalCountNote != "" {
			out["total_count_note"] = p.TotalCountNote
		}
		if p.NextWithheld != "" {
			out["next_withheld"] = p.NextWithheld
		}
		if h := p.StatusHeld; h != nil {
			out["status_held"] = h
			out["total_count"] = h.Count // null unless proven: NSIP's count is of every status
		}
		// Said here for every answer, pass-throughs included, whose text
		// is NSIP's byte for byte and so cannot say it itself.
		if p.Contradicting != nil {
			out["contradicting_criteria"] = p.Contradicting
		}
	}
	if len(m.Read) > 0 {
		out["read"] = m.Read
	}
	if len(m.Notes) > 0 {
		out["notes"] = m.Notes
	}
	if m.Stale {
		out["stale_age_seconds"], out["stale_reason"] = m.StaleAge, m.Why
	}
	if m.Format != "" {
		out["shape_recognized"], out["format_note"] = false, m.Format
	}
	if m.Full != nil {
		out["full"] = *m.Full
	}
	out["tokens"], out["original_tokens"] = m.fit.Tokens, m.fit.OriginalTokens
	out["summarized"], out["budget"] = m.fit.Summarized, m.budget
	return out
}
