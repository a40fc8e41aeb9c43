package bare

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A result as nsip-mcp writes a cached answer: _meta, the text, and the
// structured copy of the same answer.
const cached = `{"_meta":{"budget":2000,"cache":"hit","original_tokens":412,"summarized":false,"tokens":412},` +
	`"content":[{"type":"text","text":"{\"LpnId\":\"6####92020###249\",\"Breed\":\"Katahdin\",\"Ebv\":{\"BWT\":0.25}}"}],` +
	`"structuredContent":{"breed":"Katahdin","ebvs":{"BWT":0.25},"lpn_id":"6####92020###249"}}`

// The bare server stands in for nsip-mcp only if it writes the same bytes:
// every member of the result, structuredContent included.
func TestAnswersWithTheSameBytes(t *testing.T) {
	s, err := New(json.RawMessage(cached), []string{"nsip_get_animal", "nsip_get_lineage"})
	if err != nil {
		t.Fatal(err)
	}
	for i, tool := range []string{"nsip_get_animal", "nsip_get_lineage", "nsip_get_animal"} {
		msg := `{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"search_string":"x"}}}`
		out, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(env.Result, []byte(cached)) {
			t.Errorf("%s: result\n  %s\nwant\n  %s", tool, env.Result, cached)
		}
	}
}

func TestRefusesWhatIsNotAToolResult(t *testing.T) {
	for in, want := range map[string]string{
		`[1,2]`:           "not a tool result",
		`{"content":[]}`:  "no content",
		`{"_meta":{}}`:    "no content",
		`{"content":[{"t`: "not a tool result",
	} {
		if _, err := New(json.RawMessage(in), []string{"a"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", in, err, want)
		}
	}
}
