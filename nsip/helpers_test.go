package nsip

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

var formats = nsiptest.Formats()

// quickRetries keeps retry tests fast while leaving Retry-After honoured.
func quickRetries(attempts int) Option {
	return WithRetryPolicy(RetryPolicy{MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxRetryAfter: 3 * time.Second})
}

// standIn starts a stand-in upstream and a client pointed at it.
func standIn(t testing.TB, f nsiptest.Format, opts ...Option) (*nsiptest.Server, *Client) {
	t.Helper()
	s := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Format: f})
	return s, newClient(t, s, opts...)
}

// newClient returns a client with its own connection pool for s.
func newClient(t testing.TB, s *nsiptest.Server, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(append([]Option{WithBaseURL(s.URL()), quickRetries(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// upstreamBody fetches a path of the stand-in directly, to compare Raw with.
func upstreamBody(t testing.TB, s *nsiptest.Server, method, path string, q url.Values, body string) []byte {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL()+"/"+path+"?"+q.Encode(), rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("direct %s %s: %d %v", method, path, resp.StatusCode, err)
	}
	return b
}

func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s Raw differs from the upstream body:\n got %.200s\nwant %.200s", what, got, want)
	}
}

// wantTraits is what the client should report for a generated animal:
// every trait, those the breed adds to the thirteen and those without
// accuracy included, with accuracies in percent, in TraitCodes order.
func wantTraits(ts []nsiptest.Trait) []Trait {
	out := make([]Trait, 0, len(ts))
	for _, t := range ts {
		tr := Trait{Code: t.Code, Value: t.Value, Accuracy: float64(t.Accuracy), HasAccuracy: t.Accuracy >= 0}
		if !tr.HasAccuracy {
			tr.Accuracy = 0
		}
		out = append(out, tr)
	}
	slices.SortFunc(out, func(a, b Trait) int { return compareTraitCodes(a.Code, b.Code) })
	return out
}

func wantIndexes(ix []nsiptest.Index) []Index {
	out := make([]Index, 0, len(ix))
	for _, i := range ix {
		out = append(out, Index{Name: i.Name, Value: i.Value})
	}
	slices.SortFunc(out, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func sortedIndexes(ix []Index) []Index {
	out := slices.Clone(ix)
	slices.SortFunc(out, func(a, b Index) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fakeUpstream serves h for cases the stand-in does not model, such as
// inspecting the request or answering with a hand-written body.
// apiHere answers the requests the client makes on its own to check the
// base URL (argument-less endpoints, after a 404 or a web page) as NSIP
// does, and passes every other request to h: a fake that answers one way
// to every path would otherwise be a wrong base URL.
func apiHere(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/"+pathDateLastUpdated):
			_, _ = w.Write([]byte(`"2024-01-01"`))
		case strings.HasSuffix(r.URL.Path, "/"+pathBreedGroups):
			_, _ = w.Write([]byte(`[]`))
		default:
			h(w, r)
		}
	}
}

func fakeUpstream(t testing.TB, h http.HandlerFunc, opts ...Option) *Client {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := NewClient(append([]Option{WithBaseURL(ts.URL + "/api"), quickRetries(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
