//go:build e2e

package gateway

import (
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache/redistest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

func deflate(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	_, _ = io.WriteString(w, s)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A replica with a token budget of 1000 must not serve another replica's
// fit for a budget of 8000 (a 6,700-token search page passes through
// whole there). It fetches and fits for itself, and a third replica with
// its budget shares its fit.
func TestSharedReplicasWithOtherBudgetsFitForThemselves(t *testing.T) {
	rd := redistest.Start(t)
	budgets := []int{8000, 1000, 1000}
	i := 0
	rs, up := newReplicas(t, 3, rd.URL(), func(c *Config) { c.Budget = budgets[i]; i++ })
	args := map[string]any{"page": 8, "page_size": 25}

	big := rs[0].call(t, "nsip_search_animals", args).mustOK(t)
	if tokens := big.metaInt(t, "tokens"); tokens <= 6000 || tokens > 8000 || big.meta["summarized"] != false {
		t.Fatalf("A (budget 8000): %d tokens, summarized %v; want the whole page of over 6000 tokens", tokens, big.meta["summarized"])
	}
	small := rs[1].call(t, "nsip_search_animals", args).mustOK(t)
	if tokens := small.metaInt(t, "tokens"); tokens > 1000 || small.meta["summarized"] != true || small.metaInt(t, "budget") != 1000 {
		t.Errorf("B (budget 1000): %d tokens, summarized %v, budget %d; want a summary within 1000", tokens, small.meta["summarized"], small.metaInt(t, "budget"))
	}
	if src := cacheSource(t, small); src != cacheMiss || up.Requests(nsiptest.EndpointSearch) != 2 {
		t.Errorf("B: _meta.cache %q after %d upstream requests; want miss and 2", src, up.Requests(nsiptest.EndpointSearch))
	}
	same := rs[2].call(t, "nsip_search_animals", args).mustOK(t)
	if src := cacheSource(t, same); src != cacheShared || same.text != small.text || up.Requests(nsiptest.EndpointSearch) != 2 {
		t.Errorf("C (budget 1000): _meta.cache %q, same text as B %v, %d upstream requests; want B's fit, shared, and still 2",
			src, same.text == small.text, up.Requests(nsiptest.EndpointSearch))
	}
}
