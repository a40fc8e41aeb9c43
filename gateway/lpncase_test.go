package gateway

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// An LPN ID in lower case is the same animal: the same cache entry and the
// same NSIP request as in upper case. Before, each spelling was a cache
// entry and a request of its own.
func TestLowercaseLPNIDIsTheSameEntry(t *testing.T) {
	e := newEnv(t)
	id := e.up.Data().MostProgeny()
	lower := strings.ToLower(id)
	for _, tc := range []struct {
		tool, arg, endpoint string
	}{
		{"nsip_get_animal", "search_string", nsiptest.EndpointDetails},
		{"nsip_get_lineage", "lpn_id", nsiptest.EndpointLineage},
		{"nsip_get_progeny", "lpn_id", nsiptest.EndpointProgeny},
	} {
		first := e.call(tc.tool, map[string]any{tc.arg: lower}).mustOK(t)
		second := e.call(tc.tool, map[string]any{tc.arg: id}).mustOK(t)
		if got := e.up.Requests(tc.endpoint); got != 1 {
			t.Errorf("%s: %d NSIP requests for %s then %s, want 1", tc.tool, got, lower, id)
		}
		if second.meta["cache"] != cacheHit || first.text != second.text {
			t.Errorf("%s: the uppercase call was %v, want a hit on the lowercase call's answer", tc.tool, second.meta["cache"])
		}
	}
	// The profile shares the parts already fetched.
	e.call("nsip_search_by_lpn", map[string]any{"lpn_id": lower}).mustOK(t)
	if got := e.up.TotalRequests(); got != 3 {
		t.Errorf("NSIP requests after the profile = %d, want still 3", got)
	}
}
