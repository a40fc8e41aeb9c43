package gateway

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

	"github.com/nsip-tools/nsip-mcp/gateway/param"
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

var errorCodes = []string{
	CodeInvalidArgument, CodeNotFound, CodeRateLimited, CodeUpstreamUnavailable,
	CodeUpstreamError, CodeTimeout, CodeUnexpectedResponse, CodeCanceled, CodeNoData, CodeMisconfigured,
}

// toolError is the body of an error result: {"error": {...}}. Only the fields
// that apply to a code are set.
type toolError struct {
	Code              string             `json:"code"`
	Field             string             `json:"field,omitempty"`
	Value             any                `json:"value,omitempty"`
	Problem           string             `json:"problem"`
	Expected          string             `json:"expected,omitempty"`
	Example           map[string]any     `json:"example,omitempty"`
	Next              string             `json:"next,omitempty"`
	RetryAfterSeconds int                `json:"retry_after_seconds,omitempty"`
	RetryInSeconds    int                `json:"retry_in_seconds,omitempty"`
	Capacity          *Capacity          `json:"remaining_capacity,omitempty"`
	Also              []param.FieldError `json:"also,omitempty"` // further invalid arguments
	// input, when set, is not an error: the call asks its user and is
	// made again with the answer (elicit.go).
	input *mcp.CallToolResult
}

// result renders the error as an IsError tool result.
func (e *toolError) result() *mcp.CallToolResult {
	if e.input != nil {
		return e.input
	}
	// Every field holds plain JSON values (Value came from the decoded
	// arguments), so encoding cannot fail.
	b, _ := nsip.PlainJSON(map[string]*toolError{"error": e})
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: true}
}

// invalidArgs turns validation problems into one error: the first in full,
// the next few listed and the rest counted (param.MaxProblems), so that
// none is hidden and the error stays small however many there are.
func invalidArgs(d *toolDef, args map[string]any, errs []param.FieldError) *toolError {
	errs = param.Cap(errs)
	first := errs[0]
	e := &toolError{
		Code:     CodeInvalidArgument,
		Field:    first.Field,
		Problem:  first.Field + " " + first.Problem,
		Expected: first.Expected,
		Example:  param.Example(d.args.Specs, args),
		Also:     errs[1:],
	}
	if first.Field == "arguments" {
		e.Problem = "arguments " + first.Problem
	}
	return e
}

// errBreakerOpen is returned instead of calling NSIP while the breaker is open.
var errBreakerOpen = upstream.ErrBreakerOpen

// errFitWait wraps the context error of a call whose answer arrived but
// ended while waiting for a turn to be summarized: NSIP is not to blame.
var errFitWait = errors.New("waiting to summarize the answer")

// rateLimitError is a refusal for lack of capacity, local or upstream.
type rateLimitError = upstream.RateLimited

