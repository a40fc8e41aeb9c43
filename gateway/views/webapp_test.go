package views

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// The web app is served as HTML under the policy its page carries, plus
// frame-ancestors, which only a header can set; it loads nothing from the
// network and holds no token.
func TestWebAppIsServedUnderItsPolicy(t *testing.T) {
	rec := httptest.NewRecorder()
	WebApp().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/app", nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	html := string(body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q; want 200 text/html; charset=utf-8", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if got := res.Header.Get("Content-Security-Policy"); got != WebAppCSP {
		t.Fatalf("CSP header %q, want %q", got, WebAppCSP)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("headers %v", res.Header)
	}
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(html)
	if m == nil || m[1]+"; frame-ancestors 'none'" != WebAppCSP {
		t.Fatalf("the page's CSP %q is not the header's %q less frame-ancestors", m, WebAppCSP)
	}
	for _, d := range []string{"default-src 'none'", "connect-src 'self'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(WebAppCSP, d) {
			t.Errorf("CSP lacks %q", d)
		}
	}
	if strings.Contains(WebAppCSP, "http") || strings.Contains(WebAppCSP, "*") {
		t.Errorf("CSP names an origin or a wildcard: %q", WebAppCSP)
	}
	external := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)\s*=\s*["']?(https?:)?//`)
	if loc := external.FindString(html); loc != "" {
		t.Errorf("the page loads from the network: %q", loc)
	}
	if n := strings.Count(html, "<script"); n != 1 || strings.Contains(html, "<script src") || strings.Contains(html, "<link") {
		t.Errorf("%d scripts, want one inline script and no links", n)
	}
	for _, want := range []string{`<meta name="viewport" content="width=device-width,initial-scale=1">`, `id="search-form"`, `id="breed"`, `"/ws"`, `sandbox`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(strings.ToLower(html), "bearer ey") || strings.Contains(html, "access_token=") {
		t.Errorf("the page carries a token")
	}
}
