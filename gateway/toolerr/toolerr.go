// Package toolerr is the error contract of the tools: the body an error
// result carries ({"error": {...}}), its codes, and [Map], which turns a
// failure of a call into that body and into what the operator's log
// should say of it.
//
// A caller describes the tool ([About]) and the server's state the
// wording depends on ([Env]), maps the error, logs the [Note] and renders
// the body with [Error.Result]; an analysis's own failures are mapped
// first with [Analysis]. Nothing here keeps state or logs.
package toolerr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/gateway/health"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/tooldef"
	"github.com/nsip-tools/nsip-mcp/gateway/upstream"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// Error codes a tool result can carry. They are part of the public contract.
const (
	CodeInvalidArgument     = "invalid_argument"
	CodeNotFound            = "not_found"
	CodeRateLimited         = "rate_limited"
	CodeUpstreamUnavailable = "upstream_unavailable"
	CodeUpstreamError       = "upstream_error"
	CodeTimeout             = "timeout"
	CodeUnexpectedResponse  = "unexpected_response"
	CodeCanceled            = "canceled"
	// CodeNoData is NSIP saying it has nothing for a valid request, such
	// as trait ranges of a breed with too few evaluated animals.
	CodeNoData = "no_data"
	// CodeMisconfigured is a server setting, NSIP_BASE_URL, that does not
	// lead to the NSIP API: only the operator can fix it.
	CodeMisconfigured = "misconfigured"
)

// Codes lists every error code, for counting calls by outcome.
var Codes = []string{
	CodeInvalidArgument, CodeNotFound, CodeRateLimited, CodeUpstreamUnavailable,
	CodeUpstreamError, CodeTimeout, CodeUnexpectedResponse, CodeCanceled, CodeNoData, CodeMisconfigured,
}

// Error is the body of an error result: {"error": {...}}. Only the fields
// that apply to a code are set.
type Error struct {
	Code              string             `json:"code"`
	Field             string             `json:"field,omitempty"`
	Value             any                `json:"value,omitempty"`
	Problem           string             `json:"problem"`
	Expected          string             `json:"expected,omitempty"`
	Example           *param.Call        `json:"example,omitzero"` // left out with no arguments, as an empty object was
	Next              string             `json:"next,omitempty"`
	RetryAfterSeconds int                `json:"retry_after_seconds,omitempty"`
	RetryInSeconds    int                `json:"retry_in_seconds,omitempty"`
	Capacity          *health.Capacity   `json:"remaining_capacity,omitempty"`
	Also              []param.FieldError `json:"also,omitempty"` // further invalid arguments
	// Input, when set, is not an error: the call asks its user and is
	// made again with the answer. Result returns it as it is.
	Input *mcp.CallToolResult `json:"-"`
}

// Result renders the error as an IsError tool result.
func (e *Error) Result() *mcp.CallToolResult {
	if e.Input != nil {
		return e.Input
	}
	// Every field holds plain JSON values (Value came from the decoded
	// arguments), so encoding cannot fail.
	b, _ := nsip.PlainJSON(map[string]*Error{"error": e})
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: true}
}

// InvalidArgs turns validation problems into one error: the first in full,
// the next few listed and the rest counted (param.MaxProblems), so that
// none is hidden and the error stays small however many there are.
// example is a call of the tool that would pass.
func InvalidArgs(example *param.Call, errs []param.FieldError) *Error {
	errs = param.Cap(errs)
	first := errs[0]
	e := &Error{
		Code:     CodeInvalidArgument,
		Field:    first.Field,
		Problem:  first.Field + " " + first.Problem,
		Expected: first.Expected,
		Example:  example,
		Also:     errs[1:],
	}
	if first.Field == "arguments" {
		e.Problem = "arguments " + first.Problem
	}
	return e
}

// ErrBreakerOpen is returned instead of calling NSIP while the breaker is open.
var ErrBreakerOpen = upstream.ErrBreakerOpen

