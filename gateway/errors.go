package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip"
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
)

var errorCodes = []string{
	CodeInvalidArgument, CodeNotFound, CodeRateLimited, CodeUpstreamUnavailable,
	CodeUpstreamError, CodeTimeout, CodeUnexpectedResponse, CodeCanceled,
}

// toolError is the body of an error result: {"error": {...}}. Only the fields
// that apply to a code are set.
type toolError struct {
	Code              string         `json:"code"`
	Field             string         `json:"field,omitempty"`
	Value             any            `json:"value,omitempty"`
	Problem           string         `json:"problem"`
	Expected          string         `json:"expected,omitempty"`
	Example           map[string]any `json:"example,omitempty"`
	Next              string         `json:"next,omitempty"`
	RetryAfterSeconds int            `json:"retry_after_seconds,omitempty"`
	RetryInSeconds    int            `json:"retry_in_seconds,omitempty"`
	Capacity          *Capacity      `json:"remaining_capacity,omitempty"`
	Also              []fieldError   `json:"also,omitempty"` // further invalid arguments
}

// result renders the error as an IsError tool result.
func (e *toolError) result() *mcp.CallToolResult {
	// Every field holds plain JSON values (Value came from the decoded
	// arguments), so encoding cannot fail.
	b, _ := json.Marshal(map[string]*toolError{"error": e})
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}, IsError: true}
}

// invalidArgs turns validation problems into one error: the first in full,
// the rest listed so that none is hidden.
func invalidArgs(d *toolDef, args map[string]any, errs []fieldError) *toolError {
	first := errs[0]
	e := &toolError{
		Code:     CodeInvalidArgument,
		Field:    first.Field,
		Problem:  first.Field + " " + first.Problem,
		Expected: first.Expected,
		Example:  example(d.params, args),
		Also:     errs[1:],
	}
	if first.Field == "arguments" {
		e.Problem = "arguments " + first.Problem
	}
	return e
}

// errBreakerOpen is returned instead of calling NSIP while the breaker is open.
var errBreakerOpen = errors.New("circuit breaker open")

// rateLimitError is a refusal for lack of capacity, local or upstream.
type rateLimitError struct {
	retryAfter time.Duration
	reason     string
}

func (e *rateLimitError) Error() string { return "rate limited: " + e.reason }

// seconds rounds d up to whole seconds, at least one.
func seconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// mapError turns a pipeline or client failure into what the model sees.
func (g *Gateway) mapError(d *toolDef, args map[string]any, err error) *toolError {
	var rl *rateLimitError
	if errors.As(err, &rl) {
		c := g.capacity()
		return &toolError{
			Code:              CodeRateLimited,
			Problem:           fmt.Sprintf("too many NSIP requests (%s); retry after %d s", rl.reason, seconds(rl.retryAfter)),
			RetryAfterSeconds: seconds(rl.retryAfter),
			Capacity:          &c,
			Next:              "wait, then repeat the same call",
		}
	}
	if errors.Is(err, errBreakerOpen) {
		in := g.retryIn()
		return &toolError{
			Code:           CodeUpstreamUnavailable,
			Problem:        fmt.Sprintf("NSIP is unavailable after repeated failures; retry in %d s", seconds(in)),
			RetryInSeconds: seconds(in),
			Next:           "retry later; answers already fetched stay available from the cache",
		}
	}
	var ne *nsip.Error
	if !errors.As(err, &ne) {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return g.timeoutError()
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
			Problem: fmt.Sprintf("NSIP has no %s %v", d.what, jsonText(v)),
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
			Problem: "NSIP rejected the request: " + firstNonEmpty(ne.Reason, ne.Error()),
			Example: example(d.params, args),
		}
	case nsip.KindRateLimited:
		c := g.capacity()
		return &toolError{
			Code:              CodeRateLimited,
			Problem:           fmt.Sprintf("NSIP asked us to slow down; retry after %d s", seconds(ne.RetryAfter)),
			RetryAfterSeconds: seconds(ne.RetryAfter),
			Capacity:          &c,
			Next:              "wait, then repeat the same call",
		}
	case nsip.KindTimeout:
		return g.timeoutError()
	case nsip.KindCanceled:
		return &toolError{Code: CodeCanceled, Problem: "the call was cancelled before NSIP answered"}
	case nsip.KindUnexpectedResponse:
		return &toolError{
			Code:    CodeUnexpectedResponse,
			Problem: "NSIP answered with something that is not the expected JSON: " + firstNonEmpty(ne.Reason, ne.Error()),
			Next:    "retry later; NSIP may be serving an error page",
		}
	case nsip.KindConnection:
		return &toolError{Code: CodeUpstreamError, Problem: "could not connect to NSIP: " + ne.Error(), Next: "retry in a few seconds"}
	}
	return &toolError{Code: CodeUpstreamError, Problem: "NSIP failed: " + ne.Error(), Next: "retry in a few seconds"}
}

func (g *Gateway) timeoutError() *toolError {
	return &toolError{
		Code:    CodeTimeout,
		Problem: fmt.Sprintf("NSIP did not answer within %s", g.cfg.CallTimeout),
		Next:    "retry; for searches, a smaller page_size answers faster",
	}
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
	for _, p := range d.params {
		if apiParam != "" && fold(p.name) == fold(apiParam) {
			return p.name
		}
	}
	return ""
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// countsAsFailure tells the breaker which errors say NSIP is unwell. Answers
// about the request itself (not found, rejected, throttled) and our own
// refusals do not.
func countsAsFailure(err error) bool {
	if err == nil {
		return false
	}
	var ne *nsip.Error
	if errors.As(err, &ne) {
		switch ne.Kind {
		case nsip.KindNotFound, nsip.KindInvalidArgument, nsip.KindRateLimited, nsip.KindCanceled:
			return false
		}
		return ne.Status < 400 || ne.Status >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// servesStale reports whether a failure is one where an older answer is
// better than none: the upstream is down, slow or refusing us, as opposed to
// answering definitively about the request.
func servesStale(err error) bool {
	var ne *nsip.Error
	if errors.As(err, &ne) {
		switch ne.Kind {
		case nsip.KindNotFound, nsip.KindInvalidArgument, nsip.KindCanceled:
			return false
		}
		return true
	}
	return !errors.Is(err, context.Canceled)
}