// mapError turns a pipeline or client failure into what the model sees.
func (g *Gateway) mapError(d *toolDef, args map[string]any, err error) *toolError {
	var rl *rateLimitError
	if errors.As(err, &rl) {
		c := g.capacity()
		return &toolError{
			Code:              CodeRateLimited,
			Problem:           fmt.Sprintf("too many NSIP requests (%s); retry after %d s", rl.Reason, upstream.Seconds(rl.RetryAfter)),
			RetryAfterSeconds: upstream.Seconds(rl.RetryAfter),
			Capacity:          &c,
			Next:              "wait, then repeat the same call",
		}
	}
	if errors.Is(err, errBreakerOpen) {
		in := g.retryIn()
		if g.misconfiguredAt.Load() > g.pool.LastSuccess() {
			return &toolError{
				Code: CodeUpstreamUnavailable,
				Problem: fmt.Sprintf("NSIP could not be reached at the address in %s on recent calls, so calls fail at once for the next %d s",
					g.baseURLSetting(), upstream.Seconds(in)),
				RetryInSeconds: upstream.Seconds(in),
				Next:           misconfiguredNext,
			}
		}
		return &toolError{
			Code:           CodeUpstreamUnavailable,
			Problem:        fmt.Sprintf("NSIP is unavailable after repeated failures; retry in %d s", upstream.Seconds(in)),
			RetryInSeconds: upstream.Seconds(in),
			Next:           "retry later; answers already fetched stay available from the cache",
		}
	}
	var ne *nsip.Error
	if !errors.As(err, &ne) {
		switch {
		// A profile joins its parts' errors, so this comes only after
		// looking for what NSIP said about one of them (not found, say).
		case errors.Is(err, errFitWait):
			return g.fitWaitError(d, err)
		case errors.Is(err, context.DeadlineExceeded):
			return g.timeoutError(nil)
		case errors.Is(err, context.Canceled):
			return &toolError{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}
		}
		return &toolError{Code: CodeUpstreamError, Problem: "NSIP request failed: " + err.Error(), Next: "retry in a few seconds"}
	}
	switch ne.Kind {
	case nsip.KindNotFound:
		v := args[d.subject]
		return &toolError{
			Code:    CodeNotFound,
			Field:   d.subject,
			Value:   v,
			Problem: fmt.Sprintf("NSIP has no %s %v", d.what, param.JSONText(v)),
			Next:    d.next,
		}
	case nsip.KindInvalidArgument:
		field := d.subject
		if f := fieldFor(d, ne.Param); f != "" {
			field = f
		}
		return &toolError{
			Code:    CodeInvalidArgument,
			Field:   field,
			Problem: "NSIP rejected the request: " + firstNonEmpty(ne.Reason, publicText(ne)),
			Example: param.Example(d.args.Specs, args),
		}
	case nsip.KindRateLimited:
		c := g.capacity()
		return &toolError{
			Code:              CodeRateLimited,
			Problem:           fmt.Sprintf("NSIP asked us to slow down; retry after %d s", upstream.Seconds(ne.RetryAfter)),
			RetryAfterSeconds: upstream.Seconds(ne.RetryAfter),
			Capacity:          &c,
			Next:              "wait, then repeat the same call",
		}
	case nsip.KindTimeout:
		return g.timeoutError(ne)
	case nsip.KindCanceled:
		return &toolError{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}
	case nsip.KindNoData:
		return &toolError{
			Code:    CodeNoData,
			Field:   d.subject,
			Value:   args[d.subject],
			Problem: firstNonEmpty(ne.Reason, publicText(ne)),
			Next:    "the breed ID is valid: search its animals with " + toolname.SearchAnimals + " (without trait filters), or pick another breed from " + toolname.ListBreeds,
		}
	case nsip.KindFormatChanged:
		return &toolError{
			Code: CodeUnexpectedResponse,
			Problem: fmt.Sprintf("NSIP's answer format changed: %s sent JSON this server cannot read (%s)",
				ne.Endpoint, upstream.ReasonHead(ne.Reason)),
			Next: "retrying will not help until this server understands NSIP's new format; tell the server's operator (its /healthz lists the change)",
		}
	case nsip.KindUnexpectedResponse:
		return &toolError{
			Code:    CodeUnexpectedResponse,
			Problem: "NSIP answered with something that is not the expected JSON: " + firstNonEmpty(ne.Reason, publicText(ne)),
			Next:    "retry later; NSIP may be serving an error page",
		}
	case nsip.KindMisconfigured:
		// The endpoint and reason may quote the upstream's address: the
		// operator's log gets them, the model the setting to fix.
		g.log.Error("NSIP_BASE_URL does not lead to the NSIP API",
			slog.String("endpoint", nsip.EndpointName(ne.Endpoint)), slog.Int("status", ne.Status),
			slog.String("reason", ne.Reason), slog.Any("error", err))
		g.misconfiguredAt.Store(time.Now().UnixNano()) // an open breaker then names the setting too
		return &toolError{
			Code:    CodeMisconfigured,
			Problem: "the server's NSIP_BASE_URL setting does not lead to the NSIP API: " + misconfiguredReason(ne),
			Next:    misconfiguredNext,
		}
	case nsip.KindConnection:
		// The cause names the upstream's address, which is the operator's
		// business: it goes to the log, the model gets the kind of failure.
		g.log.Warn("nsip connection failed",
			slog.String("endpoint", nsip.EndpointName(ne.Endpoint)),
			slog.Int("attempts", ne.Attempts),
			slog.String("reason", ne.Reason),
			slog.Any("error", err))
		if g.misconfigured(ne) {
			g.misconfiguredAt.Store(time.Now().UnixNano())
			return &toolError{
				Code: CodeUpstreamError,
				Problem: "could not connect to NSIP: " + connectionReason(ne) +
					"; " + g.baseURLSetting() + " or its machine's network is wrong",
				Next: misconfiguredNext,
			}
		}
		return &toolError{
			Code:    CodeUpstreamError,
			Problem: "could not connect to NSIP: " + connectionReason(ne),
			Next:    "retry in a minute; if it keeps failing, NSIP or the network to it is down",
		}
	}
	if ne.Err != nil {
		g.log.Warn("nsip request failed", slog.String("kind", ne.Kind.String()),
			slog.String("endpoint", nsip.EndpointName(ne.Endpoint)), slog.Any("error", err))
	}
	return &toolError{Code: CodeUpstreamError, Problem: "NSIP failed: " + publicText(ne), Next: "retry in a few seconds"}
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

// baseURLSetting names the NSIP_BASE_URL setting with what it holds, as far
// as the model may know it: the public API's address, or that it was set to
// another server, whose address (perhaps private, perhaps holding
// credentials) only the log shows.
func (g *Gateway) baseURLSetting() string {
	b, ok := g.up.(interface{ BaseURL() string })
	switch {
	case !ok:
		return "the server's NSIP_BASE_URL setting"
	case strings.TrimSuffix(b.BaseURL(), "/") == nsip.DefaultBaseURL:
		return "the server's NSIP_BASE_URL setting (unset or set to the public NSIP API, " + nsip.DefaultBaseURL + ")"
	}
	return "the server's NSIP_BASE_URL setting (set to a server other than the public NSIP API; the server's log names it)"
}

// misconfiguredNext is the advice for NSIP unreachable by configuration.
const misconfiguredNext = "a retry will not help until that is fixed: tell the user to check NSIP_BASE_URL where this server " +
	"is configured, and that its machine is online; the server's log shows the address it tried"

// misconfigured reports whether a connection failure comes from the
// server's configuration rather than an outage: a host name that does not
// resolve, or a refused connection at a base URL someone set instead of the
// public API's (which refuses only when NSIP itself is down).
func (g *Gateway) misconfigured(ne *nsip.Error) bool {
	var dnsErr *net.DNSError
	if errors.As(ne.Err, &dnsErr) || ne.Reason == "cannot resolve the API host" {
		return true
	}
	refused := errors.Is(ne.Err, syscall.ECONNREFUSED) || ne.Reason == "connection refused"
	b, ok := g.up.(interface{ BaseURL() string })
	return refused && ok && strings.TrimSuffix(b.BaseURL(), "/") != nsip.DefaultBaseURL
}

// fitWaitError is for an answer NSIP gave that ended, cancelled or out of
// time, while waiting for its turn to be summarized.
func (g *Gateway) fitWaitError(d *toolDef, err error) *toolError {
	if errors.Is(err, context.Canceled) {
		return &toolError{Code: CodeCanceled, Problem: "the call was cancelled while NSIP's answer waited to be summarized"}
	}
	next := "retry in a few seconds"
	if d.hasParam(argPageSize) {
		next += "; a smaller " + argPageSize + " needs less summarizing"
	}
	return &toolError{
		Code: CodeTimeout,
		Problem: fmt.Sprintf("NSIP answered, but the server was busy summarizing other large answers and did not reach this one "+
			"before the call's deadline (%s)", g.cfg.CallTimeout),
		Next: next,
	}
}

// timeoutError says which deadline ran out: the client's limit on each
// request, NSIP's own (HTTP 408), or the gateway's limit on the whole call.
// ne is nil when the gateway's deadline passed outside the client.
func (g *Gateway) timeoutError(ne *nsip.Error) *toolError {
	e := &toolError{Code: CodeTimeout, Next: "retry; for searches, a smaller page_size answers faster"}
	tries := ""
	if ne != nil && ne.Attempts > 1 {
		tries = fmt.Sprintf(", on any of %d attempts", ne.Attempts)
	}
	perRequest := g.requestTimeout()
	switch {
	case ne == nil:
		// Not the client's doing: a context that ended while the call
		// waited, which may be the caller's rather than ours.
		e.Problem = fmt.Sprintf("NSIP did not answer before this call's deadline passed; the gateway allows each call up to %s", g.cfg.CallTimeout)
	case ne.Status == 408:
		e.Problem = "NSIP gave up on the request itself (HTTP 408 Request Timeout)" + tries
	case !callDeadline(ne) && perRequest > 0 && perRequest < g.cfg.CallTimeout:
		// The client's per-request limit is the shorter one and it is not
		// the call's deadline that ended the request.
		e.Problem = fmt.Sprintf("NSIP did not answer within %s, the time limit for one request%s", perRequest, tries)
	default:
		e.Problem = fmt.Sprintf("NSIP did not answer within %s, the time limit for one call", g.cfg.CallTimeout)
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

// requestTimeout is the client's limit on each request, when it tells.
func (g *Gateway) requestTimeout() time.Duration {
	if t, ok := g.up.(interface{ Timeout() time.Duration }); ok {
		return t.Timeout()
	}
	return 0
}

// fieldFor maps an NSIP query parameter name (lpnId, pageSize) to the tool's
// argument name.
func fieldFor(d *toolDef, apiParam string) string {
	fold := func(s string) string {
		out := make([]rune, 0, len(s))
		for _, r := range s {
			if r != '_' {
				out = append(out, r|0x20)
			}
		}
		return string(out)
	}
	for _, p := range d.args.Specs {
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

// servesStale reports whether a failure is one where an older answer is
// better than none: the upstream is down, slow or refusing us, as opposed to
// answering definitively about the request.
func servesStale(err error) bool {
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