// ErrFitWait wraps the context error of a call whose answer arrived but
// ended while waiting for a turn to be summarized: NSIP is not to blame.
var ErrFitWait = errors.New("waiting to summarize the answer")

// About is what the wording of an error reads of the tool that failed.
type About struct {
	Subject string       // the argument naming what the tool looks up, such as lpn_id
	What    string       // what the subject names, for "NSIP has no <What> <value>"
	Next    string       // what to do when NSIP has no such thing
	Specs   []param.Spec // the tool's arguments: the example and NSIP's parameter names
	// PageSize is the tool's page-size argument, "" when it takes none.
	PageSize string
}

// AboutTool is what an error's wording reads of the tool d; pageSize
// names the page-size argument of the tools that page, which becomes the
// About's PageSize when d takes it.
func AboutTool(d *tooldef.Def, pageSize string) About {
	a := About{Subject: d.Subject, What: d.What, Next: d.Next, Specs: d.Args.Specs}
	if d.Takes(pageSize) {
		a.PageSize = pageSize
	}
	return a
}

// Env is the server's state an error's wording depends on.
type Env struct {
	Capacity       func() health.Capacity // read only for a rate limit
	RetryIn        time.Duration          // until the breaker lets a call through
	Misconfigured  bool                   // the breaker opened on a configuration shown wrong
	BaseURL        string                 // the client's base URL; "" when it does not tell
	CallTimeout    time.Duration
	RequestTimeout time.Duration // the client's per-request limit; 0 when it does not tell
}

// Note is what the operator's log gets of an error, and whether it
// showed the server's configuration wrong.
type Note struct {
	Level         slog.Level
	Msg           string
	Attrs         []slog.Attr
	Misconfigured bool
}

// Map is the error the model sees for err, a failure of the tool about
// describes called with args, and what the log should say of it. It
// depends on nothing but its arguments: the caller logs the note and
// remembers when it showed the configuration wrong.
func Map(err error, about About, args param.Sent, env Env) (*Error, Note) {
	var rl *upstream.RateLimited
	if errors.As(err, &rl) {
		return rateLimited(fmt.Sprintf("too many NSIP requests (%s)", rl.Reason), rl.RetryAfter, env), Note{}
	}
	if errors.Is(err, ErrBreakerOpen) {
		return breakerOpen(env), Note{}
	}
	var ne *nsip.Error
	if !errors.As(err, &ne) {
		switch {
		// A profile joins its parts' errors, so this comes only after
		// looking for what NSIP said about one of them (not found, say).
		case errors.Is(err, ErrFitWait):
			return fitWaitError(about, err, env), Note{}
		case errors.Is(err, context.DeadlineExceeded):
			return timeoutError(nil, env), Note{}
		case errors.Is(err, context.Canceled):
			return &Error{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}, Note{}
		}
		return &Error{Code: CodeUpstreamError, Problem: "NSIP request failed: " + err.Error(), Next: "retry in a few seconds"}, Note{}
	}
	switch ne.Kind {
	case nsip.KindMisconfigured:
		return misconfiguredError(ne, err)
	case nsip.KindConnection:
		return connectionError(ne, err, env)
	}
	if te := nsipError(about, args, ne, env); te != nil {
		return te, Note{}
	}
	var note Note
	if ne.Err != nil {
		note = Note{Level: slog.LevelWarn, Msg: "nsip request failed", Attrs: []slog.Attr{slog.String("kind", ne.Kind.String()),
			slog.String("endpoint", nsip.EndpointName(ne.Endpoint)), slog.Any("error", err)}}
	}
	return &Error{Code: CodeUpstreamError, Problem: "NSIP failed: " + publicText(ne), Next: "retry in a few seconds"}, note
}

// rateLimited is a refusal for lack of capacity, ours or NSIP's.
func rateLimited(why string, after time.Duration, env Env) *Error {
	c := env.Capacity()
	return &Error{
		Code:              CodeRateLimited,
		Problem:           fmt.Sprintf("%s; retry after %d s", why, upstream.Seconds(after)),
		RetryAfterSeconds: upstream.Seconds(after),
		Capacity:          &c,
		Next:              "wait, then repeat the same call",
	}
}

