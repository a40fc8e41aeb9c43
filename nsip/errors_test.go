package nsip

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// callers runs each endpoint's method with arguments the stand-in knows.
func callers(d *nsiptest.Dataset) map[string]func(context.Context, *Client) error {
	id := d.MostProgeny()
	return map[string]func(context.Context, *Client) error{
		nsiptest.EndpointLastUpdated: func(ctx context.Context, c *Client) error { _, err := c.DateLastUpdated(ctx); return err },
		nsiptest.EndpointBreedGroups: func(ctx context.Context, c *Client) error { _, err := c.BreedGroups(ctx); return err },
		nsiptest.EndpointStatuses:    func(ctx context.Context, c *Client) error { _, err := c.Statuses(ctx); return err },
		nsiptest.EndpointTraitRanges: func(ctx context.Context, c *Client) error { _, err := c.TraitRanges(ctx, d.BreedIDs()[0]); return err },
		nsiptest.EndpointSearch: func(ctx context.Context, c *Client) error {
			_, err := c.SearchAnimals(ctx, SearchParams{PageSize: 10})
			return err
		},
		nsiptest.EndpointDetails: func(ctx context.Context, c *Client) error { _, err := c.AnimalDetails(ctx, id); return err },
		nsiptest.EndpointLineage: func(ctx context.Context, c *Client) error { _, err := c.Lineage(ctx, id); return err },
		nsiptest.EndpointProgeny: func(ctx context.Context, c *Client) error { _, err := c.Progeny(ctx, id, 0, 10); return err },
	}
}

// asError insists that err is a *Error of kind k and returns it.
func asError(t *testing.T, err error, k Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *nsip.Error", err, err)
	}
	if e.Kind != k || !errors.Is(err, sentinels[k]) {
		t.Fatalf("kind %s, want %s: %v", e.Kind, k, err)
	}
	for other, s := range sentinels {
		if other != k && errors.Is(err, s) {
			t.Errorf("errors.Is(err, %s sentinel) is true for a %s error", other, k)
		}
	}
	return e
}

func TestFaultsOnEveryEndpoint(t *testing.T) {
	cases := []struct {
		fault    nsiptest.Fault
		kind     Kind
		status   int
		attempts int
		reason   string
	}{
		{nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500}, KindUpstream, 500, 3, "upstream error 500"},
		{nsiptest.Fault{Kind: nsiptest.FaultStatusHTML, Status: 503}, KindUpstream, 503, 3, "<!DOCTYPE html>"},
		{nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 400}, KindInvalidArgument, 400, 1, "the API rejected the request"},
		{nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 403}, KindUnexpectedResponse, 403, 1, "unexpected HTTP status 403"},
		{nsiptest.Fault{Kind: nsiptest.FaultRateLimit}, KindRateLimited, 429, 3, "fewer requests"},
		{nsiptest.Fault{Kind: nsiptest.FaultReset}, KindConnection, 0, 3, ""},
		{nsiptest.Fault{Kind: nsiptest.FaultHTML200}, KindUnexpectedResponse, 200, 1, "not JSON: <!DOCTYPE html>"},
		{nsiptest.Fault{Kind: nsiptest.FaultTruncated}, KindUnexpectedResponse, 200, 1, "ends early"},
		{nsiptest.Fault{Kind: nsiptest.FaultWrongShape}, KindFormatChanged, 200, 1, ""},
		{nsiptest.Fault{Kind: nsiptest.FaultOversize, Bytes: 300 << 10}, KindUnexpectedResponse, 200, 1, "larger than the 262144-byte limit"},
	}
	s, _ := standIn(t, nsiptest.FormatCurrent)
	for _, tc := range cases {
		for ep, call := range callers(s.Data()) {
			t.Run(tc.fault.Kind.String()+fmt.Sprint(tc.fault.Status)+"/"+ep, func(t *testing.T) {
				// A fresh connection pool: the HTTP transport itself resends
				// a request once when a pooled connection turns out dead,
				// which would blur the request count.
				c := newClient(t, s, WithMaxBodyBytes(256<<10))
				s.ResetCounts()
				s.SetFault(ep, tc.fault)
				defer s.ClearFaults()
				err := call(ctxT(t), c)
				if ep == nsiptest.EndpointStatuses && tc.fault.Kind == nsiptest.FaultWrongShape {
					// Anything but a list means no statuses, not a failure.
					if err != nil {
						t.Fatalf("statuses with a non-list answer: %v", err)
					}
					return
				}
				kind, reason := tc.kind, tc.reason
				if ep == nsiptest.EndpointTraitRanges && kind == KindInvalidArgument {
					kind, reason = KindNoData, "has no trait data for breed" // a 400 on trait ranges is NSIP's "no trait data"
				}
				e := asError(t, err, kind)
				if e.Endpoint != ep || e.Status != tc.status || e.Attempts != tc.attempts || !strings.Contains(e.Reason, reason) {
					t.Errorf("got endpoint %q status %d attempts %d reason %q\nwant %q %d %d containing %q",
						e.Endpoint, e.Status, e.Attempts, e.Reason, ep, tc.status, tc.attempts, reason)
				}
				if n := s.Requests(ep); n != tc.attempts {
					t.Errorf("upstream saw %d requests, client reports %d attempts, want %d", n, e.Attempts, tc.attempts)
				}
				if e.Retryable() != (tc.kind != KindInvalidArgument && tc.kind != KindUnexpectedResponse && tc.kind != KindFormatChanged) {
					t.Errorf("Retryable() = %v for %s", e.Retryable(), tc.kind)
				}
				if !strings.Contains(err.Error(), ep) || !strings.Contains(err.Error(), kind.String()) {
					t.Errorf("message %q does not name the endpoint and kind", err)
				}
			})
		}
	}
}

