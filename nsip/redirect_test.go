package nsip

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRedirectLeavingOriginRefused: an upstream that answers with a redirect
// to another address gets nothing from that address fetched, and the error
// says the redirect was refused without quoting what lies there.
func TestRedirectLeavingOriginRefused(t *testing.T) {
	var elsewhere atomic.Int64
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		_, _ = w.Write([]byte(`{"LpnId":"6401492020FLE249","internal":"password=hunter2"}`))
	}))
	defer secret.Close()
	var home atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		home.Add(1)
		switch r.URL.Path {
		case "/api/details/getAnimalDetails":
			http.Redirect(w, r, secret.URL+"/creds?x=1", http.StatusFound)
		case "/api/moved/search/getStatusesByBreedGroup":
			_, _ = w.Write([]byte(`["CURRENT","SOLD"]`))
		default:
			http.Redirect(w, r, "/api/moved"+strings.TrimPrefix(r.URL.Path, "/api"), http.StatusMovedPermanently)
		}
	}))
	defer origin.Close()
	c, err := NewClient(WithBaseURL(origin.URL+"/api"), quickRetries(3))
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.AnimalDetails(context.Background(), "6401492020FLE249")
	var ne *Error
	if !errors.As(err, &ne) {
		t.Fatalf("AnimalDetails error = %v, want *Error", err)
	}
	if ne.Kind != KindUnexpectedResponse || ne.Status != http.StatusFound || ne.Attempts != 1 {
		t.Errorf("error = %+v; want unexpected_response, HTTP 302, one attempt (a redirect is not retried)", ne)
	}
	msg := err.Error()
	if !strings.Contains(msg, "redirect to "+secret.URL+" refused") || !strings.Contains(msg, "only "+origin.URL+" is trusted") {
		t.Errorf("error %q does not say the redirect to %s was refused", msg, secret.URL)
	}
	if strings.Contains(msg, "hunter2") || strings.Contains(msg, "/creds") {
		t.Errorf("error %q quotes the redirect target", msg)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other origin was fetched %d times, want 0", n)
	}

	// A redirect within the origin is still followed.
	home.Store(0)
	_, err = c.Statuses(context.Background())
	if err != nil || home.Load() != 2 {
		t.Errorf("same-origin redirect: %v after %d requests; want an answer after 2 requests (the redirect and its target)", err, home.Load())
	}
}

// TestRedirectCheckAppliesToCallersClient: a client given by the caller is
// kept to the origin too, and its own CheckRedirect still runs.
func TestRedirectCheckAppliesToCallersClient(t *testing.T) {
	var elsewhere, checked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			http.Redirect(w, r, "/again"+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { checked.Add(1); return nil }}
	c, err := NewClient(WithBaseURL(origin.URL+"/api"), WithHTTPClient(hc), quickRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Statuses(context.Background())
	if err == nil || !strings.Contains(err.Error(), "redirect to "+other.URL+" refused") {
		t.Errorf("error = %v, want the redirect to %s refused", err, other.URL)
	}
	if elsewhere.Load() != 0 || checked.Load() != 1 {
		t.Errorf("other origin fetched %d times (want 0); caller's CheckRedirect ran %d times (want 1, for the same-origin hop)", elsewhere.Load(), checked.Load())
	}
}
