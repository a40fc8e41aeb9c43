package lookup

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

func TestLastUpdateContract(t *testing.T) { checkContract(t, LastUpdate) }

// The tool takes no argument but max_tokens: a misspelt one is pointed
// to it, any other is told there is nothing else to send.
func TestLastUpdateArguments(t *testing.T) {
	if got := LastUpdate.Read(valid(t, LastUpdate, map[string]any{})).Key; got != `get_date_last_updated:{}` {
		t.Errorf("key %s", got)
	}
	if fe := invalid(t, LastUpdate, map[string]any{"max_token": 100}); fe.Field != "max_token" ||
		!strings.Contains(fe.Problem, `did you mean "max_tokens"?`) {
		t.Errorf("max_token: %+v", fe)
	}
	if fe := invalid(t, LastUpdate, map[string]any{"since": "2025-01-01"}); fe.Field != "since" || fe.Expected != "one of max_tokens" {
		t.Errorf("since: %+v", fe)
	}
}

// The answer is the date of the stand-in's evaluation, as NSIP writes it.
func TestLastUpdateFetch(t *testing.T) {
	data, c := standIn(t)
	v, err := fetch[nsip.LastUpdate](t, c, LastUpdate, map[string]any{"max_tokens": 500})
	if err != nil {
		t.Fatal(err)
	}
	if v.Date != data.LastUpdated() || v.Date == "" {
		t.Errorf("date %q, want %q", v.Date, data.LastUpdated())
	}
}
