package gateway

import (
	"fmt"

	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/nsiparg"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

var (
	// views are all the view arguments, so that the code that reads one
	// names it by its field.
	views = param.MustStruct[struct {
		lookup.ViewTraits
		lookup.ViewSkip
		param.Budget
	}](lookup.ArgTable)
	argTraits    = views.Name("Traits")
	argSkip      = views.Name("Skip")
	argMaxTokens = views.Name("MaxTokens")
	// argPageSize is the size of the page that skip is within.
	argPageSize = lookup.ArgPageSize
)

// viewOf is the view that the validated arguments args of a tool taking
// a ask for: only the view arguments a declares count, so that an
// argument of the same name that is the tool's own (nsip_compare_animals's
// traits) shapes no view.
func viewOf(a *param.Args, args param.Valid) toolcall.View {
	var v toolcall.View
	if a.IsView(argMaxTokens) {
		v.Budget, _ = args.Int(argMaxTokens)
	}
	if a.IsView(argSkip) {
		v.Skip, _ = args.Int(argSkip)
	}
	if a.IsView(argTraits) {
		v.Traits = args.Strings(argTraits)
	}
	return v
}

// checkView applies the rules that depend on the server or on other
// arguments: max_tokens within the configured cap, skip within the page.
func (g *Gateway) checkView(c toolcall.Call) []param.FieldError {
	var errs []param.FieldError
	if n, ok := c.Args.Int(argMaxTokens); ok && (n < minMaxTokens || n > g.cfg.MaxBudget) {
		problem := fmt.Sprintf("is %d, above this server's cap of %d tokens (NSIP_MAX_TOKEN_BUDGET)", n, g.cfg.MaxBudget)
		if n < minMaxTokens {
			problem = fmt.Sprintf("is %d; a budget under %d tokens cannot hold a row", n, minMaxTokens)
		}
		errs = append(errs, param.FieldError{Field: argMaxTokens, Problem: problem, Expected: fmt.Sprintf("integer %d..%d", minMaxTokens, g.cfg.MaxBudget)})
	}
	if s, ok := c.Args.Int(argSkip); ok {
		if size, ok := c.Args.Int(argPageSize); ok && s >= size {
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
func (g *Gateway) fixViewExample(ex *param.Call) {
	if n, ok := intArg(ex, argMaxTokens); ok && (n < minMaxTokens || n > g.cfg.MaxBudget) {
		ex.Set(argMaxTokens, g.cfg.MaxBudget)
	}
	if s, ok := intArg(ex, argSkip); ok {
		if size, ok := intArg(ex, argPageSize); ok && s >= size {
			ex.Delete(argSkip)
		}
	}
}

// intArg is the example's argument name when it is a validated integer.
func intArg(ex *param.Call, name string) (int, bool) {
	v, _ := ex.Value(name)
	n, ok := v.(int)
	return n, ok
}

// traitNotes points out requested codes the glossary does not know, with
// the closest one it does; they are still used, as breeds carry codes
// beyond the glossary.
func traitNotes(v toolcall.View) []string {
	var notes []string
	for _, code := range v.Traits {
		if _, ok := nsip.LookupTrait(code); ok {
			continue
		}
		n := fmt.Sprintf("trait %s is not in the glossary; rows without it show null", code)
		if s, _, ok := nsiparg.SuggestTrait(code, nsip.GlossaryCodes()); ok {
			n += fmt.Sprintf("; did you mean %s?", s)
		}
		notes = append(notes, n)
	}
	return notes
}
