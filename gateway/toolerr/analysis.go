package toolerr

import (
	"errors"
	"fmt"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/nsip/breeding"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Analysis is the error for an analysis's own failures: an argument the
// data refused, a user's answer that did not validate, a pedigree too
// large, a ceiling of time or lookups reached. example makes a call of
// the analysis that would pass, from what was sent; ceiling is its limit
// of NSIP lookups and timeLimit its limit of time. Analysis returns nil
// for a failure of NSIP, which the caller maps with [Map] and [AboutFailed].
func Analysis(err error, example func() *param.Call, ceiling int, timeLimit time.Duration) *Error {
	var ae *analysis.ArgError
	if errors.As(err, &ae) {
		te := InvalidArgs(example(), []param.FieldError{ae.FieldError})
		if fe := (*analysis.FixedArgError)(nil); errors.As(err, &fe) {
			te.Example.Apply(fe.Fix...)
		}
		return te
	}
	var ue *analysis.AnswerError
	if errors.As(err, &ue) {
		te := InvalidArgs(example(), ue.Errs)
		te.Problem = "the user's answer: " + te.Problem
		return te
	}
	if errors.Is(err, breeding.ErrTooComplex) {
		return &Error{
			Code:    CodeUnexpectedResponse,
			Problem: "the pedigree NSIP gave behind these animals is too large to compute inbreeding from (" + err.Error() + ")",
			Next:    "check pairs one at a time with " + toolname.CheckMating + ", which answers without the COI when it cannot compute it",
		}
	}
	if errors.Is(err, analysis.ErrTimeLimit) {
		return &Error{
			Code: CodeTimeout,
			Problem: fmt.Sprintf("the analysis reached the time limit of one call (%s) before it had what it needs to answer",
				timeLimit),
			Next: "call again: the NSIP answers read so far are cached, so the next call gets further; or narrow the request (fewer animals, tighter filters)",
		}
	}
	if errors.Is(err, analysis.ErrCeiling) {
		return &Error{
			Code:    CodeInvalidArgument,
			Problem: fmt.Sprintf("the analysis needs more than its ceiling of %d NSIP lookups", ceiling),
			Next:    "narrow the request (fewer animals, tighter filters)",
		}
	}
	return nil
}

// AboutFailed is what to map a failure of NSIP during an analysis with:
// the tool, or, when the failure was about one argument the caller sent
// (an animal, by default), that argument and its value.
func AboutFailed(tool About, sent param.Sent, err error) (About, param.Sent) {
	var ab *analysis.AboutError
	if !errors.As(err, &ab) {
		return tool, sent
	}
	tool.Subject, tool.What = ab.Field, "animal with LPN ID"
	tool.Next = "check the LPN ID, or find animals with " + toolname.SearchAnimals
	if ab.What != "" {
		tool.What, tool.Next = ab.What, ab.Next
	}
	return tool, param.Sent{}.With(ab.Field, ab.Value)
}
