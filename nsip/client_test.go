package nsip

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func TestNewClientDefaults(t *testing.T) {
	c, err := NewClient()
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != DefaultBaseURL || c.userAgent != "nsip-mcp/"+Version || c.timeout != DefaultTimeout ||
		c.maxBody != DefaultMaxBodyBytes || c.retry != DefaultRetryPolicy() {
		t.Errorf("defaults: %s %q %s %d %+v", c.BaseURL(), c.userAgent, c.timeout, c.maxBody, c.retry)
	}
	tr, ok := c.httpClient.Transport.(*http.Transport)
	if !ok || tr.TLSHandshakeTimeout == 0 || tr.ResponseHeaderTimeout == 0 || tr.MaxIdleConnsPerHost < 2 {
		t.Errorf("default transport lacks timeouts or pooling: %+v", c.httpClient.Transport)
	}
}

func TestOptions(t *testing.T) {
	hc := &http.Client{Transport: &http.Transport{}}
	c, err := NewClient(WithBaseURL("https://mirror.example.org/nsip/api/"), WithHTTPClient(hc), WithTimeout(0),
		WithUserAgent("flock-tool/2"), WithMaxBodyBytes(10), WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	// The caller's client is used through a copy that keeps redirects on
	// the base URL's origin, leaving the caller's own untouched.
	if c.BaseURL() != "https://mirror.example.org/nsip/api/" || c.httpClient.Transport != hc.Transport ||
		c.httpClient.CheckRedirect == nil || hc.CheckRedirect != nil || c.timeout != 0 ||
		c.userAgent != "flock-tool/2" || c.maxBody != 10 || c.retry.MaxAttempts != 1 {
		t.Errorf("options not applied: %+v", c)
	}
	bad := []struct {
		name string
		opt  Option
		want string
	}{
		{"relative URL", WithBaseURL("nsipsearch.nsip.org/api"), "absolute http or https URL"},
		{"ftp URL", WithBaseURL("ftp://nsipsearch.nsip.org/api"), "absolute http or https URL"},
		{"unparsable URL", WithBaseURL("http://[::1"), "base URL"},
		{"URL with query", WithBaseURL("http://h/api?x=1"), "query or fragment"},
		{"nil HTTP client", WithHTTPClient(nil), "non-nil"},
		{"negative timeout", WithTimeout(-time.Second), "must not be negative"},
		{"empty user agent", WithUserAgent(""), "non-empty"},
		{"user agent with newline", WithUserAgent("a\nb"), "control characters"},
		{"no attempts", WithRetryPolicy(RetryPolicy{}), "MaxAttempts >= 1"},
		{"negative delay", WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: -1}), "must not be negative"},
		{"max below base", WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Second, MaxDelay: time.Millisecond}), "below BaseDelay"},
		{"zero body limit", WithMaxBodyBytes(0), "must be positive"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewClient(tc.opt)
			if err == nil || c != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewClient = %v, %v; want an error containing %q", c, err, tc.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	c := &Client{retry: RetryPolicy{MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond}}
	for n, ceiling := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 300 * time.Millisecond, 40: 300 * time.Millisecond} {
		for range 200 {
			if d := c.backoff(n); d < 0 || d > ceiling {
				t.Fatalf("backoff(%d) = %s, outside 0..%s", n, d, ceiling)
			}
		}
	}
	if d := (&Client{}).backoff(1); d != 0 {
		t.Errorf("zero policy waits %s", d)
	}
}

