package nsiptest

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FaultKind is a way the upstream misbehaves.
type FaultKind int

const (
	// FaultNone serves normally (after Fault.Latency, if any).
	FaultNone FaultKind = iota
	// FaultStatus answers Fault.Status (default 500) with a JSON error body.
	FaultStatus
	// FaultStatusHTML answers Fault.Status (default 503) with an HTML page,
	// as a proxy in front of the API does.
	FaultStatusHTML
	// FaultRateLimit answers 429 with Retry-After: Fault.RetryAfter in whole
	// seconds, rounded up (0 gives "0").
	FaultRateLimit
	// FaultHTML200 answers 200 with an HTML error page.
	FaultHTML200
	// FaultTruncated answers 200 with the first half of the real body.
	FaultTruncated
	// FaultWrongShape answers 200 with valid JSON of the wrong shape: a
	// string where the payload object belongs, or an object without the
	// fields the endpoint promises.
	FaultWrongShape
	// FaultReset closes the connection without an answer (a TCP reset).
	FaultReset
	// FaultHang sends nothing until the client gives up or the stand-in
	// closes; then the connection is dropped.
	FaultHang
	// FaultOversize answers 200 with a valid JSON body of Fault.Bytes
	// (default 20 MiB), to test response size limits.
	FaultOversize
)

var faultNames = []string{"none", "status", "status-html", "rate-limit", "html200", "truncated",
	"wrong-shape", "reset", "hang", "oversize"}

func (k FaultKind) String() string {
	if k >= 0 && int(k) < len(faultNames) {
		return faultNames[k]
	}
	return "fault(" + strconv.Itoa(int(k)) + ")"
}

// ParseFaultKind reads a kind by the name String gives it.
func ParseFaultKind(s string) (FaultKind, error) {
	for i, n := range faultNames {
		if strings.EqualFold(s, n) {
			return FaultKind(i), nil
		}
	}
	return 0, fmt.Errorf("fault kind %q: want one of %s", s, strings.Join(faultNames, ", "))
}

// Fault is a misbehaviour of one endpoint.
type Fault struct {
	Kind       FaultKind
	Status     int           // FaultStatus, FaultStatusHTML: the status code
	RetryAfter time.Duration // FaultRateLimit: the Retry-After to send
	Times      int           // how many requests to affect; 0 means every one until cleared
	Latency    time.Duration // added before the fault (or the normal answer)
	Bytes      int           // FaultOversize: body size; 0 means 20 MiB
}

// SetFault makes endpoint misbehave as f, replacing any fault it had.
func (h *Handler) SetFault(endpoint string, f Fault) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.faults[endpoint] = &f
}

// ClearFaults removes every fault.
func (h *Handler) ClearFaults() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.faults)
}

// takeFault returns the fault for this request, using up one of its Times.
// Callers hold h.mu.
func (h *Handler) takeFault(endpoint string) *Fault {
	f, ok := h.faults[endpoint]
	if !ok {
		return nil
	}
	if f.Times > 0 {
		f.Times--
		if f.Times == 0 {
			delete(h.faults, endpoint)
		}
	}
	c := *f
	return &c
}

const errorPage = `<!DOCTYPE html>
<html><head><title>%d %s</title></head>
<body><h1>%s</h1><p>The service is temporarily unable to handle your request. Please try again later.</p>
<hr><address>IIS/10.0</address></body></html>
`

// inject acts out a fault; it reports whether the answer has been given
// (false: serve normally, possibly truncated afterwards).
func (h *Handler) inject(w http.ResponseWriter, r *http.Request, endpoint string, f Fault) bool {
	switch f.Kind {
	case FaultStatus:
		st := cmp(f.Status, http.StatusInternalServerError)
		write(w, st, renderError(h.serverFormat(), fmt.Sprintf("upstream error %d (fault injected by nsiptest)", st)))
	case FaultStatusHTML:
		st := cmp(f.Status, http.StatusServiceUnavailable)
		html(w, st, fmt.Sprintf(errorPage, st, http.StatusText(st), http.StatusText(st)))
	case FaultRateLimit:
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(f.RetryAfter.Seconds()))))
		write(w, http.StatusTooManyRequests, renderError(h.serverFormat(), "too many requests"))
	case FaultHTML200:
		html(w, http.StatusOK, fmt.Sprintf(errorPage, 500, "Runtime Error", "Server Error in '/' Application."))
	case FaultWrongShape:
		write(w, http.StatusOK, []byte(wrongShape(endpoint, h.serverFormat())))
	case FaultReset:
		reset(w)
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-h.done:
		}
		panic(http.ErrAbortHandler)
	case FaultOversize:
		oversize(w, cmp(f.Bytes, 20<<20))
	default:
		return false
	}
	return true
}

// cmp is v, or def when v is zero.
func cmp(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func html(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// wrongShape is valid JSON a careless decoder would accept as an empty
// answer.
func wrongShape(endpoint string, f Format) string {
	switch endpoint {
	case EndpointLastUpdated:
		return `{"date":20250923}`
	case EndpointStatuses:
		return `{"statuses":"CURRENT"}`
	case EndpointTraitRanges:
		return `["BWT","WWT"]`
	case EndpointSearch, EndpointProgeny:
		return `{"message":"OK","items":"none"}`
	}
	if f == FormatLegacy {
		return `"unavailable"`
	}
	return `{"success":true,"data":"unavailable"}`
}

// reset drops the connection with a TCP RST where it can, or aborts the
// response otherwise.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// oversize streams a syntactically valid JSON object of n bytes.
func oversize(w http.ResponseWriter, n int) {
	const head, tail = `{"success":true,"data":{"padding":"`, `"}}`
	n = max(n, len(head)+len(tail))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(head)); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("x", 32<<10))
	for left := n - len(head) - len(tail); left > 0; left -= len(chunk) {
		if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
			return
		}
	}
	_, _ = w.Write([]byte(tail))
}
