package nsip

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Kind classifies a failure so that callers can decide what to do with it
// (retry, report the argument, wait) without parsing messages.
type Kind int

const (
	KindNotFound           Kind = iota + 1 // 404: the animal or page does not exist
	KindInvalidArgument                    // rejected before sending, or 400 from the API
	KindRateLimited                        // 429
	KindUpstream                           // 5xx
	KindTimeout                            // no answer in time
	KindConnection                         // refused, reset, DNS failure
	KindUnexpectedResponse                 // a 200 that is not JSON or not the expected shape, or an odd status (403, 3xx)
	KindCanceled                           // the caller's context was cancelled first
	// KindFormatChanged is a 200 whose JSON the client cannot read as the
	// endpoint's answer in any shape it knows: NSIP's format changed, and
	// repeating the request will not help. Error.Body holds what was sent.
	KindFormatChanged
	// KindNoData is NSIP saying it has nothing for a valid request: trait
	// ranges of a breed with too few evaluated animals are an HTTP 400.
	KindNoData
	// KindMisconfigured is an answer that says the base URL does not lead
	// to the NSIP API: a 404 for an endpoint that takes no argument (or
	// that a probe of one confirms), HTML from a base URL that has never
	// answered JSON, a TLS handshake with a plain-HTTP port or the reverse.
	// Retrying will not help until the base URL is corrected.
	KindMisconfigured
)

// String names the kind in snake case, e.g. "not_found", for logs and
// machine-readable error codes.
func (k Kind) String() string {
	switch k {
	case KindNotFound:
		return "not_found"
	case KindInvalidArgument:
		return "invalid_argument"
	case KindRateLimited:
		return "rate_limited"
	case KindUpstream:
		return "upstream_error"
	case KindTimeout:
		return "timeout"
	case KindConnection:
		return "connection_failed"
	case KindUnexpectedResponse:
		return "unexpected_response"
	case KindCanceled:
		return "canceled"
	case KindFormatChanged:
		return "format_changed"
	case KindNoData:
		return "no_data"
	case KindMisconfigured:
		return "misconfigured"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is every failure the client returns. Use errors.As to read its
// fields, or errors.Is with the Err* sentinels to test its kind.
type Error struct {
	Kind       Kind
	Endpoint   string        // API path, e.g. "details/getAnimalDetails"
	Status     int           // HTTP status, 0 when no response arrived
	Param      string        // the argument at fault (not found, invalid argument)
	Value      string        // its value as sent
	Reason     string        // human-readable detail
	RetryAfter time.Duration // rate limited: how long the API asked us to wait
	Attempts   int           // how many requests were made
	Err        error         // underlying cause, if any
	// Body is the JSON NSIP sent, for KindFormatChanged: a caller that
	// cannot use the model may still pass it on.
	Body json.RawMessage
}

// Error renders the kind, endpoint, status, argument and reason in one line.
func (e *Error) Error() string {
	msg := "nsip: " + e.Kind.String()
	if e.Endpoint != "" {
		msg += " from " + e.Endpoint
	}
	if e.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Param != "" {
		msg += fmt.Sprintf(": %s=%q", e.Param, e.Value)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the cause, so that errors.Is(err, context.Canceled) and
// the like work.
func (e *Error) Unwrap() error { return e.Err }

// Is matches the Err* sentinels by kind.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) || t != sentinels[t.Kind] {
		return false
	}
	return e.Kind == t.Kind
}

// Sentinels for errors.Is(err, nsip.ErrNotFound) and friends.
var (
	ErrNotFound           = &Error{Kind: KindNotFound}
	ErrInvalidArgument    = &Error{Kind: KindInvalidArgument}
	ErrRateLimited        = &Error{Kind: KindRateLimited}
	ErrUpstream           = &Error{Kind: KindUpstream}
	ErrTimeout            = &Error{Kind: KindTimeout}
	ErrConnection         = &Error{Kind: KindConnection}
	ErrUnexpectedResponse = &Error{Kind: KindUnexpectedResponse}
	ErrCanceled           = &Error{Kind: KindCanceled}
	ErrFormatChanged      = &Error{Kind: KindFormatChanged}
	ErrNoData             = &Error{Kind: KindNoData}
	ErrMisconfigured      = &Error{Kind: KindMisconfigured}
)

var sentinels = map[Kind]*Error{
	KindNotFound:           ErrNotFound,
	KindInvalidArgument:    ErrInvalidArgument,
	KindRateLimited:        ErrRateLimited,
	KindUpstream:           ErrUpstream,
	KindTimeout:            ErrTimeout,
	KindConnection:         ErrConnection,
	KindUnexpectedResponse: ErrUnexpectedResponse,
	KindCanceled:           ErrCanceled,
	KindFormatChanged:      ErrFormatChanged,
	KindNoData:             ErrNoData,
	KindMisconfigured:      ErrMisconfigured,
}

// Retryable reports whether repeating the request may succeed.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimited, KindUpstream, KindTimeout, KindConnection:
		return true
	}
	return false
}