func TestNotFound(t *testing.T) {
	s, c := standIn(t, nsiptest.FormatLegacy)
	// Once the base URL has answered JSON, a 404 is the record's absence
	// and costs no check of the base URL (TestFirstNotFoundProbesOnce).
	if _, err := c.DateLastUpdated(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, endpoint, param, value string
		call                         func(context.Context) error
	}{
		{"details", pathDetails, "searchString", "6409992099ZZZ999", func(ctx context.Context) error { _, err := c.AnimalDetails(ctx, "6409992099ZZZ999"); return err }},
		{"lineage", pathLineage, "lpnId", "6409992099ZZZ999", func(ctx context.Context) error { _, err := c.Lineage(ctx, "6409992099ZZZ999"); return err }},
		{"progeny", pathProgeny, "lpnId", "6409992099ZZZ999", func(ctx context.Context) error { _, err := c.Progeny(ctx, "6409992099ZZZ999", 0, 5); return err }},
		{"trait ranges", pathTraitRanges, "breedId", "99999", func(ctx context.Context) error { _, err := c.TraitRanges(ctx, 99999); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.ResetCounts()
			e := asError(t, tc.call(ctxT(t)), KindNotFound)
			if e.Endpoint != tc.endpoint || e.Param != tc.param || e.Value != tc.value || e.Status != 404 || e.Attempts != 1 {
				t.Errorf("got %+v", e)
			}
			if want := fmt.Sprintf("%s=%q", tc.param, tc.value); !strings.Contains(e.Error(), want) {
				t.Errorf("message %q does not say %s", e.Error(), want)
			}
			if s.TotalRequests() != 1 {
				t.Errorf("a 404 was retried: %d requests", s.TotalRequests())
			}
		})
	}
}

