package gateway

import (
	"strings"
	"testing"
)

// A progeny read whose query the template cannot take is refused for what
// is wrong with the query. Before, mcp-go matched such a URI but passed no
// variables, and the answer was "lpn_id is required" for a URI that has
// one.
func TestOddProgenyQueriesNameTheRealProblem(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	base := "nsip://animals/" + id + "/progeny"
	for _, tc := range []struct{ query, want string }{
		{"?pagesize=5", `unknown query parameter \"pagesize\": nsip://animals/{lpn_id}/progeny takes only page, page_size, skip`},
		{"?page_size=5&foo=1", `unknown query parameter \"foo\"`},
		{"?page=1&page=2", "page is given 2 times in the query; give it once"},
	} {
		_, err := e.read(base + tc.query)
		if err == nil {
			t.Errorf("%s: read succeeded", tc.query)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "lpn_id is required") {
			t.Errorf("%s: %s\nwant it to say %s", tc.query, msg, tc.want)
		}
	}
	// The queries it takes still work.
	e.mustRead(t, base+"?page=0&page_size=5")
	e.mustRead(t, base)
}
