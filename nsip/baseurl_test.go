package nsip

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// recorder collects what WithRequestHook reports.
type recorder struct {
	mu   sync.Mutex
	seen []RequestInfo
}

func (r *recorder) hook(_ context.Context, info RequestInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, info)
}

func TestBaseURLWithoutAPIPathIsMisconfigured(t *testing.T) {
	s := nsiptest.NewServer(t, nsiptest.Options{Seed: 7})
	var rec recorder
	c, err := NewClient(WithBaseURL(strings.TrimSuffix(s.URL(), "/api")), quickRetries(3), WithRequestHook(rec.hook))
	if err != nil {
		t.Fatal(err)
	}
	// An endpoint that takes no argument cannot be missing anything.
	_, err = c.BreedGroups(ctxT(t))
	e := asError(t, err, KindMisconfigured)
	if e.Status != 404 || e.Attempts != 1 || !strings.Contains(e.Reason, "no endpoint "+pathBreedGroups) {
		t.Errorf("breed groups: %+v", e)
	}
	// A miss is checked against an argument-less endpoint, which 404s too.
	_, err = c.AnimalDetails(ctxT(t), s.Data().AnimalIDs()[0])
	e = asError(t, err, KindMisconfigured)
	if e.Param != "" || e.Endpoint != pathDetails {
		t.Errorf("details: %+v", e)
	}
	if len(rec.seen) != 3 || !rec.seen[2].Probe || rec.seen[2].Endpoint != pathDateLastUpdated || rec.seen[1].Status != 404 || rec.seen[1].Attempt != 1 {
		t.Errorf("hook saw %+v; want breed groups, details, then a probe of %s", rec.seen, pathDateLastUpdated)
	}
}

// The first 404 at a base URL not yet seen answering JSON costs one probe;
// the probe's JSON answer shows the miss is real, and no later miss probes.
func TestFirstNotFoundProbesOnce(t *testing.T) {
	s, c := standIn(t, nsiptest.FormatLegacy)
	for i := range 2 {
		s.ResetCounts()
		asError(t, func() error { _, err := c.AnimalDetails(ctxT(t), "6409992099ZZZ999"); return err }(), KindNotFound)
		want := 1
		if i == 0 {
			want = 2
		}
		if n := s.TotalRequests(); n != want {
			t.Errorf("miss %d: %d requests, want %d", i+1, n, want)
		}
	}
}

func TestHTTPSAgainstPlainPortIsMisconfigured(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	c, err := NewClient(WithBaseURL(strings.Replace(ts.URL, "http://", "https://", 1)+"/api"), quickRetries(3))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Statuses(ctxT(t))
	if e := asError(t, err, KindMisconfigured); e.Attempts != 1 || !strings.Contains(e.Reason, "speaks plain HTTP") {
		t.Errorf("got %+v; want one attempt, no retry", e)
	}
}

func TestPlainHTTPAgainstTLSPortIsMisconfigured(t *testing.T) {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	c, err := NewClient(WithBaseURL(strings.Replace(ts.URL, "https://", "http://", 1)+"/api"), quickRetries(3))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Statuses(ctxT(t))
	if e := asError(t, err, KindMisconfigured); e.Status != 400 || !strings.Contains(e.Reason, "speaks HTTPS") {
		t.Errorf("got %+v", e)
	}
}

func TestUntrustedCertificateIsMisconfigured(t *testing.T) {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	c, err := NewClient(WithBaseURL(ts.URL+"/api"), quickRetries(3))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Statuses(ctxT(t))
	if e := asError(t, err, KindMisconfigured); !strings.Contains(e.Reason, "certificate") {
		t.Errorf("got %+v", e)
	}
}

// A web page on every path is no NSIP API; a page on one endpoint while the
// others answer JSON is that endpoint's failure.
func TestWebPagesEverywhereAreMisconfigured(t *testing.T) {
	page := func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<!DOCTYPE html><html></html>")) }
	_, err := fakeUpstream(t, page).Statuses(ctxT(t))
	asError(t, err, KindMisconfigured)
	_, err = fakeUpstream(t, apiHere(page)).Statuses(ctxT(t))
	asError(t, err, KindUnexpectedResponse)
}