// breakerOpen is a call refused while the breaker is open, naming the
// setting when a configuration shown wrong opened it.
func breakerOpen(env Env) *Error {
	in := upstream.Seconds(env.RetryIn)
	if env.Misconfigured {
		return &Error{
			Code: CodeUpstreamUnavailable,
			Problem: fmt.Sprintf("NSIP could not be reached at the address in %s on recent calls, so calls fail at once for the next %d s",
				baseURLSetting(env.BaseURL), in),
			RetryInSeconds: in,
			Next:           MisconfiguredNext,
		}
	}
	return &Error{
		Code:           CodeUpstreamUnavailable,
		Problem:        fmt.Sprintf("NSIP is unavailable after repeated failures; retry in %d s", in),
		RetryInSeconds: in,
		Next:           "retry later; answers already fetched stay available from the cache",
	}
}

// nsipError is what NSIP said of the request, in the kinds that need no
// log line; nil for the others.
func nsipError(about About, args param.Sent, ne *nsip.Error, env Env) *Error {
	switch ne.Kind {
	case nsip.KindNotFound:
		v, _ := args.Value(about.Subject)
		return &Error{Code: CodeNotFound, Field: about.Subject, Value: v,
			Problem: fmt.Sprintf("NSIP has no %s %v", about.What, param.JSONText(v)), Next: about.Next}
	case nsip.KindInvalidArgument:
		field := about.Subject
		if f := fieldFor(about, ne.Param); f != "" {
			field = f
		}
		return &Error{Code: CodeInvalidArgument, Field: field,
			Problem: "NSIP rejected the request: " + firstNonEmpty(ne.Reason, publicText(ne)),
			Example: param.Example(about.Specs, args)}
	case nsip.KindRateLimited:
		return rateLimited("NSIP asked us to slow down", ne.RetryAfter, env)
	case nsip.KindTimeout:
		return timeoutError(ne, env)
	case nsip.KindCanceled:
		return &Error{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}
	case nsip.KindNoData:
		v, _ := args.Value(about.Subject)
		return &Error{Code: CodeNoData, Field: about.Subject, Value: v,
			Problem: firstNonEmpty(ne.Reason, publicText(ne)),
			Next:    "the breed ID is valid: search its animals with " + toolname.SearchAnimals + " (without trait filters), or pick another breed from " + toolname.ListBreeds}
	case nsip.KindFormatChanged:
		return &Error{Code: CodeUnexpectedResponse,
			Problem: fmt.Sprintf("NSIP's answer format changed: %s sent JSON this server cannot read (%s)", ne.Endpoint, upstream.ReasonHead(ne.Reason)),
			Next:    "retrying will not help until this server understands NSIP's new format; tell the server's operator (its /healthz lists the change)"}
	case nsip.KindUnexpectedResponse:
		return &Error{Code: CodeUnexpectedResponse,
			Problem: "NSIP answered with something that is not the expected JSON: " + firstNonEmpty(ne.Reason, publicText(ne)),
			Next:    "retry later; NSIP may be serving an error page"}
	}
	return nil
}

// misconfiguredError is NSIP_BASE_URL shown not to lead to the NSIP API.
// The endpoint and reason may quote the upstream's address: the
// operator's log gets them, the model the setting to fix.
func misconfiguredError(ne *nsip.Error, err error) (*Error, Note) {
	return &Error{
			Code:    CodeMisconfigured,
			Problem: "the server's NSIP_BASE_URL setting does not lead to the NSIP API: " + misconfiguredReason(ne),
			Next:    MisconfiguredNext,
		}, Note{Level: slog.LevelError, Msg: "NSIP_BASE_URL does not lead to the NSIP API", Misconfigured: true, Attrs: []slog.Attr{
			slog.String("endpoint", nsip.EndpointName(ne.Endpoint)), slog.Int("status", ne.Status),
			slog.String("reason", ne.Reason), slog.Any("error", err)}}
}

