package argcheck

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

// UnknownTools answers calls of tools the server does not offer with a
// refusal naming the nearest it does. Add its Hooks before any other
// call-tool hook, and its Middleware to the server's tool handlers.
type UnknownTools struct {
	// Offered are the names of the tools the server offers, the first one
	// that every configuration offers and none runs as a task.
	Offered func() []string
	// Defined reports whether name is a tool the server defines, though
	// its configuration may leave it out.
	Defined func(name string) bool
	// Toolsets are the toolsets the configuration offers (NSIP_TOOLSETS).
	Toolsets []string
	// Render turns the refusal into the call's error result.
	Render func(*Refusal) *mcp.CallToolResult
	Log    *slog.Logger
	// Internal reports whether a call is one the server makes of itself,
	// of a tool it lists to no one (gateway/tasks' followed work); nil
	// for none.
	Internal func(context.Context) bool
}

// unknownToolKey is where in a call's _meta the mark is kept.
const unknownToolKey = "nsip-mcp/unknown-tool"

// unknownTool is the mark: the name the caller asked for.
type unknownTool struct{ name string }

// nearestTools is how many tool names an unknown name's error offers.
const nearestTools = 3

// Hooks marks calls of tools the server does not offer.
func (u *UnknownTools) Hooks(h *server.Hooks) {
	h.AddBeforeCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest) {
		names := u.Offered()
		if slices.Contains(names, req.Params.Name) || len(names) == 0 || u.Internal != nil && u.Internal(ctx) {
			return
		}
		if req.Params.Meta == nil {
			req.Params.Meta = &mcp.Meta{}
		}
		req.Params.Meta.SetMetaField(unknownToolKey, &unknownTool{name: req.Params.Name})
		// A tool every configuration offers and none runs as a task: the
		// call never reaches it.
		req.Params.Name, req.Params.Task = names[0], nil
	})
}

// Middleware answers a marked call with its refusal.
func (u *UnknownTools) Middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if m := marked(req); m != nil {
			u.Log.Debug("call of an unknown tool", slog.String("tool", param.QuoteShort(m.name)))
			r := UnknownTool(m.name, u.Offered())
			if u.Defined(m.name) {
				r.Problem = fmt.Sprintf("this server does not offer %s: the server's NSIP_TOOLSETS setting leaves out its toolset (it offers %s)",
					m.name, strings.Join(u.Toolsets, ", "))
			}
			return u.Render(r), nil
		}
		return next(ctx, req)
	}
}

// Rerouted reports whether req is the call of an unknown tool, handed to
// a known one for Middleware to refuse.
func Rerouted(req mcp.CallToolRequest) bool { return marked(req) != nil }

// marked is the unknown tool req was made of, if it was.
func marked(req mcp.CallToolRequest) *unknownTool {
	if req.Params.Meta == nil {
		return nil
	}
	m, _ := req.Params.Meta.AdditionalFields[unknownToolKey].(*unknownTool)
	return m
}

// UnknownTool refuses a call of name, which is none of tools, naming the
// tools nearest to it, the likeliest first: by meaning (toolWords:
// nsip_top_rams means nsip_rank_animals), unless its spelling is a slip
// of a tool's name that its words do not contradict.
func UnknownTool(name string, tools []string) *Refusal {
	problem := fmt.Sprintf("this server has no tool %s", param.QuoteShort(name))
	// Value, unlike problem, is the name itself: cut, not quoted.
	if r := []rune(name); len(r) > param.MaxShown {
		name = string(r[:param.MaxShown]) + "…" // the error repeats a bounded part of what was sent
	}
	scores := meaningScores(name, tools)
	byMeaning := make([]string, 0, len(tools))
	for i, t := range tools {
		if scores[i] > 0 {
			byMeaning = append(byMeaning, t)
		}
	}
	slices.SortStableFunc(byMeaning, func(a, b string) int {
		return scores[slices.Index(tools, b)] - scores[slices.Index(tools, a)]
	})
	lead := ""
	if c, ok := param.Closest(name, tools); ok && (len(byMeaning) == 0 || scores[slices.Index(tools, c)] > 0) {
		lead = c
	} else if len(byMeaning) > 0 {
		lead = byMeaning[0]
	}
	var near []string
	for _, n := range append(append([]string{lead}, byMeaning...), closestNames(name, tools, nearestTools)...) {
		if n != "" && !slices.Contains(near, n) && len(near) < nearestTools {
			near = append(near, n)
		}
	}
	if lead != "" {
		problem += fmt.Sprintf("; did you mean %q?", lead)
	}
	return &Refusal{
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
