package nsip

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// call describes one API request: what to send and, for a 404, which
// argument named the missing thing.
type call struct {
	method string
	path   string
	query  url.Values
	body   []byte // sent as JSON when non-nil
	param  string // argument that identifies what was looked up
	value  string
}

// decodeFunc turns a 200 body into a model. A failure is a *Error without
// endpoint or attempt count; fetch fills those in.
type decodeFunc[T any] func(body []byte) (*T, *Error)

// fetch is the single request path: send with retries, then decode.
func fetch[T any](ctx context.Context, c *Client, cl call, decode decodeFunc[T]) (*T, error) {
	body, status, attempts, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	v, derr := decode(body)
	if derr != nil {
		derr.Endpoint, derr.Status, derr.Attempts = cl.path, status, attempts
		if derr.Kind == KindUnexpectedResponse && looksHTML(body) {
			c.checkBase(ctx, derr, false, "it sent an HTML page where JSON belongs")
		}
		return nil, derr
	}
	c.verified.Store(true)
	return v, nil
}

// looksHTML reports whether a body is a web page rather than an API answer.
func looksHTML(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '<'
}

// checkBase turns e, a 404 or a web page where JSON belongs, into
// KindMisconfigured when the base URL is wrong rather than the request. An
// endpoint that takes no argument (sure) has nothing to be missing, so its
// 404 always is. Otherwise, until the base URL has answered JSON, the
// cheapest such endpoint is asked once, and a 404 or a page from it too
// means no NSIP API lives there. A page from the public API's own address
// is NSIP's outage page, not a wrong setting.
func (c *Client) checkBase(ctx context.Context, e *Error, sure bool, what string) {
	if !sure {
		if c.verified.Load() || (e.Kind != KindNotFound && c.baseURL.String() == DefaultBaseURL) {
			return
		}
		if !c.probeBaseWrong(ctx, e.Endpoint) {
			return
		}
	}
	e.Kind, e.Param, e.Value = KindMisconfigured, "", ""
	e.Reason = "the base URL does not lead to the NSIP API: " + what
}

// probeBaseWrong asks the cheapest endpoint that takes no argument (another
// one when failed is that one, lest one endpoint's fault pass for a wrong
// base URL) and reports whether its answer proves the base URL wrong: a 404
// or a body that is not JSON. A failure that proves nothing (a timeout, a
// 5xx) is not taken as proof.
func (c *Client) probeBaseWrong(ctx context.Context, failed string) bool {
	cl := call{method: http.MethodGet, path: pathDateLastUpdated}
	if failed == pathDateLastUpdated {
		cl.path = pathBreedGroups
	}
	start := time.Now()
	body, status, e, _ := c.attempt(ctx, cl)
	c.observe(ctx, cl, 1, status, start, e, true)
	switch {
	case e == nil && json.Valid(body):
		c.verified.Store(true)
		return false
	case e == nil:
		return true
	}
	return e.Kind == KindNotFound || e.Kind == KindMisconfigured
}

// observe reports one request to the hook, if there is one.
func (c *Client) observe(ctx context.Context, cl call, attempt, status int, start time.Time, e *Error, probe bool) {
	if c.hook == nil {
		return
	}
	info := RequestInfo{Method: cl.method, Endpoint: cl.path, Attempt: attempt, Status: status, Latency: time.Since(start), Probe: probe}
	if e != nil {
		info.Err = e
	}
	c.hook(ctx, info)
}

