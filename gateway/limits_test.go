package gateway

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
)

// TestLimitsAreTheClients checks each bound at its edge: the largest (or
// smallest) value nsip accepts passes the gateway's validation and reaches
// the stand-in, and one past it is refused by the gateway naming the field.
// Both sides read the same constants, so moving one moves the other.
func TestLimitsAreTheClients(t *testing.T) {
	e := newEnv(t)
	lpn := e.up.Data().MostProgeny()
	crit := func(k, v string) map[string]any { return map[string]any{"search_criteria": map[string]any{k: v}} }
	tests := []struct {
		name      string
		tool      string
		edge, out map[string]any
		field     string
	}{
		{"progeny page size", "nsip_get_progeny",
			map[string]any{"lpn_id": lpn, "page_size": nsip.MaxPageSize},
			map[string]any{"lpn_id": lpn, "page_size": nsip.MaxPageSize + 1}, "page_size"},
		{"search page size", "nsip_search_animals",
			map[string]any{"page_size": nsip.MaxPageSize},
			map[string]any{"page_size": nsip.MaxPageSize + 1}, "page_size"},
		{"shortest LPN ID", "nsip_get_lineage",
			map[string]any{"lpn_id": strings.Repeat("6", nsip.MinLPNIDLength)},
			map[string]any{"lpn_id": strings.Repeat("6", nsip.MinLPNIDLength-1)}, "lpn_id"},
		{"longest LPN ID", "nsip_get_lineage",
			map[string]any{"lpn_id": strings.Repeat("6", nsip.MaxLPNIDLength)},
			map[string]any{"lpn_id": strings.Repeat("6", nsip.MaxLPNIDLength+1)}, "lpn_id"},
		{"longest search string", "nsip_get_animal",
			map[string]any{"search_string": strings.Repeat("6", nsip.MaxSearchStringLength)},
			map[string]any{"search_string": strings.Repeat("6", nsip.MaxSearchStringLength+1)}, "search_string"},
		{"longest flock ID", "nsip_search_animals",
			crit("flock_id", strings.Repeat("6", nsip.MaxCriteriaLength)),
			crit("flock_id", strings.Repeat("6", nsip.MaxCriteriaLength+1)), "search_criteria.flock_id"},
		{"longest status", "nsip_search_animals",
			crit("status", strings.Repeat("S", nsip.MaxCriteriaLength)),
			crit("status", strings.Repeat("S", nsip.MaxCriteriaLength+1)), "search_criteria.status"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := e.up.TotalRequests()
			if r := e.call(tc.tool, tc.edge); r.isError {
				// A status is checked against NSIP's list, read from NSIP:
				// one at the limit of length is refused as no status NSIP
				// records, not for its length.
				if te := r.errorBody(t); te.Code == toolerr.CodeInvalidArgument && !(tc.field == "search_criteria.status" && strings.Contains(te.Problem, "is not a status NSIP records")) {
					t.Fatalf("value at the limit refused: %+v", te)
				}
			}
			if e.up.TotalRequests() == before {
				t.Fatalf("value at the limit never reached NSIP")
			}
			te := e.call(tc.tool, tc.out).errorBody(t)
			if te.Code != toolerr.CodeInvalidArgument || te.Field != tc.field {
				t.Fatalf("value past the limit: code %s field %q, want %s on %s (%s)", te.Code, te.Field, toolerr.CodeInvalidArgument, tc.field, te.Problem)
			}
		})
	}
}
