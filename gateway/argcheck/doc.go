// Package argcheck finds the mistakes in a call that only NSIP's own lists
// reveal, before NSIP is asked or when its answer is empty, and says how
// to put each right: a tool name this server does not offer
// ([UnknownTools]), trait codes the breed searched does not publish
// ([Breeds.CheckTraits]), a breed ID NSIP does not have
// ([Breeds.Unknown]), and a search status NSIP does not record and no word
// means ([CheckStatus]).
//
// Each check hands back what a caller needs to fix the call (the field,
// what was wrong, what is expected, an example that works) as a
// [Refusal] or [param.FieldError]s; the gateway gives it the error code
// and renders it. The lists it checks against (the tools offered, a
// breed's trait ranges, NSIP's breed list) are read through callbacks, so
// they come cached, rate limited and counted like any other answer.
package argcheck

import "github.com/nsip-tools/nsip-mcp/gateway/param"

// Refusal is what a check says is wrong with a call: the field to fix,
// the value sent, the problem, what is expected, an example of a correct
// call and what to do next. The gateway adds the error code.
type Refusal struct {
	Field    string
	Value    any
	Problem  string
	Expected string
	Example  *param.Call
	Next     string
}
