package summarize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Kind names the shape of an upstream answer, which picks its summarizer.
type Kind string

const (
	KindAnimal  Kind = "animal_details" // *nsip.AnimalDetails
	KindSearch  Kind = "search_results" // *nsip.SearchResults
	KindProgeny Kind = "progeny"        // *nsip.ProgenyPage
	KindLineage Kind = "lineage"        // *nsip.Lineage
	KindProfile Kind = "animal_profile" // *nsip.AnimalProfile
	KindGeneric Kind = "generic"        // anything else: last update, breeds, statuses, trait ranges
)

// DefaultBudget is the spec's threshold: answers of at most this many tokens
// pass through unmodified, larger ones are summarized to fit under it.
const DefaultBudget = 2000

// MaxSummaryShare is the largest share of the original's tokens a summary
// may use (SC-002 asks for summaries 70% smaller than the full answer).
const MaxSummaryShare = 0.30

// Request is one upstream answer to fit into a budget.
type Request struct {
	Kind  Kind
	Value any             // the decoded nsip model matching Kind; may be nil for KindGeneric
	Raw   json.RawMessage // the exact upstream JSON
	// OriginalTokens is the token count of the compacted Raw when the caller
	// already knows it (the gateway caches it); 0 means count it here.
	OriginalTokens int
	Tool           string         // the MCP tool that produced the answer, for next-call hints
	Args           map[string]any // that tool's arguments with defaults filled in, for next-call hints
	Budget         int            // 0 (or less) means DefaultBudget

	// View options the caller chose. Any of them makes the answer a
	// summary, fitted within Budget alone: the share rule protects only
	// the automatic path.
	Requested bool     // Budget was asked for (max_tokens), not the server's default
	Traits    []string // the trait codes every row carries, exactly; nil lets the summarizer choose
	Skip      int      // rows at the start of the page the caller has already seen

	// Deadline, when set, bounds the fit: past it counting stops and the
	// result is a short note, which the caller should discard.
	Deadline time.Time
}

// view reports whether the caller chose how the answer looks.
// A page held to a status word is one too: it is summarized however
// small, and so not held to the share of a page too large for the budget.
func (r Request) view() bool { return r.Requested || len(r.Traits) > 0 || r.Skip > 0 || r.held() }

// held reports whether r is a search page held to a status word of
// several statuses, which a summary leaves the others out of.
func (r Request) held() bool { return heldWord(r.Args) != nil && kindOf(r.Kind) == KindSearch }

// Paging is where a paged answer sits in its result set, for _meta.
type Paging struct {
	Page       int       `json:"page"`
	PageSize   int       `json:"page_size"`
	TotalCount int       `json:"total_count"`
	Next       *NextCall `json:"next,omitempty"` // nil after the last row
	// NextWithheld says why Next is nil although NSIP counts rows after
	// the page: the page, sorted by a trait the call bounds, proves that
	// none of them can meet the bound.
	NextWithheld string `json:"next_withheld,omitempty"`
	// Contradicting counts the rows of the answer that contradict the
	// call's criteria, and says whether the text leaves them out.
	Contradicting *Contradicting `json:"contradicting,omitempty"`
	// StatusHeld counts the rows left out by a status word of several
	// statuses; total_count is then as it says (statusheld.go).
	StatusHeld *StatusHeld `json:"status_held,omitempty"`
}

// Result is what the client receives.
type Result struct {
	Text           string // compact JSON: the upstream answer itself, or its summary
	Tokens         int    // cl100k_base tokens of Text
	OriginalTokens int    // tokens of the compacted upstream answer
	Summarized     bool
	// Kind is the request's kind for a pass-through, and otherwise the
	// format of the summary in Text: KindGeneric when the shape-aware
	// summarizer could not be used and the structural one stood in.
	Kind Kind
	// Paging is set for search and progeny pages, whether passed through or
	// summarized: Next follows on from the last row the text shows.
	Paging *Paging
}

// IsObject reports whether Text is a JSON object: NSIP's own, a summary or
// an analysis's answer. Such a text can be a result's structuredContent
// verbatim, so that a host which hands its model the structured copy, or
// both unless they are the same, hands it no more than the text.
func (r Result) IsObject() bool { return strings.HasPrefix(r.Text, "{") }

// Summarizer applies the budget policy. It is safe for concurrent use.
type Summarizer struct{ counter *Counter }

// New returns a Summarizer counting with c.
func New(c *Counter) *Summarizer { return &Summarizer{counter: c} }

// Fit returns the answer as the client should see it: the compacted upstream
// JSON when it has at most Budget tokens, otherwise a summary of at most
// Budget tokens and at most MaxSummaryShare of the original's. It never
// fails: a shape it cannot summarize gets the structural summary, and an
// answer nothing can shrink far enough gets a short note instead.
func (s *Summarizer) Fit(req Request) Result {
	budget := req.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	s = &Summarizer{counter: s.counter.until(req.Deadline)}
	orig := original(req)
	res := Result{Kind: kindOf(req.Kind), OriginalTokens: req.OriginalTokens}
	if res.OriginalTokens <= 0 {
		res.OriginalTokens = s.counter.Count(string(orig))
	}
	// Asking for traits or skipping rows shapes the answer even when the
	// whole of it would fit; a larger max_tokens alone does not.
	// So does a status word of several statuses, whose rows of the other
	// statuses NSIP's page holds (statusheld.go).
	shaped := len(req.Traits) > 0 || req.Skip > 0 || req.held()
	if res.OriginalTokens <= budget && (!shaped || kindOf(req.Kind) == KindGeneric) {
		// The text is the counted text, so its count is already known.
		res.Text, res.Tokens = string(orig), res.OriginalTokens
		res.Paging = paging(req, nil, nil)
		withContradicting(res.Paging, req, false)
		return res
	}
	limit := max(budget-SummaryMargin, 1)
	if !req.view() {
		limit = min(limit, int(float64(res.OriginalTokens)*MaxSummaryShare))
	}
	f := &fitter{c: s.counter, limit: limit, density: density(orig, res.OriginalTokens)}
	text, kind := s.summarize(f, req, orig, budget)
	res.Text, res.Kind, res.Summarized = string(text), kind, true
	res.Tokens = s.counter.Count(res.Text)
	res.Paging = paging(req, text, f)
	// Only the page summaries leave contradicting rows out; the structural
	// summary and the notes stand in for NSIP's answer as sent.
	withContradicting(res.Paging, req, kind == kindOf(req.Kind))
	return res
}

