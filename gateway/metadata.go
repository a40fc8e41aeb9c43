package gateway

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	appviews "github.com/nsip-tools/nsip-mcp/gateway/views"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// What initialize says about the server besides its name and version.
const (
	serverTitle       = "NSIP sheep genetics"
	serverDescription = "Read-only access to the National Sheep Improvement Program's genetic evaluations " +
		"(EBVs, pedigrees, progeny) for sheep breeders, with answers kept within a token budget."
	serverWebsite = "https://github.com/nsip-tools/nsip-mcp"
)

// serverOptions are the capabilities and metadata beyond the tools.
func (g *Gateway) serverOptions() []server.ServerOption {
	hooks := &server.Hooks{}
	g.unknownToolHooks(hooks) // first: the task hooks then see the tool the call is handed to
	g.seen.Hooks(hooks)
	calllog.SessionHooks(hooks, g.log)
	g.features.AddHooks(hooks)
	if g.offersToolset(toolsets.Analysis) {
		g.tasks.AddHooks(hooks)
	}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		res.Instructions = g.Instructions()
	})
	// Clients of protocol 2026-07-28 and later ask server/discover instead.
	hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Instructions = g.Instructions()
	})
	// A call answered again from its kept result needs none of the
	// middlewares after answerKept (the session's record of its calls
	// among them), so it comes first.
	opts := append(g.features.Options(), server.WithToolHandlerMiddleware(g.answerKept))
	opts = append(opts, g.running.Options(hooks, g.log)...)
	return append(opts,
		server.WithTitle(serverTitle),
		server.WithDescription(serverDescription),
		server.WithWebsiteURL(serverWebsite),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(g.unknownToolMiddleware),
	)
}

// addFeatures registers the resources, templates and prompts, and the
// tools' views.
func (g *Gateway) addFeatures(s *server.MCPServer) {
	g.features.Register(s)
	s.AddResourceTemplates(g.full.ResourceTemplate())
	s.AddResources(appviews.Resources()...)
}

// Instructions is what initialize tells a model: the tools, resources and
// prompts, and, once this server has fetched it, the date of the NSIP
// evaluation its figures come from. It never calls NSIP itself: a client's
// handshake should not wait on, or fail with, the upstream.
func (g *Gateway) Instructions() string {
	text := g.intro
	if date := g.EvaluationDate(); date != "" {
		text += " The figures come from the NSIP evaluation of " + date + "; say so when a decision depends on them"
		if g.offers(lookup.LastUpdate.Name) {
			text += ", and check " + toolname.GetLastUpdate + " in long sessions"
		}
		text += "."
	}
	return text
}

// EvaluationDate is the date of the latest NSIP evaluation as NSIP gave it,
// if an answer to nsip_get_last_update is in the cache, else "".
func (g *Gateway) EvaluationDate() string {
	r, err := lookup.LastUpdate.Keyed(lookup.NoArgs{})
	if err != nil {
		return ""
	}
	e, ok := g.cache.Peek(r.Key)
	if !ok {
		return ""
	}
	if a, ok := e.Value.(*upstream.Answer); ok {
		if lu, ok := a.Value.(*nsip.LastUpdate); ok {
			return lu.Date
		}
	}
	return ""
}