func TestRetriesThenSuccess(t *testing.T) {
	cases := []nsiptest.Fault{
		{Kind: nsiptest.FaultStatus, Status: 502, Times: 2},
		{Kind: nsiptest.FaultStatusHTML, Status: 503, Times: 1},
		{Kind: nsiptest.FaultReset, Times: 2},
		{Kind: nsiptest.FaultRateLimit, Times: 2}, // Retry-After: 0, so plain backoff
	}
	s, c := standIn(t, nsiptest.FormatCurrent)
	for _, f := range cases {
		t.Run(f.Kind.String(), func(t *testing.T) {
			s.ResetCounts()
			s.SetFault(nsiptest.EndpointBreedGroups, f)
			got, err := c.BreedGroups(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Groups) != len(s.Data().BreedGroups()) {
				t.Errorf("%d groups after retries, want %d", len(got.Groups), len(s.Data().BreedGroups()))
			}
			if n := s.Requests(nsiptest.EndpointBreedGroups); n != f.Times+1 {
				t.Errorf("%d upstream requests, want %d", n, f.Times+1)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	s, c := standIn(t, nsiptest.FormatCurrent) // MaxRetryAfter 3s

	t.Run("honoured", func(t *testing.T) {
		s.ResetCounts()
		s.SetFault(nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: time.Second, Times: 1})
		start := time.Now()
		if _, err := c.Statuses(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < 950*time.Millisecond {
			t.Errorf("retried after %s, before the 1s the API asked for", el)
		}
		if n := s.Requests(nsiptest.EndpointStatuses); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("beyond the cap is reported", func(t *testing.T) {
		s.ResetCounts()
		s.SetFault(nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: time.Minute, Times: 1})
		e := asError(t, func() error { _, err := c.Statuses(ctxT(t)); return err }(), KindRateLimited)
		if e.RetryAfter != time.Minute || e.Attempts != 1 || e.Status != 429 {
			t.Errorf("got %+v, want RetryAfter 1m after one attempt", e)
		}
		if !strings.Contains(e.Error(), "retry after 1m0s") {
			t.Errorf("message %q does not say when to retry", e)
		}
	})
	t.Run("beyond the caller's deadline is reported", func(t *testing.T) {
		// A client that would honour the hour, asked by a caller with a
		// minute left: the minute is what stops it. A minute is far more
		// than a loaded machine needs for the first answer, and a client
		// that waited would end in a timeout, not a rate limit.
		c := newClient(t, s, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 2 * time.Hour}))
		s.ResetCounts()
		s.SetFault(nsiptest.EndpointStatuses, nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: time.Hour, Times: 1})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := c.Statuses(ctx)
		if e := asError(t, err, KindRateLimited); e.RetryAfter != time.Hour || e.Attempts != 1 {
			t.Errorf("got %+v", e)
		}
		if ctx.Err() != nil {
			t.Error("the client waited into the caller's deadline instead of reporting at once")
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 9, 23, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		" 120 ":                         2 * time.Minute,
		"0":                             0,
		"-5":                            0,
		"999999999":                     24 * time.Hour,
		"99999999999999999999999":       24 * time.Hour,
		"-99999999999999999999999":      0,
		"+120":                          2 * time.Minute,
		"soon":                          0,
		"Tue, 23 Sep 2025 12:00:30 GMT": 30 * time.Second,
		"Tue, 23 Sep 2025 11:00:00 GMT": 0,
		"Thu, 25 Sep 2025 12:00:00 GMT": 24 * time.Hour,
		// Far enough ahead to overflow a Duration if it were not capped.
		"Wed, 01 Oct 7000 0:00:00 GMT": 24 * time.Hour,
	}
	for in, want := range cases {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTimeouts(t *testing.T) {
	t.Run("per request", func(t *testing.T) {
		s, c := standIn(t, nsiptest.FormatCurrent, WithTimeout(100*time.Millisecond))
		s.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultHang})
		_, err := c.AnimalDetails(ctxT(t), s.Data().MostProgeny())
		e := asError(t, err, KindTimeout)
		if e.Attempts != 3 || s.Requests(nsiptest.EndpointDetails) != 3 || e.Endpoint != pathDetails {
			t.Errorf("got %+v after %d requests, want 3 timed-out attempts", e, s.Requests(nsiptest.EndpointDetails))
		}
	})
	t.Run("caller's deadline", func(t *testing.T) {
		s, c := standIn(t, nsiptest.FormatCurrent)
		s.SetFault(nsiptest.EndpointLineage, nsiptest.Fault{Kind: nsiptest.FaultHang})
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		_, err := c.Lineage(ctx, s.Data().MostProgeny())
		e := asError(t, err, KindTimeout)
		if !errors.Is(err, context.DeadlineExceeded) || e.Attempts != 1 {
			t.Errorf("got %+v, want one attempt ended by the deadline", e)
		}
	})
	t.Run("slow header", func(t *testing.T) {
		s, c := standIn(t, nsiptest.FormatCurrent, WithTimeout(50*time.Millisecond), quickRetries(1))
		s.SetLatency(nsiptest.EndpointLastUpdated, 300*time.Millisecond)
		asError(t, func() error { _, err := c.DateLastUpdated(ctxT(t)); return err }(), KindTimeout)
	})
}

func TestCancellation(t *testing.T) {
	s, c := standIn(t, nsiptest.FormatCurrent)
	cases := []struct {
		name  string
		fault nsiptest.Fault
	}{
		{"hung request", nsiptest.Fault{Kind: nsiptest.FaultHang}},
		{"waiting to retry", nsiptest.Fault{Kind: nsiptest.FaultRateLimit, RetryAfter: 2 * time.Second}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.SetFault(nsiptest.EndpointProgeny, tc.fault)
			defer s.ClearFaults()
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			_, err := c.Progeny(ctx, s.Data().MostProgeny(), 0, 10)
			e := asError(t, err, KindCanceled)
			if !errors.Is(err, context.Canceled) || e.Attempts != 1 || e.Endpoint != pathProgeny {
				t.Errorf("got %+v", e)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := NewClient(WithBaseURL("http://"+addr+"/api"), quickRetries(2))
	if err != nil {
		t.Fatal(err)
	}
	e := asError(t, func() error { _, err := c.BreedGroups(ctxT(t)); return err }(), KindConnection)
	if e.Attempts != 2 || e.Reason != "connection refused" || e.Status != 0 {
		t.Errorf("got %+v", e)
	}
}

func TestUnexpectedBodies(t *testing.T) {
	cases := []struct {
		name, body string
		call       func(context.Context, *Client) error
		reason     string
	}{
		{"success false", `{"success":false,"message":"Animal lookup failed"}`, detailsCall, "success=false): \"Animal lookup failed\""},
		{"details without lpnId", `{"success":true,"data":{"gender":"Male","searchResultViewModel":{"bwt":0.1}}}`, detailsCall, "no lpnId"},
		{"details a string", `{"success":true,"data":"x"}`, detailsCall, "not an object"},
		{"empty body", ``, detailsCall, "empty"},
		{"no data", `{"success":true}`, detailsCall, "no lpnId"},
		{"bad JSON", `{"a":}`, detailsCall, "not valid JSON"},
		{"lineage without subject", `{"lpnId":"","children":[]}`, lineageCall, "no subject"},
		{"lineage children not a list", `{"lpnId":"ABCDE1","children":{}}`, lineageCall, "the lineage's children holds a JSON object where a list of parent nodes belongs"},
		{"lineage node a number", `{"lpnId":"ABCDE1","children":[{"children":[1]}]}`, lineageCall, "children.children holds a JSON number where a node belongs"},
		{"lineage a list", `[]`, lineageCall, "the lineage holds a JSON array where a node belongs"},
		{"lineage lpnId an object", `{"lpnId":{}}`, lineageCall, "no subject lpnId"},
		{"search row without lpnId", `{"recordCount":1,"records":[{"bwt":1}]}`, searchCall, "row 0 has no lpnId"},
		{"search row a string", `{"recordCount":2,"records":[{"lpnId":"A1"},"x"]}`, searchCall, "search row 1 is not an object but a JSON string"},
		{"search row null", `{"recordCount":1,"records":[null]}`, searchCall, "search row 0"},
		{"search records missing", `{"recordCount":3}`, searchCall, `no "records" list`},
		{"search records not a list", `{"recordCount":3,"records":{}}`, searchCall, "holds a JSON object where a list belongs"},
		{"search page a list", `[]`, searchCall, "not an object"},
		{"progeny row without lpnId", `{"TotalCount":1,"Results":[{"Sex":"F"}]}`, progenyCall, "progeny row 0"},
		{"progeny row a string", `{"TotalCount":1,"Results":["x"]}`, progenyCall, "progeny row 0 is not an object but a JSON string"},
		{"groups not a list", `{"success":true,"data":{}}`, groupsCall, "holds a JSON object where a list belongs"},
		{"group without id", `[{"name":"Hair"}]`, groupsCall, "no numeric breedGroupId"},
		{"group a number", `[3]`, groupsCall, "holds a JSON number where an object belongs"},
		{"breeds not a list", `[{"id":1,"breeds":3}]`, groupsCall, "breeds holds a JSON number where a list belongs"},
		{"breed without id", `[{"id":1,"breeds":[{"name":"x"}]}]`, groupsCall, "breed 0 of group 1"},
		{"range without max", `{"BWT":{"min":1}}`, rangesCall, "BWT lacks"},
		{"range list without code", `[{"min":1,"max":2}]`, rangesCall, "no trait code"},
		{"range list bad entry", `[{"code":"BWT","min":"a","max":2}]`, rangesCall, "BWT lacks"},
		{"ranges a number", `5`, rangesCall, "where an object belongs"},
		{"date missing", `{"date":""}`, dateCall, "carries no date"},
		{"statuses HTML", `<html>oops</html>`, statusesCall, "not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			h := func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				fmt.Fprint(w, tc.body)
			}
			if strings.HasPrefix(tc.body, "<") {
				// A page on every path would be no NSIP API at all.
				h = apiHere(h)
			}
			c := fakeUpstream(t, h)
			// JSON that is not the answer means NSIP's format changed;
			// anything else, or NSIP's own success=false, is unexpected.
			want := KindFormatChanged
			if !json.Valid([]byte(tc.body)) || strings.Contains(tc.body, `"success":false`) {
				want = KindUnexpectedResponse
			}
			e := asError(t, tc.call(ctxT(t), c), want)
			if want == KindFormatChanged && string(e.Body) != tc.body {
				t.Errorf("Body %q, want the body NSIP sent", e.Body)
			}
			if !strings.Contains(e.Reason, tc.reason) || e.Status != 200 || e.Attempts != 1 || hits.Load() != 1 {
				t.Errorf("got %+v after %d requests, want reason containing %q after 1", e, hits.Load(), tc.reason)
			}
		})
	}
}

func detailsCall(ctx context.Context, c *Client) error {
	_, err := c.AnimalDetails(ctx, "6402382024NCS310")
	return err
}
func lineageCall(ctx context.Context, c *Client) error {
	_, err := c.Lineage(ctx, "6402382024NCS310")
	return err
}
func searchCall(ctx context.Context, c *Client) error {
	_, err := c.SearchAnimals(ctx, SearchParams{PageSize: 1})
	return err
}
func progenyCall(ctx context.Context, c *Client) error {
	_, err := c.Progeny(ctx, "6402382024NCS310", 0, 1)
	return err
}
func groupsCall(ctx context.Context, c *Client) error { _, err := c.BreedGroups(ctx); return err }
func rangesCall(ctx context.Context, c *Client) error { _, err := c.TraitRanges(ctx, 640); return err }
func dateCall(ctx context.Context, c *Client) error   { _, err := c.DateLastUpdated(ctx); return err }
func statusesCall(ctx context.Context, c *Client) error {
	_, err := c.Statuses(ctx)
	return err
}

// TestOversizeWithoutLength: a chunked body that grows past the limit is
// refused as it is read, not truncated.
func TestOversizeWithoutLength(t *testing.T) {
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"date":"`)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, strings.Repeat("9", 5000)+`"}`)
	}, WithMaxBodyBytes(1000))
	e := asError(t, func() error { _, err := c.DateLastUpdated(ctxT(t)); return err }(), KindUnexpectedResponse)
	if e.Reason != "body is larger than the 1000-byte limit" {
		t.Errorf("reason %q", e.Reason)
	}
}

// TestBodyCutShort: a body shorter than its Content-Length ends early.
func TestBodyCutShort(t *testing.T) {
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		fmt.Fprint(w, `{"date":"09/`)
	})
	e := asError(t, func() error { _, err := c.DateLastUpdated(ctxT(t)); return err }(), KindUnexpectedResponse)
	if !strings.Contains(e.Reason, "truncated after 12 bytes") || e.Attempts != 1 {
		t.Errorf("got %+v", e)
	}
}

func TestOtherStatuses(t *testing.T) {
	cases := []struct {
		status   int
		kind     Kind
		attempts int
	}{
		{http.StatusRequestTimeout, KindTimeout, 2},
		{http.StatusUnprocessableEntity, KindInvalidArgument, 1},
		{http.StatusGone, KindUnexpectedResponse, 1},
		{http.StatusNoContent, KindUnexpectedResponse, 1},
		{http.StatusNotModified, KindUnexpectedResponse, 1},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			var hits atomic.Int32
			c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.WriteHeader(tc.status)
			}, quickRetries(2))
			e := asError(t, dateCall(ctxT(t), c), tc.kind)
			if e.Status != tc.status || e.Attempts != tc.attempts || int(hits.Load()) != tc.attempts {
				t.Errorf("got %+v after %d requests", e, hits.Load())
			}
		})
	}
}

