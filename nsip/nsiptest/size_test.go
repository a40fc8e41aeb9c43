package nsiptest_test

import (
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// TestPayloadTokenSizes keeps the answers as large as the real API's, in
// cl100k_base tokens of the compact JSON, within 25% of the targets the
// summarizers are designed for.
func TestPayloadTokenSizes(t *testing.T) {
	// The counter the server's budgets use: the one place that loads the
	// cl100k_base table.
	counter, err := summarize.NewCounter()
	if err != nil {
		t.Fatalf("cl100k_base: %v", err)
	}
	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
	d := srv.Data()
	deep, parent := d.DeepPedigree(), d.MostProgeny()
	cases := []struct {
		name, method, path string
		target             int
	}{
		{"animal details", "GET", nsiptest.EndpointDetails + "?searchString=" + deep, 420},
		{"15-row search page", "POST", nsiptest.EndpointSearch + "?page=0&pageSize=15", 4200},
		{"100-row search page", "POST", nsiptest.EndpointSearch + "?page=0&pageSize=100", 28000},
		{"100-row progeny page", "GET", nsiptest.EndpointProgeny + "?page=0&pageSize=100&lpnId=" + parent, 21500},
		{"four-generation lineage", "GET", nsiptest.EndpointLineage + "?lpnId=" + deep, 2600},
	}
	for _, f := range formats {
		srv.SetFormat(f)
		for _, c := range cases {
			body := ""
			if c.method == "POST" {
				body = "{}"
			}
			r := do(t, srv, c.method, c.path, body)
			wantStatus(t, r, 200)
			n := counter.Count(string(r.body))
			t.Logf("%-7s %-22s %6d bytes %6d tokens (target %d)", f, c.name, len(r.body), n, c.target)
			if f == nsiptest.FormatCurrent && (n < c.target*3/4 || n > c.target*5/4) {
				t.Errorf("%s: %d tokens, want %d ± 25%%", c.name, n, c.target)
			}
		}
	}
}