// newRequest builds the HTTP request for cl, with the query encoded and the
// headers every call carries.
func (c *Client) newRequest(ctx context.Context, cl call) (*http.Request, error) {
	u := c.baseURL.JoinPath(cl.path)
	u.RawQuery = cl.query.Encode()
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, text/plain, */*")
	req.Header.Set("User-Agent", c.userAgent)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends cl until it succeeds, fails for good, or runs out of attempts, and
// returns the body of the successful response.
func (c *Client) do(ctx context.Context, cl call) (body []byte, status, attempts int, err error) {
	for {
		attempts++
		start := time.Now()
		body, status, e, retryAfter := c.attempt(ctx, cl)
		if e != nil {
			e.Endpoint, e.Attempts = cl.path, attempts
		}
		c.observe(ctx, cl, attempts, status, start, e, false)
		if e == nil {
			return body, status, attempts, nil
		}
		if !c.shouldRetry(ctx, e, status, attempts) {
			if e.Kind == KindNotFound {
				what := "it has no endpoint " + cl.path
				if len(cl.query) > 0 || cl.body != nil {
					what = fmt.Sprintf("it answers 404 for %s, and for an endpoint that takes no argument", cl.path)
				}
				c.checkBase(ctx, e, len(cl.query) == 0 && cl.body == nil, what)
			}
			return nil, status, attempts, e
		}
		if retryAfter > c.retry.MaxRetryAfter {
			// Asked to wait longer than we are willing to: report it.
			return nil, status, attempts, e
		}
		wait := c.backoff(attempts)
		if retryAfter > 0 {
			wait = retryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
			// The caller's deadline would pass while waiting: the last
			// failure says more than a timeout would.
			return nil, status, attempts, e
		}
		if werr := sleep(ctx, wait); werr != nil {
			return nil, status, attempts, contextError(cl.path, attempts, werr)
		}
		if gate, ok := ctx.Value(retryGateKey{}).(RetryGate); ok {
			if gate(ctx, attempts+1, e) != nil {
				// The caller's bounds leave no room for another request:
				// the failure being retried is the answer.
				return nil, status, attempts, e
			}
		}
	}
}

// shouldRetry: only transient failures, only while attempts and the caller's
// context last.
func (c *Client) shouldRetry(ctx context.Context, e *Error, status, attempts int) bool {
	if attempts >= c.retry.MaxAttempts || ctx.Err() != nil {
		return false
	}
	switch e.Kind {
	case KindRateLimited, KindTimeout, KindConnection:
		return true
	case KindUpstream:
		return status >= 500
	}
	return false
}

// backoff is exponential with full jitter: a uniform wait between zero and
// BaseDelay·2^(n-1), capped at MaxDelay, so that many clients failing together
// do not come back together.
func (c *Client) backoff(n int) time.Duration {
	ceiling := c.retry.MaxDelay
	if n-1 < 30 {
		if d := c.retry.BaseDelay << (n - 1); d > 0 && d < ceiling {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// attempt makes one request. On failure it returns the classified error and
// the Retry-After the upstream asked for, if any.
func (c *Client) attempt(ctx context.Context, cl call) ([]byte, int, *Error, time.Duration) {
	actx := ctx
	if c.timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	req, err := c.newRequest(actx, cl)
	if err != nil {
		return nil, 0, &Error{Kind: KindInvalidArgument, Reason: "cannot build the request", Err: err}, 0
	}
	resp, err := c.httpClient.Do(req)
	var redirect *redirectError
	if errors.As(err, &redirect) {
		// Not a transport failure: retrying would be redirected again.
		// Go hands back the redirect itself, its body already closed.
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		return nil, status, &Error{Kind: KindUnexpectedResponse, Status: status, Reason: redirect.Error()}, 0
	}
	if err != nil {
		return nil, 0, transportError(ctx, actx, err), 0
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		snippet := readSnippet(resp.Body)
		e, retryAfter := statusError(cl, resp, snippet)
		return nil, resp.StatusCode, e, retryAfter
	}
	if resp.ContentLength > c.maxBody {
		return nil, resp.StatusCode, tooLarge(c.maxBody, resp.ContentLength), 0
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && ctx.Err() == nil && actx.Err() == nil {
			// The connection closed before the promised length arrived.
			return nil, resp.StatusCode, &Error{Kind: KindUnexpectedResponse, Status: resp.StatusCode,
				Reason: fmt.Sprintf("body truncated after %d bytes", len(body)), Err: err}, 0
		}
		e := transportError(ctx, actx, err)
		e.Status = resp.StatusCode
		return nil, resp.StatusCode, e, 0
	}
	if int64(len(body)) > c.maxBody {
		return nil, resp.StatusCode, tooLarge(c.maxBody, -1), 0
	}
	return body, resp.StatusCode, nil, 0
}

func tooLarge(limit, got int64) *Error {
	reason := fmt.Sprintf("body is larger than the %d-byte limit", limit)
	if got > 0 {
		reason = fmt.Sprintf("body of %d bytes is larger than the %d-byte limit", got, limit)
	}
	return &Error{Kind: KindUnexpectedResponse, Status: http.StatusOK, Reason: reason}
}

// statusError classifies a non-200 answer.
func statusError(cl call, resp *http.Response, snippet string) (*Error, time.Duration) {
	code := resp.StatusCode
	e := &Error{Status: code, Reason: snippet}
	retryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch {
	case code == http.StatusNotFound:
		e.Kind, e.Param, e.Value = KindNotFound, cl.param, cl.value
		e.Reason = "the API has no such record"
		if cl.param == "" {
			e.Reason = "the API has no such resource"
		}
	case code == http.StatusBadRequest && strings.Contains(snippet, "HTTP request to an HTTPS server"):
		// Go's TLS servers answer a plain-HTTP request so.
		e.Kind = KindMisconfigured
		e.Reason = "the base URL says http, but the server there speaks HTTPS"
	case code == http.StatusBadRequest || code == http.StatusUnprocessableEntity:
		e.Kind, e.Param, e.Value = KindInvalidArgument, cl.param, cl.value
		e.Reason = "the API rejected the request: " + snippet
	case code == http.StatusTooManyRequests:
		e.Kind, e.RetryAfter = KindRateLimited, retryAfter
		e.Reason = "the API asks for fewer requests"
	case code == http.StatusRequestTimeout:
		e.Kind = KindTimeout
	case code >= 500:
		e.Kind = KindUpstream
	default:
		// Forbidden, gone, a redirect answered without a Location:
		// nothing a retry or a different argument would fix.
		e.Kind = KindUnexpectedResponse
		e.Reason = fmt.Sprintf("unexpected HTTP status %d: %s", code, snippet)
	}
	if code >= 500 && retryAfter > 0 {
		e.RetryAfter = retryAfter
	}
	return e, retryAfter
}

// parseRetryAfter reads delay-seconds or an HTTP-date; anything else is 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err == nil && secs <= 0:
		return 0
	case err == nil && secs <= int64(maxRetryAfter/time.Second):
		return time.Duration(secs) * time.Second
	case err == nil || (errors.Is(err, strconv.ErrRange) && v[0] != '-'):
		return maxRetryAfter // more seconds than int64 holds is still "wait"
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		// A date decades ahead means no more to anyone waiting than a day.
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

// maxRetryAfter caps what an upstream may ask callers to wait.
const maxRetryAfter = 24 * time.Hour

// transportError classifies a failure to get (or finish reading) a response.
// ctx is the caller's context, actx the one limited by the client timeout.
func transportError(ctx, actx context.Context, err error) *Error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return contextError("", 0, ctxErr)
	}
	var netErr net.Error
	if actx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return &Error{Kind: KindTimeout, Reason: "no answer within the time limit", Err: err}
	}
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, http.ErrSchemeMismatch):
		return &Error{Kind: KindMisconfigured, Reason: "the base URL says https, but the server there speaks plain HTTP", Err: err}
	case errors.As(err, &certErr):
		return &Error{Kind: KindMisconfigured, Reason: "the server's TLS certificate is not trusted for the base URL's host", Err: err}
	}
	reason := "cannot reach the API"
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		reason = "cannot resolve the API host"
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		reason = "connection reset"
	}
	return &Error{Kind: KindConnection, Reason: reason, Err: err}
}

// contextError reports that the caller's context ended the call.
func contextError(endpoint string, attempts int, err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Endpoint: endpoint, Attempts: attempts, Reason: "the caller's deadline passed", Err: err}
	}
	return &Error{Kind: KindCanceled, Endpoint: endpoint, Attempts: attempts, Reason: "the caller gave up", Err: err}
}

const snippetLen = 120

// readSnippet reads the start of an error body for the error message.
func readSnippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 4<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<10)) // let the connection be reused
	return snippet(b)
}

// snippet renders the start of a body as one short, printable line.
func snippet(b []byte) string {
	var sb strings.Builder
	space := false
	for len(b) > 0 && sb.Len() < snippetLen {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == utf8.RuneError && size <= 1:
			r = '?'
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			space = true
			continue
		case r < 0x20 || r == 0x7f:
			r = '?'
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	if len(b) > 0 {
		sb.WriteString("…")
	}
	if sb.Len() == 0 {
		return "(empty body)"
	}
	return sb.String()
}
