package nsip

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzClientResponse answers the client's requests with arbitrary statuses,
// Retry-After headers and bodies over real HTTP. Every call ends in a model
// or in an *Error whose kind follows the status, that names the endpoint and
// status, that keeps Retry-After within a day, and whose message is one
// bounded line: safe to log and to show a model.
func FuzzClientResponse(f *testing.F) {
	details := `{"success":true,"data":{"progenyCount":2,"dateOfBirth":"2/13/2024","gender":"Male","searchResultViewModel":{"lpnId":"6402382024NCS310","bwt":0.1,"accbwt":0.8},"contactInfo":{"farmName":"F"}}}`
	seeds := []struct {
		status     uint16
		retryAfter string
		body       string
	}{
		{200, "", details},
		{200, "", `<!DOCTYPE html><html><body>Runtime Error</body></html>`},
		{200, "", details[:len(details)/2]},
		{200, "", `{"success":true,"data":"unavailable"}`},
		{200, "", strings.Repeat(" ", 70000) + "{}"},
		{503, "120", `<html><head><title>503 Service Unavailable</title></head></html>`},
		{500, "-1", "\x00\x01\xff\xfe binary\r\n\tnoise"},
		{429, "Wed, 21 Oct 2015 07:28:00 GMT", `{"message":"slow down"}`},
		{429, "99999999999999999999", ``},
		{429, "0", ``},
		{404, "", `{"success":false,"message":"not found"}`},
		{400, "", `{"message":"searchString is required"}` + strings.Repeat("\n", 300)},
		{408, "", ``},
		{302, "", ``},
		{204, "", `ignored`},
		{418, "1", "\u202eevil\u202c text"},
	}
	for _, s := range seeds {
		f.Add(s.status, s.retryAfter, []byte(s.body))
	}

	var mu sync.Mutex
	var status int
	var retryAfter string
	var body []byte
	srv := httptest.NewServer(apiHere(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		st, ra, b := status, retryAfter, body
		mu.Unlock()
		if ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(st)
		_, _ = w.Write(b)
	}))
	f.Cleanup(srv.Close)
	c, err := NewClient(WithBaseURL(srv.URL+"/api"), WithHTTPClient(srv.Client()), WithTimeout(5*time.Second),
		WithMaxBodyBytes(64<<10), WithRetryPolicy(RetryPolicy{MaxAttempts: 2}))
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, code uint16, ra string, b []byte) {
		st := 200 + int(code)%400
		if strings.ContainsFunc(ra, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			// Not a header value at all: Go's client refuses the whole
			// response as malformed before the status is read.
			ra = ""
		}
		mu.Lock()
		status, retryAfter, body = st, ra, b
		mu.Unlock()
		const id = "6402382024NCS310"
		v, err := c.AnimalDetails(context.Background(), id)
		if err == nil {
			if st != http.StatusOK || v == nil || len(v.Raw) == 0 {
				t.Fatalf("status %d: accepted as %+v", st, v)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("status %d: error %T %v is not an *Error", st, err, err)
		}
		want := map[int]Kind{200: KindUnexpectedResponse, 404: KindNotFound, 400: KindInvalidArgument, 422: KindInvalidArgument,
			429: KindRateLimited, 408: KindTimeout}[st]
		switch {
		case st == 200 && e.Kind == KindFormatChanged && json.Valid(b):
			want = KindFormatChanged // JSON, but not animal details
		case want != 0:
		case st >= 500:
			want = KindUpstream
		default:
			want = KindUnexpectedResponse
		}
		if e.Kind != want || e.Status != st || e.Endpoint != pathDetails {
			t.Errorf("status %d: kind %s, status %d, endpoint %q; want %s from %s", st, e.Kind, e.Status, e.Endpoint, want, pathDetails)
		}
		if e.Kind == KindNotFound && (e.Param != "searchString" || e.Value != id) {
			t.Errorf("not found names %s=%q, want searchString=%q", e.Param, e.Value, id)
		}
		if e.RetryAfter < 0 || e.RetryAfter > 24*time.Hour {
			t.Errorf("status %d, Retry-After %q: RetryAfter %v is outside 0..24h", st, ra, e.RetryAfter)
		}
		if e.Attempts < 1 || e.Attempts > 2 || (!e.Retryable() && e.Attempts != 1) {
			t.Errorf("status %d: %d attempts for a %s error", st, e.Attempts, e.Kind)
		}
		msg := e.Error()
		if strings.ContainsAny(msg, "\r\n") || len(msg) > 1024 || e.Reason == "" && e.Kind == KindUnexpectedResponse {
			t.Errorf("status %d: message is not one bounded line with a reason: %q", st, msg)
		}
	})
}