// connectionError is NSIP not reached. The cause names the upstream's
// address, which is the operator's business: it goes to the log, the
// model gets the kind of failure.
func connectionError(ne *nsip.Error, err error, env Env) (*Error, Note) {
	note := Note{Level: slog.LevelWarn, Msg: "nsip connection failed", Attrs: []slog.Attr{
		slog.String("endpoint", nsip.EndpointName(ne.Endpoint)), slog.Int("attempts", ne.Attempts),
		slog.String("reason", ne.Reason), slog.Any("error", err)}}
	if misconfigured(ne, env.BaseURL) {
		note.Misconfigured = true
		return &Error{
			Code:    CodeUpstreamError,
			Problem: "could not connect to NSIP: " + connectionReason(ne) + "; " + baseURLSetting(env.BaseURL) + " or its machine's network is wrong",
			Next:    MisconfiguredNext,
		}, note
	}
	return &Error{
		Code:    CodeUpstreamError,
		Problem: "could not connect to NSIP: " + connectionReason(ne),
		Next:    "retry in a minute; if it keeps failing, NSIP or the network to it is down",
	}, note
}

// publicText is ne's message without its underlying cause, which may carry
// the upstream's URL and addresses.
func publicText(ne *nsip.Error) string {
	c := *ne
	c.Err = nil
	return c.Error()
}

