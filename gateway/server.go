package gateway

// Building the gateway and the MCP server over it: what wires every part
// together, and so stands above them all.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	appviews "github.com/nsip-tools/nsip-mcp/gateway/views"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sync/semaphore"

	"github.com/nsip-tools/nsip-mcp/cache"
	"github.com/nsip-tools/nsip-mcp/gateway/elicit"
	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/full"
	"github.com/nsip-tools/nsip-mcp/gateway/session"
	"github.com/nsip-tools/nsip-mcp/gateway/tasks"
	"github.com/nsip-tools/nsip-mcp/gateway/toolcall"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/gateway/toolsets"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// New builds a gateway over up, fitting results with sum.
func New(up Upstream, sum *summarize.Summarizer, cfg Config) (*Gateway, error) {
	if up == nil || sum == nil {
		return nil, errors.New("gateway: an upstream and a summarizer are required")
	}
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	c, err := cache.New(cache.Config{
		TTL: cfg.CacheTTL, StaleTTL: cfg.StaleTTL,
		MaxEntries: cfg.CacheMaxEntries, MaxBytes: cfg.CacheMaxBytes, Now: cfg.Now,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g := &Gateway{
		up: up, sum: sum, cfg: cfg, log: cfg.Logger, cache: c,
		fitSlots: semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0))),
		fitFunc:  sum.Fit,
	}
	g.pool = g.newPool(c)
	g.passes = newPasses(cfg, func(key string) {
		if done := g.passFilled; done != nil {
			done(key)
		}
	})
	if g.tasks, err = tasks.New(tasks.Config{
		PerCaller: cfg.TasksPerClient, Max: cfg.TasksMax, TTL: cfg.TaskTTL, Now: cfg.Now, Logger: cfg.Logger,
	}); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.features = features.New(featureTools{g})
	g.forms = &elicit.Asker{Log: cfg.Logger, Breeds: featureTools{g}.Breeds}
	// A link lives as long as a cached answer.
	g.full = full.New(full.Config{TTL: cfg.CacheTTL, MaxBytes: cfg.FullMaxBytes, StoreBytes: 4 * cfg.FullMaxBytes, UnreadBytes: cfg.FullUnreadMaxBytes, Now: cfg.Now})
	g.intro = g.introduction()
	g.unknown = g.unknownTools()
	g.sources = make([]callSource, len(registry))
	g.memos = make([]*toolcall.Memo, len(registry))
	for i, d := range registry {
		g.sources[i] = callSource{g: g, tool: d}
		g.memos[i] = toolcall.NewMemo()
	}
	g.stats.Init(allToolNames(), toolerr.Codes) // every tool defined, offered or not
	cfg.Metrics.WatchState(g.metricsState)
	return g, nil
}

// NewMCPServer returns an MCP server offering the tools of the configured
// toolsets in the table's order, the resources, resource templates, prompts
// and completions, with panic recovery, icons, cache hints on the lists, a
// description and usage instructions. opts are applied after those, so
// callers can override them; server.WithHooks replaces the hooks that
// remember LPN IDs for completions and date the instructions, and those
// that make each task its creator's (without them an analysis asked for
// as a task answers only that it cannot run as one).
func (g *Gateway) NewMCPServer(name, version string, opts ...server.ServerOption) *server.MCPServer {
	base := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions(g.intro),
		server.WithToolFilter(toolsets.Order(allToolNames())),
		server.WithIcons(toolsets.ServerIcon()),
	}
	if g.offersToolset(toolsets.Analysis) {
		// The analysis tools run as tasks on request, each visible to its
		// creator alone (gateway/tasks, whose request hooks serverOptions adds).
		base = append(base, server.WithTaskCapabilities(true, true, true), server.WithTaskHooks(g.tasks.TaskHooks()),
			server.WithToolFilter(tasks.ToolFilter))
	}
	base = append(base, toolsets.CacheHints()...)
	s := server.NewMCPServer(name, version, append(append(base, g.serverOptions()...), opts...)...)
	g.tasks.Attach(s)
	if g.offersToolset(toolsets.Analysis) {
		g.tasks.Offer(s) // a breed pass read in the background is followed as a task
	}
	s.AddTools(g.structuredOrNot(g.Tools())...)
	g.addFeatures(s)
	return s
}

