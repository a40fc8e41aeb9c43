package views

import (
	_ "embed"
	"net/http"
	"strconv"
)

// webAppPage is the breeder's web app: one self-contained page, built from
// src/webapp/ by the same build as the views.
//
//go:embed app/webapp.html
var webAppPage []byte

// WebAppCSP is the policy the web app is served under: the one in its page
// (its own inline script and styles, connections to its own origin only,
// which is the server's endpoint, 'self' covering ws: and wss: on it; the
// sandboxed views as srcdoc frames, which inherit this policy on top of
// their own) and, since a meta tag cannot say it, no framing of the page
// by others. Nothing is loaded from anywhere else.
const WebAppCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
	"connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// WebApp serves the web app's page. The page holds no secret: a token, when
// the server wants one, is typed in or given in the address's fragment,
// which browsers never send to the server.
func WebApp() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", WebAppCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Length", strconv.Itoa(len(webAppPage)))
		_, _ = w.Write(webAppPage)
	})
}