// connectionReason says why NSIP could not be reached, in terms that hold no
// host names, addresses or ports.
func connectionReason(ne *nsip.Error) string {
	var dnsErr *net.DNSError
	switch {
	case errors.As(ne.Err, &dnsErr):
		return "its host name could not be resolved (DNS)"
	case errors.Is(ne.Err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(ne.Err, syscall.ECONNRESET):
		return "connection reset"
	}
	switch ne.Reason { // the client's own classification, when the cause is gone
	case "connection refused", "connection reset":
		return ne.Reason
	case "cannot resolve the API host":
		return "its host name could not be resolved (DNS)"
	}
	return "the network connection failed"
}

// misconfiguredReason says what showed NSIP_BASE_URL wrong, without the
// address it holds.
func misconfiguredReason(ne *nsip.Error) string {
	switch {
	case ne.Status == 404:
		return "the server there answers 404 for endpoints NSIP has (unset, it is " + nsip.DefaultBaseURL + ", with its /api path)"
	case ne.Status == 400:
		return "it says http, but the server there speaks HTTPS"
	case ne.Status == 200:
		return "the server there sends web pages where NSIP sends JSON (unset, it is " + nsip.DefaultBaseURL + ")"
	case errors.Is(ne, http.ErrSchemeMismatch):
		return "it says https, but the server there speaks plain HTTP"
	}
	return "the TLS certificate of the server there is not trusted"
}

// baseURLSetting names the NSIP_BASE_URL setting with what it holds
// (baseURL, "" when the client does not tell), as far as the model may
// know it: the public API's address, or that it was set to another
// server, whose address (perhaps private, perhaps holding credentials)
// only the log shows.
func baseURLSetting(baseURL string) string {
	switch {
	case baseURL == "":
		return "the server's NSIP_BASE_URL setting"
	case strings.TrimSuffix(baseURL, "/") == nsip.DefaultBaseURL:
		return "the server's NSIP_BASE_URL setting (unset or set to the public NSIP API, " + nsip.DefaultBaseURL + ")"
	}
	return "the server's NSIP_BASE_URL setting (set to a server other than the public NSIP API; the server's log names it)"
}

// MisconfiguredNext is the advice (Next) of every error that shows NSIP
// unreachable because of the server's configuration.
const MisconfiguredNext = "a retry will not help until that is fixed: tell the user to check NSIP_BASE_URL where this server " +
	"is configured, and that its machine is online; the server's log shows the address it tried"

// misconfigured reports whether a connection failure comes from the
// server's configuration rather than an outage: a host name that does not
// resolve, or a refused connection at a base URL someone set instead of the
// public API's (which refuses only when NSIP itself is down).
func misconfigured(ne *nsip.Error, baseURL string) bool {
	var dnsErr *net.DNSError
	if errors.As(ne.Err, &dnsErr) || ne.Reason == "cannot resolve the API host" {
		return true
	}
	refused := errors.Is(ne.Err, syscall.ECONNREFUSED) || ne.Reason == "connection refused"
	return refused && baseURL != "" && strings.TrimSuffix(baseURL, "/") != nsip.DefaultBaseURL
}

// fitWaitError is for an answer NSIP gave that ended, cancelled or out of
// time, while waiting for its turn to be summarized.
func fitWaitError(about About, err error, env Env) *Error {
	if errors.Is(err, context.Canceled) {
		return &Error{Code: CodeCanceled, Problem: "the call was cancelled while NSIP's answer waited to be summarized"}
	}
	next := "retry in a few seconds"
	if about.PageSize != "" {
		next += "; a smaller " + about.PageSize + " needs less summarizing"
	}
	return &Error{
		Code: CodeTimeout,
		Problem: fmt.Sprintf("NSIP answered, but the server was busy summarizing other large answers and did not reach this one "+
			"before the call's deadline (%s)", env.CallTimeout),
		Next: next,
	}
}

// timeoutError says which deadline ran out: the client's limit on each
// request, NSIP's own (HTTP 408), or the gateway's limit on the whole call.
// ne is nil when the gateway's deadline passed outside the client.
func timeoutError(ne *nsip.Error, env Env) *Error {
	e := &Error{Code: CodeTimeout, Next: "retry; for searches, a smaller page_size answers faster"}
	tries := ""
	if ne != nil && ne.Attempts > 1 {
		tries = fmt.Sprintf(", on any of %d attempts", ne.Attempts)
	}
	perRequest, callTimeout := env.RequestTimeout, env.CallTimeout
	switch {
	case ne == nil:
		// Not the client's doing: a context that ended while the call
		// waited, which may be the caller's rather than ours.
		e.Problem = fmt.Sprintf("NSIP did not answer before this call's deadline passed; the gateway allows each call up to %s", callTimeout)
	case ne.Status == 408:
		e.Problem = "NSIP gave up on the request itself (HTTP 408 Request Timeout)" + tries
	case !callDeadline(ne) && perRequest > 0 && perRequest < callTimeout:
		// The client's per-request limit is the shorter one and it is not
		// the call's deadline that ended the request.
		e.Problem = fmt.Sprintf("NSIP did not answer within %s, the time limit for one request%s", perRequest, tries)
	default:
		e.Problem = fmt.Sprintf("NSIP did not answer within %s, the time limit for one call", callTimeout)
		if ne.Attempts > 1 {
			e.Problem += fmt.Sprintf(" (%d attempts made)", ne.Attempts)
		}
	}
	return e
}

// callDeadline reports whether the client stopped because the context it was
// given ran out (the gateway's call deadline): it then carries the context's
// own error, not a transport failure that wraps one.
func callDeadline(ne *nsip.Error) bool {
	return ne.Err == context.DeadlineExceeded
}

// fieldFor maps an NSIP query parameter name (lpnId, pageSize) to the tool's
// argument name.
func fieldFor(about About, apiParam string) string {
	fold := func(s string) string {
		out := make([]rune, 0, len(s))
		for _, r := range s {
			if r != '_' {
				out = append(out, r|0x20)
			}
		}
		return string(out)
	}
	for _, p := range about.Specs {
		if apiParam != "" && fold(p.Name) == fold(apiParam) {
			return p.Name
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// ServesStale reports whether a failure is one where an older answer is
// better than none: the upstream is down, slow or refusing us, as opposed to
// answering definitively about the request.
func ServesStale(err error) bool {
	var ne *nsip.Error
	if errors.As(err, &ne) {
		switch ne.Kind {
		case nsip.KindNotFound, nsip.KindInvalidArgument, nsip.KindCanceled, nsip.KindNoData:
			return false
		}
		return true
	}
	return !errors.Is(err, context.Canceled)
}
