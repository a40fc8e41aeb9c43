package gateway

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/features"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/session"
	"github.com/nsip-tools/nsip-mcp/gateway/source"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// featureTools is the gateway as resources, prompts and completions read
// through it (features.Tools).
type featureTools struct{ g *Gateway }

var _ features.Tools = featureTools{}

// Call calls the lookup tool named; resources read only lookups.
func (t featureTools) Call(ctx context.Context, tool string, args param.Sent) *mcp.CallToolResult {
	d := toolNamed(tool)
	if d == nil || lookup.Named(tool) == nil {
		return (&toolerr.Error{Code: toolerr.CodeInvalidArgument, Problem: "no tool " + tool}).Result()
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = d.Name
	req.Params.Arguments = args
	return t.g.call(ctx, d, req)
}

func (t featureTools) Offers(tool string) bool { return t.g.offers(tool) }

func (t featureTools) Params(tool string) []param.Spec {
	if d := lookup.Named(tool); d != nil {
		return d.Args.Specs
	}
	return nil
}

func (t featureTools) Breeds(ctx context.Context) (*nsip.BreedGroups, bool) {
	return readList(ctx, t.g, source.Reads.Breeds)
}

func (t featureTools) Statuses(ctx context.Context) ([]string, bool) {
	st, ok := readList(ctx, t.g, source.Reads.Statuses)
	if !ok {
		return nil, false
	}
	return st.Values, true
}

func (t featureTools) SeenLPNs(ctx context.Context) []string {
	return t.g.seen.List(session.ID(ctx))
}

// InvalidArgs is a prompt's invalid arguments as a tool's are worded.
func (t featureTools) InvalidArgs(_ string, errs []param.FieldError) string {
	tc, _ := mcp.AsTextContent(toolerr.InvalidArgs(nil, errs).Result().Content[0])
	return tc.Text
}