// withContradicting notes in p the rows of req's page that contradict its
// criteria, saying whether the text left them out.
func withContradicting(p *Paging, req Request, leftOut bool) {
	if p == nil {
		return
	}
	if c := contradictions(req); c != nil {
		if !leftOut {
			c.Effect = effectShown
		}
		p.Contradicting = c
	}
}

// paging reads where the answer sits from the model, and the next call
// from the summary's own hint (nil text: a pass-through, which shows every
// row, so the next call is the next page). A structural summary stands in
// for a page without saying which rows it shows, so its next call starts
// again at the first row not skipped, one row at a time (pager.next with
// nothing shown), which is sure to fit. A page summary f rendered is not
// decoded again: f knows its next call.
func paging(req Request, text []byte, f *fitter) *Paging {
	var pg pager
	switch v := req.Value.(type) {
	case *nsip.SearchResults:
		if v == nil {
			return nil
		}
		pg = searchPager(v, req)
	case *nsip.ProgenyPage:
		if v == nil {
			return nil
		}
		pg = progenyPager(v, req.Args, req.Skip)
	default:
		return nil
	}
	p := &Paging{Page: pg.page, PageSize: pg.size, TotalCount: pg.total}
	if v, ok := req.Value.(*nsip.SearchResults); ok {
		p.StatusHeld = statusHeld(v, req.Args)
	}
	if text == nil {
		p.Next, p.NextWithheld = pg.nextOrWhy(pg.rows - pg.skip)
		return p
	}
	if next, ok := f.nextIn(text); ok {
		p.NextWithheld = f.withheldIn(text)
		// Read back from its own JSON, a few dozen bytes, so that it holds
		// what a decoded summary would (float64 numbers, no maps shared with
		// the call's arguments) and survives the shared tier's round trip
		// unchanged.
		if b, err := json.Marshal(next); err == nil {
			var n *NextCall
			if json.Unmarshal(b, &n) == nil {
				p.Next = n
				return p
			}
		}
	}
	var s struct {
		Kind     Kind      `json:"kind"`
		Next     *NextCall `json:"next"`
		Withheld string    `json:"next_withheld"`
	}
	if json.Unmarshal(text, &s) == nil && s.Kind == kindOf(req.Kind) {
		p.Next, p.NextWithheld = s.Next, s.Withheld
	} else {
		p.Next, p.NextWithheld = pg.nextOrWhy(0)
	}
	return p
}

// summarize tries the shape-aware summarizer, then the structural one, then
// the fallback notes. Only the notes are sized against budget rather than
// the tighter share limit, for answers too small to have a useful summary.
func (s *Summarizer) summarize(f *fitter, req Request, orig []byte, budget int) ([]byte, Kind) {
	kind := kindOf(req.Kind)
	if kind != KindGeneric {
		if out, err := guard(func() ([]byte, error) { return shapeSummary(f, kind, req) }); err == nil {
			return out, kind
		}
	}
	if out, err := guard(func() ([]byte, error) { return genericSummary(f, kind, orig) }); err == nil {
		return out, KindGeneric
	}
	return note(f, kind, budget), KindGeneric
}

// errNoFit means a summarizer found nothing of its shape within the limit.
var errNoFit = errors.New("summarize: no summary of this shape fits the limit")

// guard turns a panic in a summarizer into an error, so an unforeseen input
// costs a fallback rather than the server.
func guard(fn func() ([]byte, error)) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("summarize: summarizer panicked: %v", r)
		}
	}()
	return fn()
}

// kindOf maps an unknown or empty kind to the structural summarizer.
func kindOf(k Kind) Kind {
	switch k {
	case KindAnimal, KindSearch, KindProgeny, KindLineage, KindProfile:
		return k
	}
	return KindGeneric
}

// original is the answer as passed through: Raw compacted. A caller that
// only has the model gets the model's own upstream bytes or its encoding; a
// body that is not JSON at all is carried as one JSON string, so the text
// the client receives is always JSON and still holds every byte.
func original(req Request) []byte {
	raw := req.Raw
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = modelRaw(req.Value)
	}
	if len(bytes.TrimSpace(raw)) == 0 && req.Value != nil {
		if b, err := nsip.PlainJSON(req.Value); err == nil {
			raw = b
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		b, _ := nsip.PlainJSON(string(raw))
		return b
	}
	return buf.Bytes()
}

// density estimates tokens per byte of JSON like the original, to guess
// how many rows fit before counting any.
func density(orig []byte, tokens int) float64 {
	if len(orig) == 0 || tokens <= 0 {
		return 0.5
	}
	return float64(tokens) / float64(len(orig))
}
