package gateway

import (
	"context"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
)

// invalidArgs is toolerr.InvalidArgs with the example completed for this
// server (its max_tokens cap).
func (g *Gateway) invalidArgs(d *toolDef, sent param.Sent, errs []param.FieldError) *toolerr.Error {
	return g.withExample(toolerr.InvalidArgs(d.example(sent), errs))
}

// withExample is te with its example made valid on this server.
func (g *Gateway) withExample(te *toolerr.Error) *toolerr.Error {
	g.fixViewExample(te.Example)
	return te
}

// aboutOf is what an error's wording reads of the tool d.
func aboutOf(d *tooldef.Def) toolerr.About { return toolerr.AboutTool(d, argPageSize) }

// mapError turns a pipeline or client failure of tool d into what the
// model sees.
func (g *Gateway) mapError(d *tooldef.Def, args param.Valid, err error) *toolerr.Error {
	return g.mapAbout(aboutOf(d), args.Sent(), err)
}

// mapAbout gathers what the server knows now (errorEnv), maps the error
// with the pure toolerr.Map, then logs what the operator should know and
// remembers a configuration the error showed wrong.
func (g *Gateway) mapAbout(about toolerr.About, args param.Sent, err error) *toolerr.Error {
	te, note := toolerr.Map(err, about, args, g.errorEnv())
	if note.Msg != "" {
		g.log.LogAttrs(context.Background(), note.Level, note.Msg, note.Attrs...)
	}
	if note.Misconfigured {
		g.misconfiguredAt.Store(time.Now().UnixNano()) // an open breaker then names the setting too
	}
	return te
}

// errorEnv is the server's state an error's wording depends on.
func (g *Gateway) errorEnv() toolerr.Env {
	env := toolerr.Env{Capacity: g.capacity, RetryIn: g.retryIn(), CallTimeout: g.cfg.CallTimeout,
		Misconfigured: g.misconfiguredAt.Load() > g.pool.LastSuccess()}
	if b, ok := g.up.(interface{ BaseURL() string }); ok {
		env.BaseURL = b.BaseURL()
	}
	if t, ok := g.up.(interface{ Timeout() time.Duration }); ok {
		env.RequestTimeout = t.Timeout()
	}
	return env
}