// TestArgumentChecks: bad arguments fail before any request, naming the
// argument.
func TestArgumentChecks(t *testing.T) {
	s, c := standIn(t, nsiptest.FormatCurrent)
	long := strings.Repeat("A", 33)
	search := func(p SearchParams) func(context.Context) error {
		return func(ctx context.Context) error { _, err := c.SearchAnimals(ctx, p); return err }
	}
	crit := func(cr SearchCriteria) func(context.Context) error {
		return search(SearchParams{PageSize: 10, Criteria: cr})
	}
	cases := []struct {
		name, param string
		call        func(context.Context) error
	}{
		{"trait ranges breed 0", "breedId", func(ctx context.Context) error { _, err := c.TraitRanges(ctx, 0); return err }},
		{"details empty", "searchString", func(ctx context.Context) error { _, err := c.AnimalDetails(ctx, "   "); return err }},
		{"details too long", "searchString", func(ctx context.Context) error { _, err := c.AnimalDetails(ctx, strings.Repeat("1", 65)); return err }},
		{"details control", "searchString", func(ctx context.Context) error { _, err := c.AnimalDetails(ctx, "640\x00238"); return err }},
		{"lineage empty", "lpnId", func(ctx context.Context) error { _, err := c.Lineage(ctx, ""); return err }},
		{"lineage short", "lpnId", func(ctx context.Context) error { _, err := c.Lineage(ctx, "64a"); return err }},
		{"lineage long", "lpnId", func(ctx context.Context) error { _, err := c.Lineage(ctx, long); return err }},
		{"lineage slash", "lpnId", func(ctx context.Context) error { _, err := c.Lineage(ctx, "6402/../x1"); return err }},
		{"progeny bad id", "lpnId", func(ctx context.Context) error { _, err := c.Progeny(ctx, "640238 2024", 0, 10); return err }},
		{"progeny page -1", "page", func(ctx context.Context) error { _, err := c.Progeny(ctx, "6402382024NCS310", -1, 10); return err }},
		{"progeny size 0", "pageSize", func(ctx context.Context) error { _, err := c.Progeny(ctx, "6402382024NCS310", 0, 0); return err }},
		{"progeny size 101", "pageSize", func(ctx context.Context) error { _, err := c.Progeny(ctx, "6402382024NCS310", 0, 101); return err }},
		{"profile bad id", "lpnId", func(ctx context.Context) error { _, err := c.ByLPN(ctx, "ab"); return err }},
		{"search page -1", "page", search(SearchParams{Page: -1, PageSize: 10})},
		{"search size 0", "pageSize", search(SearchParams{})},
		{"search breed -1", "breedId", search(SearchParams{PageSize: 10, BreedID: -1})},
		{"search trait digits", "sortedBreedTrait", search(SearchParams{PageSize: 10, SortedTrait: "BWT1"})},
		{"search trait long", "sortedBreedTrait", search(SearchParams{PageSize: 10, SortedTrait: strings.Repeat("B", 17)})},
		{"group -1", "criteria.breedGroupId", crit(SearchCriteria{BreedGroupID: -1})},
		{"criteria breed -1", "criteria.breedId", crit(SearchCriteria{BreedID: -1})},
		{"born after format", "criteria.bornAfter", crit(SearchCriteria{BornAfter: "02/13/2024"})},
		{"born before date", "criteria.bornBefore", crit(SearchCriteria{BornBefore: "2024-02-30"})},
		{"dates reversed", "criteria.bornAfter", crit(SearchCriteria{BornAfter: "2024-01-02", BornBefore: "2024-01-01"})},
		{"gender", "criteria.gender", crit(SearchCriteria{Gender: "Ram"})},
		{"status control", "criteria.status", crit(SearchCriteria{Status: "CURRENT\n"})},
		{"flock long", "criteria.flockId", crit(SearchCriteria{FlockID: strings.Repeat("6", 65)})},
		{"range code", "criteria.traitRanges.B W", crit(SearchCriteria{TraitRanges: map[string]Range{"BWT": {0, 1}, "B W": {0, 1}}})},
		{"range code empty", "criteria.traitRanges.", crit(SearchCriteria{TraitRanges: map[string]Range{"": {0, 1}}})},
		{"range NaN", "criteria.traitRanges.WWT", crit(SearchCriteria{TraitRanges: map[string]Range{"WWT": {math.NaN(), 1}}})},
		{"range reversed", "criteria.traitRanges.WWT", crit(SearchCriteria{TraitRanges: map[string]Range{"WWT": {2, 1}}})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := asError(t, tc.call(ctxT(t)), KindInvalidArgument)
			if e.Param != tc.param || e.Reason == "" || e.Attempts != 0 || e.Status != 0 {
				t.Errorf("got %+v, want param %q with a reason and no request", e, tc.param)
			}
		})
	}
	if n := s.TotalRequests(); n != 0 {
		t.Errorf("argument checks let %d requests through", n)
	}
}

