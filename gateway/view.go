package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// MaxTokenCap is the most tokens any call may ask for with max_tokens,
// whatever the server's configured cap.
const MaxTokenCap = 25000

// minMaxTokens is the smallest max_tokens: below it a summary cannot hold
// one row of a page.
const minMaxTokens = 256

// defaultMaxBudget is the server's default cap on max_tokens.
const defaultMaxBudget = 8000

var (
	// views are all the view arguments, so that the code that reads one
	// names it by its field.
	views = param.MustStruct[struct {
		lookup.ViewTraits
		lookup.ViewSkip
		lookup.ViewBudget
	}](lookup.ArgTable)
	argTraits    = views.Name("Traits")
	argSkip      = views.Name("Skip")
	argMaxTokens = views.Name("MaxTokens")
	// argPageSize is the size of the page that skip is within: SearchArgs's
	// and ProgenyArgs's PageSize, which are named alike.
	argPageSize = lookup.SearchAnimals.Args.Name("PageSize")

	// analysisView is the view of an analysis tool: max_tokens.
	analysisView = param.MustStruct[lookup.ViewBudget](lookup.ArgTable)
)

// withMaxTokens is an analysis's arguments followed by max_tokens, which
// every tool takes.
func withMaxTokens(ps ...param.Spec) []param.Spec { return append(ps, analysisView.Specs...) }

// view is how the caller asked to see an answer.
type view struct {
	budget int // 0: the server's default, with the share rule
	traits []string
	skip   int
}

func (v view) set() bool { return v.budget > 0 || len(v.traits) > 0 || v.skip > 0 }

// splitView separates the view arguments of d from those that go to NSIP.
func splitView(d *lookup.Def, args map[string]any) (map[string]any, view) {
	var v view
	base := d.NoView(args)
	if len(base) == len(args) {
		return args, v
	}
	v.budget, _ = args[argMaxTokens].(int)
	v.skip, _ = args[argSkip].(int)
	if list, ok := args[argTraits].([]any); ok {
		for _, c := range list {
			v.traits = append(v.traits, c.(string))
		}
	}
	return base, v
}

// checkView applies the rules that depend on the server or on other
// arguments: max_tokens within the configured cap, skip within the page.
func (g *Gateway) checkView(args map[string]any) []param.FieldError {
	var errs []param.FieldError
	if n, ok := args[argMaxTokens].(int); ok && (n < minMaxTokens || n > g.cfg.MaxBudget) {
		problem := fmt.Sprintf("is %d, above this server's cap of %d tokens (NSIP_MAX_TOKEN_BUDGET)", n, g.cfg.MaxBudget)
		if n < minMaxTokens {
			problem = fmt.Sprintf("is %d; a budget under %d tokens cannot hold a row", n, minMaxTokens)
		}
		errs = append(errs, param.FieldError{Field: argMaxTokens, Problem: problem, Expected: fmt.Sprintf("integer %d..%d", minMaxTokens, g.cfg.MaxBudget)})
	}
	if s, ok := args[argSkip].(int); ok {
		if size, ok := args[argPageSize].(int); ok && s >= size {
			errs = append(errs, param.FieldError{
				Field:    argSkip,
				Problem:  fmt.Sprintf("is %d, but the page has only %d rows", s, size),
				Expected: fmt.Sprintf("integer 0..%d (less than %s)", size-1, argPageSize),
			})
		}
	}
	return errs
}

// fixViewExample makes the example call of an error valid on this server:
// max_tokens within the cap, skip within the page.
func (g *Gateway) fixViewExample(ex map[string]any) {
	if n, ok := ex[argMaxTokens].(int); ok && (n < minMaxTokens || n > g.cfg.MaxBudget) {
		ex[argMaxTokens] = g.cfg.MaxBudget
	}
	if s, ok := ex[argSkip].(int); ok {
		if size, ok := ex[argPageSize].(int); ok && s >= size {
			delete(ex, argSkip)
		}
	}
}

// traitNotes points out requested codes the glossary does not know, with
// the closest one it does; they are still used, as breeds carry codes
// beyond the glossary.
func traitNotes(args map[string]any) []string {
	list, _ := args[argTraits].([]any)
	var notes []string
	for _, c := range list {
		code := c.(string)
		if _, ok := nsip.LookupTrait(code); ok {
			continue
		}
		n := fmt.Sprintf("trait %s is not in the glossary; rows without it show null", code)
		if s, _, ok := param.SuggestTrait(code, nsip.GlossaryCodes()); ok {
			n += fmt.Sprintf("; did you mean %s?", s)
		}
		notes = append(notes, n)
	}
	return notes
}

// fitView fits an answer for the view the caller asked for. Such fits are
// not cached: the cache holds the default one.
func (g *Gateway) fitView(ctx context.Context, kind summarize.Kind, d *lookup.Def, args map[string]any, v view, value any, raw json.RawMessage) (summarize.Result, error) {
	req := summarize.Request{
		Kind: kind, Value: value, Raw: raw, Tool: d.Name, Args: args,
		Budget: g.cfg.Budget, Traits: v.traits, Skip: v.skip,
	}
	if v.budget > 0 {
		req.Budget, req.Requested = v.budget, true
	}
	return g.fitRequest(ctx, req)
}

// pagingMeta adds where a paged answer sits to _meta.
func pagingMeta(meta map[string]any, p *summarize.Paging) {
	if p == nil {
		return
	}
	meta["page"], meta["page_size"], meta["total_count"] = p.Page, p.PageSize, p.TotalCount
	if p.Next != nil {
		meta["next"] = p.Next
	}
	if p.NextWithheld != "" {
		meta["next_withheld"] = p.NextWithheld
	}
	// Said here for every answer, pass-throughs included, whose text is
	// NSIP's byte for byte and so cannot say it itself.
	if p.Contradicting != nil {
		meta["contradicting_criteria"] = p.Contradicting
	}
}
