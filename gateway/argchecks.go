package gateway

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/argcheck"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/source"
	"github.com/nsip-tools/nsip-mcp/gateway/tasks"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// The checks of gateway/argcheck, reading NSIP's lists through the call
// path (cached, rate limited, counted), their refusals given their codes.

// refused is r as an error of code, nil when r is.
func refused(code string, r *argcheck.Refusal) *toolerr.Error {
	if r == nil {
		return nil
	}
	return &toolerr.Error{Code: code, Field: r.Field, Value: r.Value, Problem: r.Problem,
		Expected: r.Expected, Example: r.Example, Next: r.Next}
}

// unknownTools answers calls of tools this server does not offer. Its hook
// and middleware run on every call, so the names offered, fixed by the
// configuration, are listed once here rather than on each call.
func (g *Gateway) unknownTools() *argcheck.UnknownTools {
	offered := slices.Clip(g.offeredToolNames())
	return &argcheck.UnknownTools{
		Offered:  func() []string { return offered },
		Defined:  func(name string) bool { return toolNamed(name) != nil },
		Toolsets: g.cfg.Toolsets,
		Render:   func(r *argcheck.Refusal) *mcp.CallToolResult { return refused(toolerr.CodeInvalidArgument, r).Result() },
		Log:      g.log,
		Internal: tasks.Following,
	}
}

func (g *Gateway) unknownToolHooks(h *server.Hooks) { g.unknownChecks().Hooks(h) }

// unknownToolMiddleware is applied by mcp-go on every call, around the
// tool's handler, so it reuses the checks New built.
func (g *Gateway) unknownToolMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return g.unknownChecks().Middleware(next)
}

// unknownChecks are the checks New built, or new ones for a gateway that
// was not made by New.
func (g *Gateway) unknownChecks() *argcheck.UnknownTools {
	if g.unknown != nil {
		return g.unknown
	}
	return g.unknownTools()
}

// breeds checks breeds and trait codes against NSIP's lists.
func (g *Gateway) breeds() *argcheck.Breeds {
	return &argcheck.Breeds{
		List: func(ctx context.Context) (*nsip.BreedGroups, bool) {
			return readList(ctx, g, source.Reads.Breeds)
		},
		TraitRanges: func(ctx context.Context, breed int) (*nsip.TraitRanges, bool) {
			tr, err := g.nsip().TraitRanges(ctx, breed)
			return tr, err == nil
		},
		Search: lookup.SearchFields,
	}
}

// checkBreedTraits checks a search's trait codes against the breed's own
// (argcheck.Breeds.CheckTraits).
func (g *Gateway) checkBreedTraits(ctx context.Context, args param.Valid) ([]param.FieldError, []param.Edit) {
	return g.breeds().CheckTraits(ctx, args)
}

// unknownBreed refuses a breed NSIP's list does not have; nil when the
// list has it or cannot be had (argcheck.Breeds.Unknown).
func (g *Gateway) unknownBreed(ctx context.Context, field string, breed int, example *param.Call) *toolerr.Error {
	return refused(toolerr.CodeNotFound, g.breeds().Unknown(ctx, field, breed, example))
}

// checkStatus refuses a call whose search status NSIP does not record and
// no word means (argcheck.CheckStatuses): NSIP answers a status it does not
// know with an empty search, which an analysis would otherwise call an
// exact answer of nothing. The list is read through the cache.
func (g *Gateway) checkStatus(ctx context.Context, d *toolDef, args param.Valid) *toolerr.Error {
	errs, fixes := argcheck.CheckStatuses(ctx, args, func(ctx context.Context) ([]string, bool) {
		st, ok := readList(ctx, g, source.Reads.Statuses)
		return st.Values, ok
	})
	if len(errs) == 0 {
		return nil
	}
	ex := d.example(args.Sent())
	ex.Apply(fixes...)
	return g.withExample(toolerr.InvalidArgs(ex, errs))
}