func TestByLPNConcurrent(t *testing.T) {
	// Each answer, once the stand-in has it ready, is held until all three
	// of the profile's parts have reached that point. Requests sent one
	// after another would wait for ever, so the call returning at all
	// proves they were sent together, and the stand-in then held all three
	// at once. The test's deadline only ends a call that would never
	// return; no clock decides the outcome.
	h := nsiptest.NewHandler(nsiptest.Options{Seed: 7})
	t.Cleanup(h.Close)
	var mu sync.Mutex
	ready := map[string]bool{}
	all := make(chan struct{})
	c := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&heldWriter{ResponseWriter: w, hold: func() {
			mu.Lock()
			if !ready[r.URL.Path] {
				ready[r.URL.Path] = true
				if len(ready) == 3 {
					close(all)
				}
			}
			mu.Unlock()
			select {
			case <-all:
			case <-r.Context().Done():
			}
		}}, r)
	})
	id := h.Data().MostProgeny()
	ctx := ctxT(t)
	p, err := c.ByLPN(ctx, id)
	if ctx.Err() != nil {
		t.Fatalf("the test's deadline ran out (%v): the profile's requests were not all in flight at once", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if p.Details.LPNID != id || p.Lineage.Subject.LPNID != id || p.Progeny.LPNID != id {
		t.Fatalf("profile of the wrong animal: %s %s %s", p.Details.LPNID, p.Lineage.Subject.LPNID, p.Progeny.LPNID)
	}
	if peak := h.PeakInFlight(); peak != 3 {
		t.Errorf("the stand-in held at most %d of the profile's requests at once, want all 3", peak)
	}
	for _, ep := range []string{nsiptest.EndpointDetails, nsiptest.EndpointLineage, nsiptest.EndpointProgeny} {
		if n := h.Requests(ep); n != 1 {
			t.Errorf("%s got %d requests, want 1", ep, n)
		}
	}
}

// heldWriter calls hold once, before the first byte of an answer goes out.
type heldWriter struct {
	http.ResponseWriter
	once sync.Once
	hold func()
}

func (w *heldWriter) WriteHeader(code int) {
	w.once.Do(w.hold)
	w.ResponseWriter.WriteHeader(code)
}

func (w *heldWriter) Write(b []byte) (int, error) {
	w.once.Do(w.hold)
	return w.ResponseWriter.Write(b)
}

func TestByLPNFailsAsAWhole(t *testing.T) {
	cases := []struct {
		endpoint, part string
		fault          nsiptest.Fault
		kind           Kind
	}{
		{nsiptest.EndpointDetails, "details", nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 404}, KindNotFound},
		{nsiptest.EndpointLineage, "lineage", nsiptest.Fault{Kind: nsiptest.FaultHTML200}, KindUnexpectedResponse},
		{nsiptest.EndpointProgeny, "progeny", nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 500}, KindUpstream},
	}
	for _, tc := range cases {
		t.Run(tc.part, func(t *testing.T) {
			s, c := standIn(t, nsiptest.FormatCurrent)
			// The other parts would take longer than the test's own
			// deadline, so the call returns only if the failing part's
			// siblings are cancelled rather than awaited.
			s.SetLatency("", time.Hour)
			s.SetLatency(tc.endpoint, 0)
			s.SetFault(tc.endpoint, tc.fault)
			// A 404 or a page makes the client check its base URL with
			// getDateLastUpdated first: answered at once, the check finds
			// the API there and the error keeps its kind, where an hour's
			// latency had it wait out the 15-s request timeout, three
			// quarters of the test's deadline.
			s.SetLatency(nsiptest.EndpointLastUpdated, 0)
			id := s.Data().MostProgeny()
			ctx := ctxT(t)
			p, err := c.ByLPN(ctx, id)
			if ctx.Err() != nil {
				t.Fatal("the test's deadline ran out: the other parts were awaited, not cancelled")
			}
			if p != nil {
				t.Fatalf("partial profile returned: %+v", p)
			}
			e := asError(t, err, tc.kind)
			if e.Endpoint != tc.endpoint {
				t.Errorf("error from %q, want %q", e.Endpoint, tc.endpoint)
			}
			if want := "profile of " + id + ": " + tc.part + " failed"; !strings.Contains(err.Error(), want) {
				t.Errorf("message %q does not say %q", err, want)
			}
			if errors.Is(err, context.Canceled) {
				t.Error("the reported error is a sibling's cancellation, not the failure")
			}
		})
	}
}

// TestRequestShape: paths join onto the base URL with or without a trailing
// slash, query values are encoded, and GETs carry no body.
func TestRequestShape(t *testing.T) {
	type seen struct{ method, path, rawQuery, search, ua, accept, ct string }
	for _, base := range []string{"/api", "/api/"} {
		got := make(chan seen, 1)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/"+pathDateLastUpdated) {
				// The base URL probe a 404 leads to: the API is here.
				_, _ = w.Write([]byte(`"2024-01-01"`))
				return
			}
			got <- seen{r.Method, r.URL.Path, r.URL.RawQuery, r.URL.Query().Get("searchString"), r.Header.Get("User-Agent"),
				r.Header.Get("Accept"), r.Header.Get("Content-Type")}
			w.WriteHeader(http.StatusNotFound)
		}))
		c, err := NewClient(WithBaseURL(ts.URL + base))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.AnimalDetails(ctxT(t), " REG 12&3=4/ü ")
		ts.Close()
		e := asError(t, err, KindNotFound)
		s := <-got
		want := seen{"GET", "/api/details/getAnimalDetails", "searchString=REG+12%263%3D4%2F%C3%BC", "REG 12&3=4/ü",
			"nsip-mcp/" + Version, "application/json, text/plain, */*", ""}
		if s != want || e.Value != "REG 12&3=4/ü" {
			t.Errorf("base %q: request %+v (error value %q)\nwant %+v", base, s, e.Value, want)
		}
	}
}
