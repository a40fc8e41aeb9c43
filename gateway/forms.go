package gateway

import (
	"context"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/elicit"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
)

// A call that lacks a choice only its user can make asks them through
// gateway/elicit; what follows turns its replies into tool results.

// codeInputRequired is the status a call that stopped to ask its user is
// logged and counted with; the client sees the form, not an error.
const codeInputRequired = "input_required"

// formTool is d as its forms name it.
func formTool(d *tooldef.Def) elicit.Tool {
	return elicit.Tool{Name: d.Name, Title: d.Title, Specs: d.Args.Specs}
}

// ask puts q to the user of the calling client (elicit.Asker.Ask); a
// *toolerr.Error is the reply to return.
func (g *Gateway) ask(ctx context.Context, d *tooldef.Def, example func(param.Sent) *param.Call, q analysis.Form) (answers analysis.Answers, te *toolerr.Error, asked bool) {
	answers, r, asked := g.forms.Ask(ctx, formTool(d), q)
	return answers, replyError(example, r), asked
}

// askMissing fills the required arguments of d that validation found
// missing and are the user's to choose (elicit.Asker.AskMissing). ok is
// false when nothing was asked; a non-nil *toolerr.Error is the result to
// return.
func (g *Gateway) askMissing(ctx context.Context, d *toolDef, sent param.Sent, errs []param.FieldError) (param.Sent, *toolerr.Error, bool) {
	filled, r, asked := g.forms.AskMissing(ctx, formTool(d.Def), sent, errs)
	return filled, replyError(d.example, r), asked
}

// replyError is r as the model sees it: the input request that asks, or
// an invalid argument.
func replyError(example func(param.Sent) *param.Call, r *elicit.Reply) *toolerr.Error {
	switch {
	case r == nil:
		return nil
	case r.Input != nil:
		return &toolerr.Error{Code: codeInputRequired, Field: r.Field, Problem: r.Problem, Input: r.Input}
	case len(r.Invalid) > 0:
		te := toolerr.InvalidArgs(example(r.Sent), r.Invalid)
		te.Problem = "the user's answer: " + te.Problem
		if r.Example != nil {
			te.Example = r.Example
		}
		return te
	}
	return &toolerr.Error{Code: toolerr.CodeInvalidArgument, Field: r.Field, Problem: r.Problem, Expected: r.Expected, Example: r.Example, Next: r.Next}
}

// answeredError carries an error result already worded for the model, such
// as the user declining to answer, out of an analysis.
type answeredError struct{ te *toolerr.Error }

func (e *answeredError) Error() string { return e.te.Problem }
