package features

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Completions fill in the arguments of resource templates and prompts:
// breed IDs (by ID prefix or by breed name), trait codes, statuses, and the
// LPN IDs this caller has already met, in its arguments or in NSIP's
// answers. Each argument's param.Spec says which it takes. Breeds and
// statuses come through the gateway's call path, so they are cached like
// the tools' answers.

// maxCompletions is the most values one answer carries, as the MCP
// specification allows; total and hasMore say when there were more.
const maxCompletions = 100

// completer answers completion/complete for prompts and resource templates.
type completer struct{ f *Features }

var (
	_ server.PromptCompletionProvider   = completer{}
	_ server.ResourceCompletionProvider = completer{}
)

func (c completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	var p *param.Spec
	if d := promptByName(prompt); d != nil {
		if i := slices.IndexFunc(d.args, func(a promptArg) bool { return a.name == arg.Name }); i >= 0 {
			p = d.args[i].check
		}
	}
	return c.f.complete(ctx, p, arg.Value), nil
}

func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	var p *param.Spec
	if i := slices.IndexFunc(resourceDefs, func(d *resourceDef) bool { return d.template && d.uri == uri }); i >= 0 {
		d, name := resourceDefs[i], arg.Name
		if a, ok := d.vars[name]; ok {
			name = a
		}
		p = param.Named(c.f.t.Params(d.tool), name)
	}
	return c.f.complete(ctx, p, arg.Value), nil
}

// complete suggests values for argument p, if it offers any, from what
// has been typed.
func (f *Features) complete(ctx context.Context, p *param.Spec, typed string) *mcp.Completion {
	var all []string
	if p != nil {
		switch p.Complete {
		case param.Breeds:
			all = f.breedCompletions(ctx, typed)
		case param.Statuses:
			all = withPrefix(f.statusCompletions(ctx), typed)
		case param.Traits:
			all = withPrefix(nsip.GlossaryCodes(), typed)
		case param.LPNs:
			all = withPrefix(f.t.SeenLPNs(ctx), typed)
		}
	}
	out := &mcp.Completion{Values: all}
	if len(all) > maxCompletions {
		out.Values, out.Total, out.HasMore = all[:maxCompletions], len(all), true
	}
	if out.Values == nil {
		out.Values = []string{}
	}
	return out
}

// statusCompletions are NSIP's statuses, then the words the tools read as
// statuses ("living", "usable"), but for a word that is a status itself.
func (f *Features) statusCompletions(ctx context.Context) []string {
	st, _ := f.t.Statuses(ctx)
	out := slices.Clone(st)
	for _, w := range nsip.StatusWords() {
		if !slices.ContainsFunc(st, func(s string) bool { return strings.EqualFold(s, w) }) {
			out = append(out, w)
		}
	}
	return out
}

// withPrefix keeps the values starting with typed, ignoring case.
func withPrefix(values []string, typed string) []string {
	typed = strings.ToUpper(strings.TrimSpace(typed))
	var out []string
	for _, v := range values {
		if strings.HasPrefix(strings.ToUpper(v), typed) {
			out = append(out, v)
		}
	}
	return out
}

// breedCompletions offers breed IDs whose digits start with typed, or, when
// typed is a word, whose breed name contains it ("kat" offers 640).
func (f *Features) breedCompletions(ctx context.Context, typed string) []string {
	bg, ok := f.t.Breeds(ctx)
	if !ok || bg == nil {
		return nil
	}
	typed = strings.TrimSpace(typed)
	_, numeric := strconv.Atoi(typed)
	var out []string
	for _, grp := range bg.Groups {
		for _, b := range grp.Breeds {
			id := strconv.Itoa(b.ID)
			if (numeric == nil || typed == "") && strings.HasPrefix(id, typed) ||
				numeric != nil && strings.Contains(strings.ToLower(b.Name), strings.ToLower(typed)) {
				out = append(out, id)
			}
		}
	}
	return out
}
