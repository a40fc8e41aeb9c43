package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/views"
)

func getWebAppPage(t *testing.T, url, origin string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// MCP_WEB_APP: off (the default) the binary serves no /app; on, the page
// is served on both HTTP transports as HTML under its CSP.
func TestWebAppSetting(t *testing.T) {
	watchdog(t, testLimit)
	off := startServer(t, "websocket")
	if resp, body := getWebAppPage(t, off.BaseURL+"/app", ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("MCP_WEB_APP unset: GET /app %d %.80q, want 404", resp.StatusCode, body)
	}
	for _, kind := range []string{"websocket", "http-sse"} {
		s := startServer(t, kind, "MCP_WEB_APP=on")
		resp, body := getWebAppPage(t, s.BaseURL+"/app", "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("%s: GET /app %d %q, want 200 text/html; charset=utf-8", kind, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if csp := resp.Header.Get("Content-Security-Policy"); csp != views.WebAppCSP {
			t.Fatalf("%s: CSP %q, want %q", kind, csp, views.WebAppCSP)
		}
		if !strings.Contains(body, "<title>NSIP flock tools</title>") {
			t.Fatalf("%s: the page is not the web app: %.200q", kind, body)
		}
		if !strings.Contains(s.Stderr(), s.BaseURL+"/app") {
			t.Errorf("%s: the log does not name the page's address:\n%s", kind, s.Stderr())
		}
	}
}

// The page follows the transport's origin rules: same host and loopback
// pages always, others only when MCP_ALLOWED_ORIGINS lists them.
func TestWebAppOrigins(t *testing.T) {
	watchdog(t, testLimit)
	s := startServer(t, "websocket", "MCP_WEB_APP=on", "MCP_ALLOWED_ORIGINS=https://flock.example.org")
	for origin, want := range map[string]int{
		"":                          http.StatusOK,
		s.BaseURL:                   http.StatusOK,
		"https://flock.example.org": http.StatusOK,
		"https://evil.example":      http.StatusForbidden,
	} {
		resp, body := getWebAppPage(t, s.BaseURL+"/app", origin)
		if resp.StatusCode != want {
			t.Errorf("Origin %q: %d, want %d", origin, resp.StatusCode, want)
		}
		if want == http.StatusForbidden && !strings.Contains(body, "MCP_ALLOWED_ORIGINS") {
			t.Errorf("Origin %q: refusal %q does not name MCP_ALLOWED_ORIGINS", origin, body)
		}
	}
}