func TestServerErrorRetryAfter(t *testing.T) {
	var hits atomic.Int32
	retryAfter := "1"
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, `{"date":"09/23/2025"}`)
	})
	start := time.Now()
	got, err := c.DateLastUpdated(ctxT(t))
	if err != nil || got.Date != "09/23/2025" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if el := time.Since(start); el < 950*time.Millisecond || hits.Load() != 2 {
		t.Errorf("second request after %s (%d requests); the 503 asked for 1s", el, hits.Load())
	}

	// Beyond MaxRetryAfter (3s here) the 503 is reported at once: one request
	// and one attempt prove there was no wait, without timing it.
	hits.Store(0)
	retryAfter = "3600"
	e := asError(t, dateCall(ctxT(t), c), KindUpstream)
	if e.RetryAfter != time.Hour || e.Attempts != 1 || hits.Load() != 1 {
		t.Errorf("got %+v after %d requests", e, hits.Load())
	}
}

func TestErrorText(t *testing.T) {
	cases := []struct {
		e    *Error
		want string
	}{
		{&Error{Kind: KindNotFound, Endpoint: "details/getLineage", Status: 404, Param: "lpnId", Value: "X1", Reason: "gone"},
			`nsip: not_found from details/getLineage (HTTP 404): lpnId="X1": gone`},
		{&Error{Kind: KindCanceled, Err: context.Canceled}, "nsip: canceled: context canceled"},
		{&Error{Kind: Kind(42)}, "nsip: kind(42)"},
	}
	for _, tc := range cases {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if errors.Is(&Error{Kind: KindNotFound}, &Error{Kind: KindNotFound}) {
		t.Error("errors.Is matched a non-sentinel")
	}
}

func TestSnippet(t *testing.T) {
	cases := map[string]string{
		"":                          "(empty body)",
		"  a \n\t b  ":              "a b",
		"x\x00y\xffz":               "x?y?z",
		strings.Repeat("é", 200):    strings.Repeat("é", 60) + "…",
		"<html>\r\n<body>Error 500": "<html> <body>Error 500",
	}
	for in, want := range cases {
		if got := snippet([]byte(in)); got != want {
			t.Errorf("snippet(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStalledBody: headers arrive but the body stops; the per-request
// timeout ends the read and the attempt counts as timed out. The timeout
// also covers the dial and the headers, which a loaded machine can take
// hundreds of milliseconds over, so it is long enough for them; the stall
// has no end of its own, so the timeout still ends every attempt.
func TestStalledBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		fmt.Fprint(w, `{"date":`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}, WithTimeout(2*time.Second), WithRetryPolicy(RetryPolicy{MaxAttempts: 2}))
	e := asError(t, dateCall(ctxT(t), c), KindTimeout)
	if e.Status != 200 || e.Attempts != 2 {
		t.Errorf("got %+v", e)
	}
}

func TestSearchNotFound(t *testing.T) {
	c := fakeUpstream(t, apiHere(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	e := asError(t, searchCall(ctxT(t), c), KindNotFound)
	if e.Param != "" || e.Reason != "the API has no such resource" || e.Endpoint != pathSearch {
		t.Errorf("got %+v", e)
	}
}

func TestKindNames(t *testing.T) {
	want := map[Kind]string{KindNotFound: "not_found", KindInvalidArgument: "invalid_argument", KindRateLimited: "rate_limited",
		KindUpstream: "upstream_error", KindTimeout: "timeout", KindConnection: "connection_failed",
		KindUnexpectedResponse: "unexpected_response", KindCanceled: "canceled", KindFormatChanged: "format_changed", KindNoData: "no_data",
		KindMisconfigured: "misconfigured"}
	for k, name := range want {
		if k.String() != name || sentinels[k].Kind != k {
			t.Errorf("kind %d: %q, sentinel %+v", int(k), k.String(), sentinels[k])
		}
	}
	if len(sentinels) != len(want) {
		t.Errorf("%d sentinels for %d kinds", len(sentinels), len(want))
	}
}
