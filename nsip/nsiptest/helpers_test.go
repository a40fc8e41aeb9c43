package nsiptest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// reply is one HTTP answer as a client sees it.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request to the stand-in; body "" sends none. A fresh
// transport per call keeps Go's automatic retry of GETs on reused
// connections out of the request counts.
func do(t *testing.T, srv *nsiptest.Server, method, path, body string) reply {
	t.Helper()
	r, err := send(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, srv, method, path, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

func send(c *http.Client, srv *nsiptest.Server, method, path, body string) (reply, error) {
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	req, err := http.NewRequest(method, srv.URL()+"/"+path, rd)
	if err != nil {
		return reply{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}, err
}

func get(t *testing.T, srv *nsiptest.Server, path string) reply {
	t.Helper()
	return do(t, srv, http.MethodGet, path, "")
}

// decode200 checks for a 200 and decodes its body into v.
func decode200(t *testing.T, r reply, v any) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200; body %.300s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %.300s: %v", r.body, err)
	}
}

// envelope is the current format's wrapper.
type envelope[T any] struct {
	Success *bool `json:"success"`
	Data    T     `json:"data"`
}

func unwrap[T any](t *testing.T, r reply) T {
	t.Helper()
	var e envelope[T]
	decode200(t, r, &e)
	if e.Success == nil || !*e.Success {
		t.Fatalf("success is not true in %.200s", r.body)
	}
	return e.Data
}

func animal(t *testing.T, d *nsiptest.Dataset, id string) nsiptest.Animal {
	t.Helper()
	a, ok := d.Animal(id)
	if !ok {
		t.Fatalf("dataset has no animal %q", id)
	}
	return a
}
