package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// A misspelt tool name is a mistake like a misspelt argument, and answers
// as one: an error result naming the tools it may have meant, which a model
// reads and acts on, where mcp-go answers a JSON-RPC error -32602 that many
// hosts show the user instead. mcp-go looks the tool up before any
// middleware runs, so the hook below hands an unknown name's call to a tool
// that exists, marked with the name asked; the middleware answers a marked
// call with the error before that tool's handler runs. The mark is a Go
// value no client can send.

// unknownToolKey is where in a call's _meta the mark is kept.
const unknownToolKey = "nsip-mcp/unknown-tool"

// unknownTool is the mark: the name the caller asked for.
type unknownTool struct{ name string }

// nearestTools is how many tool names an unknown name's error offers.
const nearestTools = 3

// unknownToolHooks marks calls of tools this server does not offer.
func (g *Gateway) unknownToolHooks(h *server.Hooks) {
	h.AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) {
		names := g.offeredToolNames()
		if slices.Contains(names, req.Params.Name) || len(names) == 0 {
			return
		}
		if req.Params.Meta == nil {
			req.Params.Meta = &mcp.Meta{}
		}
		if req.Params.Meta.AdditionalFields == nil {
			req.Params.Meta.AdditionalFields = map[string]any{}
		}
		req.Params.Meta.AdditionalFields[unknownToolKey] = &unknownTool{name: req.Params.Name}
		// A tool every configuration offers and none runs as a task: the
		// call never reaches it.
		req.Params.Name, req.Params.Task = names[0], nil
	})
}

// unknownToolMiddleware answers a marked call with its error.
func (g *Gateway) unknownToolMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta != nil {
			if u, ok := req.Params.Meta.AdditionalFields[unknownToolKey].(*unknownTool); ok {
				g.log.Debug("call of an unknown tool", slog.String("tool", param.QuoteShort(u.name)))
				te := unknownToolError(u.name, g.offeredToolNames())
				if lookupTool(u.name) != nil || analysisNamedTool(u.name) != nil {
					te.Problem = fmt.Sprintf("this server does not offer %s: the server's NSIP_TOOLSETS setting leaves out its toolset (it offers %s)",
						u.name, strings.Join(g.cfg.Toolsets, ", "))
				}
				return te.result(), nil
			}
		}
		return next(ctx, req)
	}
}

// unknownToolError names the tools nearest to name, the likeliest first.
func unknownToolError(name string, tools []string) *toolError {
	problem := fmt.Sprintf("this server has no tool %s", param.QuoteShort(name))
	// Value, unlike problem, is the name itself: cut, not quoted.
	if r := []rune(name); len(r) > param.MaxShown {
		name = string(r[:param.MaxShown]) + "…" // the error repeats a bounded part of what was sent
	}
	near := closestNames(name, tools, nearestTools)
	if c, ok := param.Closest(name, tools); ok {
		problem += fmt.Sprintf("; did you mean %q?", c)
		// The guess leads, whatever the count of edits says.
		near = slices.DeleteFunc(near, func(n string) bool { return n == c })
		near = append([]string{c}, near...)[:min(len(near)+1, nearestTools)]
	}
	return &toolError{
		Code:     CodeInvalidArgument,
		Field:    "name",
		Value:    name,
		Problem:  problem,
		Expected: "a tool this server offers, the nearest being " + strings.Join(near, ", ") + "; all: " + strings.Join(tools, ", "),
		Next:     "call " + near[0] + " if it is the one meant; tools/list describes each tool",
	}
}

// closestNames are the n names nearest to s by edits, ignoring case and
// separators, the nearest first (ties in the order given).
func closestNames(s string, names []string, n int) []string {
	fold := func(x string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(x))
	}
	if r := []rune(s); len(r) > param.MaxShown {
		s = string(r[:param.MaxShown]) // a long name costs no more than a short one
	}
	fs := fold(s)
	type scored struct {
		name string
		d    int
	}
	all := make([]scored, len(names))
	for i, x := range names {
		all[i] = scored{x, param.Levenshtein(fs, fold(x))}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, n)
	for _, x := range all[:min(n, len(all))] {
		out = append(out, x.name)
	}
	return out
}
