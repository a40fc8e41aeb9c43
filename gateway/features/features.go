package features

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Tools is the gateway as the features use it.
type Tools interface {
	// Call runs the named tool with args as a tools/call would: validation,
	// cache, upstream policy and token budget included.
	Call(ctx context.Context, tool string, args param.Sent) *mcp.CallToolResult
	// Params are the named tool's arguments.
	Params(tool string) []param.Spec
	// Breeds and Statuses are NSIP's answers through the cache, or false
	// when NSIP cannot give them now.
	Breeds(ctx context.Context) (*nsip.BreedGroups, bool)
	Statuses(ctx context.Context) ([]string, bool)
	// SeenLPNs are the LPN IDs the caller has met, most recent first.
	SeenLPNs(ctx context.Context) []string
	// InvalidArgs is the JSON error body a tool answers invalid arguments
	// with; prompts answer theirs the same way.
	InvalidArgs(name string, errs []param.FieldError) string
	// Offers reports whether the named tool is listed and callable on
	// this server (the deployment may leave a toolset out).
	Offers(tool string) bool
}

// Features are the resources, resource templates, prompts and completions
// of one server.
type Features struct{ t Tools }

// New binds the features to the tools they read through.
func New(t Tools) *Features { return &Features{t: t} }

// Options are the server options that register the completion providers.
func (f *Features) Options() []server.ServerOption {
	c := completer{f}
	return []server.ServerOption{
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(c),
		server.WithResourceCompletionProvider(c),
	}
}

// Register adds the resources, templates and prompts to s.
func (f *Features) Register(s *server.MCPServer) {
	s.AddResources(f.Resources()...)
	s.AddResourceTemplates(f.ResourceTemplates()...)
	s.AddPrompts(f.Prompts()...)
}