// StopTasks cancels the tasks still running, for shutdown, logging and
// returning how many there were.
func (g *Gateway) StopTasks() int { return g.tasks.Shutdown() }

// Close ends what the gateway runs on its own, for shutdown: the tasks
// still running (StopTasks), and the breed passes being read in the
// background, which it waits for. Calls in flight are the server's to end.
func (g *Gateway) Close() {
	g.StopTasks()
	g.passes.Close()
}

// TaskIssued reports whether id is a task the gateway gave a client and
// still holds (tasks.Store.Issued).
func (g *Gateway) TaskIssued(id string) bool { return g.tasks.Issued(id) }

// introduction orients a model in the tools offered at connection time; it
// names no tool this server does not offer.
func (g *Gateway) introduction() string {
	text := `Read-only access to the NSIP (National Sheep Improvement Program) Search API: sheep genetic evaluations (EBVs), pedigrees and progeny. ` +
		`Tools: ` + strings.Join(g.offeredToolNames(), ", ") + `. `
	if g.offersToolset(toolsets.Lookup) {
		text += `Typical flow: ` + toolname.ListBreeds + ` for breed IDs -> ` + toolname.SearchAnimals + ` for LPN IDs -> ` + toolname.GetAnimal + `, ` + toolname.GetLineage + `, ` + toolname.GetProgeny + `. `
	}
	return text + `Answers over the token budget are summarized; _meta.summarized and the summary itself say how to get the rest; every tool takes max_tokens to raise the budget. ` +
		`Errors are JSON {"error":{"code",...}} naming the field to fix or when to retry.` + g.features.Note()
}

// Tools returns the tools of the configured toolsets bound to this
// gateway, in registry order.
func (g *Gateway) Tools() []server.ServerTool {
	var out []server.ServerTool
	for _, d := range registry {
		if g.offersToolset(d.Toolset) {
			out = append(out, g.serverTool(d))
		}
	}
	for i := range out {
		out[i].Handler = g.forms.Wrap(out[i].Handler)
	}
	return out
}

func (g *Gateway) serverTool(d *toolDef) server.ServerTool {
	t := mcp.NewTool(d.Name,
		mcp.WithToolIcons(toolsets.Icon(d.Toolset)),
		mcp.WithToolTitle(d.Title),
		mcp.WithDescription(d.Desc),
		mcp.WithToolAnnotation(mcp.ToolAnnotation{
			Title:           d.Title,
			ReadOnlyHint:    mcp.ToBoolPtr(true),
			DestructiveHint: mcp.ToBoolPtr(false),
			IdempotentHint:  mcp.ToBoolPtr(true),
			OpenWorldHint:   mcp.ToBoolPtr(true),
		}),
	)
	t.InputSchema = d.Args.InputSchema()
	t.RawOutputSchema = d.schema
	appviews.Declare(&t)
	st := server.ServerTool{Tool: t, Handler: g.handler(d)}
	if d.tasks {
		g.asTask(&st, d)
	}
	return st
}

// asTask lets calls of d run as MCP tasks (protocol 2025-11-25): the
// client gets a task at once, polls it, and may cancel it; the task is its
// creator's alone (gateway/tasks).
func (g *Gateway) asTask(st *server.ServerTool, d *toolDef) {
	st.Tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	st.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t, err := tasks.Of(req)
		if err != nil {
			return (&toolerr.Error{Code: toolerr.CodeInvalidArgument, Field: "task", Problem: err.Error()}).Result(), nil
		}
		if t != nil {
			// The task's own context: the creating request's ends as soon
			// as the task is returned, tasks/cancel, the task's expiry and
			// shutdown end this one, and the analysis's next lookup stops.
			var done func()
			ctx, done = g.tasks.Start(ctx, t)
			defer done()
			defer g.cfg.Metrics.TaskStarted(d.Name)()
		}
		var res *mcp.CallToolResult
		session.Progress(ctx, req, g.cfg.ProgressInterval, g.log, func() { res = g.call(ctx, d, req) })
		return res, nil
	}
}
