package nsip

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects bounds redirects within the configured origin (a moved path,
// http to a canonical form); Go's own default is ten.
const maxRedirects = 3

// redirectError is why a redirect was not followed. Only the target's origin
// is named: its path and query could carry anything.
type redirectError struct {
	target  string // origin of the Location, e.g. "http://10.0.0.5:8080"
	origin  string // the configured origin
	tooMany bool
}

func (e *redirectError) Error() string {
	if e.tooMany {
		return fmt.Sprintf("more than %d redirects within %s; not followed further", maxRedirects, e.origin)
	}
	return fmt.Sprintf("redirect to %s refused: only %s is trusted to answer for NSIP", e.target, e.origin)
}

// keepToOrigin returns a copy of hc that follows a redirect only within the
// base URL's origin. Anything fetched from another host would be served,
// cached and quoted in errors as NSIP's answer, so the request stops at the
// redirect instead. A CheckRedirect of the caller's own still runs after
// this one.
func (c *Client) keepToOrigin(hc *http.Client) *http.Client {
	cp := *hc
	next := hc.CheckRedirect
	home := originOf(c.baseURL)
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if to := originOf(req.URL); to != home {
			return &redirectError{target: to, origin: home}
		}
		if len(via) > maxRedirects {
			return &redirectError{origin: home, tooMany: true}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cp
}

// originOf is scheme://host:port in lower case, with the scheme's default
// port written out so that "HTTP://Host" and "http://host:80" compare equal.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
