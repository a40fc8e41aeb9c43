package lookup

import (
	"slices"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestStatusesContract(t *testing.T) { checkContract(t, Statuses) }

// NSIP's endpoint is named for breed groups, but the tool takes none:
// a breed group sent is refused, not silently dropped.
func TestStatusesArguments(t *testing.T) {
	if got := Statuses.Read(valid(t, Statuses, map[string]any{"max_tokens": 300})).Key; got != `get_statuses_by_breed_group:{}` {
		t.Errorf("key %s", got)
	}
	if fe := invalid(t, Statuses, map[string]any{"breed_group_id": 64}); fe.Field != "breed_group_id" ||
		fe.Problem != "is not an argument of this tool" || fe.Expected != "one of max_tokens" {
		t.Errorf("breed_group_id: %+v", fe)
	}
}

// The answer lists every status the stand-in records, in its order.
func TestStatusesFetch(t *testing.T) {
	data, c := standIn(t)
	v, err := fetch[nsip.Statuses](t, c, Statuses, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.Values, data.Statuses()) || !slices.Contains(v.Values, "CURRENT") {
		t.Errorf("statuses %v, want %v", v.Values, data.Statuses())
	}
}
