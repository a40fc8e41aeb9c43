package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// newEnvAt is an env whose client asks at the URL rewrite makes of the
// stand-in's API root.
func newEnvAt(t *testing.T, rewrite func(apiURL string) string) *env {
	t.Helper()
	e := newEnv(t)
	c, err := nsip.NewClient(nsip.WithBaseURL(rewrite(e.up.URL())),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	e.gw.up = c
	return e
}

// wantMisconfigured checks that r is the configuration error naming
// NSIP_BASE_URL, with why, and that the log says so to the operator.
func wantMisconfigured(t *testing.T, e *env, r reply, why string) {
	t.Helper()
	b := r.errorBody(t)
	if b.Code != toolerr.CodeMisconfigured || !strings.Contains(b.Problem, "NSIP_BASE_URL") || !strings.Contains(b.Problem, why) {
		t.Errorf("error = %s %q; want misconfigured naming NSIP_BASE_URL and %q", b.Code, b.Problem, why)
	}
	if b.Next != toolerr.MisconfiguredNext {
		t.Errorf("next = %q; want the advice for a wrong setting", b.Next)
	}
	if rec := findLog(t, e.logs, "NSIP_BASE_URL does not lead to the NSIP API"); rec["level"] != "ERROR" {
		t.Errorf("log = %v; want an error-level record", rec)
	}
}

// A base URL without /api reaches a web server that has none of NSIP's
// endpoints: the model hears of the setting, not of a missing animal or a
// breed list NSIP "has no" of.
func TestBaseURLWithoutAPIPathIsMisconfigured(t *testing.T) {
	withoutAPI := func(u string) string { return strings.TrimSuffix(u, "/api") }
	t.Run("argument-less endpoint", func(t *testing.T) {
		e := newEnvAt(t, withoutAPI)
		wantMisconfigured(t, e, e.call("nsip_list_breeds", map[string]any{}), "answers 404 for endpoints NSIP has")
	})
	t.Run("animal", func(t *testing.T) {
		e := newEnvAt(t, withoutAPI)
		lpn := e.up.Data().AnimalIDs()[0]
		wantMisconfigured(t, e, e.call("nsip_get_animal", map[string]any{"search_string": lpn}), "answers 404 for endpoints NSIP has")
	})
}

// The probe behind a 404 for an animal does not turn a real miss into a
// configuration error once the base URL is shown right.
func TestMissingAnimalAtARightBaseURLIsNotFound(t *testing.T) {
	e := newEnv(t)
	b := e.call("nsip_get_animal", map[string]any{"search_string": "9999999999ZZZ999"}).errorBody(t)
	if b.Code != toolerr.CodeNotFound {
		t.Fatalf("error = %s %q; want not_found", b.Code, b.Problem)
	}
	// Asked again (not cached), the base URL is known good: no probe.
	e.up.ResetCounts()
	e.call("nsip_get_animal", map[string]any{"search_string": "9999999999ZZZ998"}).errorBody(t)
	if n := e.up.TotalRequests(); n != 1 {
		t.Errorf("second miss made %d requests; want 1 (no probe once the base URL answered JSON)", n)
	}
}

func TestHTTPSAgainstPlainHTTPPortIsMisconfigured(t *testing.T) {
	e := newEnvAt(t, func(u string) string { return strings.Replace(u, "http://", "https://", 1) })
	wantMisconfigured(t, e, e.call("nsip_list_breeds", map[string]any{}), "says https, but the server there speaks plain HTTP")
}

func TestHTTPAgainstTLSPortIsMisconfigured(t *testing.T) {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	e := newEnvAt(t, func(string) string { return strings.Replace(ts.URL, "https://", "http://", 1) + "/api" })
	wantMisconfigured(t, e, e.call("nsip_list_breeds", map[string]any{}), "says http, but the server there speaks HTTPS")
}

// A web site (a single-page app answers every path with its page) where
// NSIP's JSON belongs.
func TestWebPageWhereJSONBelongsIsMisconfigured(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!DOCTYPE html><html><body>Welcome</body></html>"))
	}))
	t.Cleanup(ts.Close)
	e := newEnvAt(t, func(string) string { return ts.URL + "/api" })
	wantMisconfigured(t, e, e.call("nsip_get_animal", map[string]any{"search_string": "6402382024NCS310"}),
		"sends web pages where NSIP sends JSON")
}
