package gateway

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nsip-tools/nsip-mcp/nsip"
)

// Hosts differ in what part of a result they hand their model
// (specs/answers.md): the text; only the structured copy, as
// JSON.stringify writes it; or both, unless the text is the copy verbatim.
// TestEveryHostPolicyStaysInBudget plays the three over every tool, with
// answers passed through close to the budget and answers summarized, and
// holds each to the budget the call was fitted to.
func TestEveryHostPolicyStaysInBudget(t *testing.T) {
	e := newEnv(t)
	_, counter := summarizer(t)
	data := e.up.Data()
	parent, founder, lone := data.MostProgeny(), data.Founder(), data.NoProgeny()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"nsip_get_last_update", nil},
		{"nsip_list_breeds", nil},
		{"nsip_get_statuses", nil},
		{"nsip_get_trait_ranges", map[string]any{"breed_id": 640}},
		// Five rows pass through close to the budget; a hundred are summarized.
		{"nsip_search_animals", map[string]any{"page_size": 5, "breed_id": 640}},
		{"nsip_search_animals", map[string]any{"page_size": 100}},
		{"nsip_get_animal", map[string]any{"search_string": parent}},
		{"nsip_get_animal", map[string]any{"search_string": parent, "percentiles": true}},
		{"nsip_get_lineage", map[string]any{"lpn_id": parent}},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 5}},
		{"nsip_get_progeny", map[string]any{"lpn_id": parent, "page_size": 100}},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": parent}},
		{"nsip_search_by_lpn", map[string]any{"lpn_id": lone}},
		{"nsip_check_mating", map[string]any{"sire_lpn_id": parent, "dam_lpn_id": founder}},
		{"nsip_compare_animals", map[string]any{"lpn_ids": []string{parent, founder}}},
		{"nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"WWT": 1, "BWT": -0.5}, "top_n": 10}},
		{"nsip_flock_summary", map[string]any{"flock_id": strings.ToUpper(parent[4:10])}},
		{"nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{parent}, "ewe_lpn_ids": []string{founder}, "weights": map[string]any{"WWT": 1}}},
		// Its answer from the breed's pass, read before the calls.
		{"nsip_breed_diversity", map[string]any{"breed_id": 640}},
	}
	filled := make(chan string, 1)
	e.gw.passFilled = func(key string) { filled <- key }
	e.gw.fillPass(t.Context(), 640, "")
	<-filled
	seen := map[string]bool{}
	for _, c := range calls {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = c.tool, c.args
		res, err := e.client.CallTool(t.Context(), req)
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", c.tool, c.args, err, res)
		}
		seen[c.tool] = true
		budget := int(res.Meta.AdditionalFields["budget"].(float64))
		text := res.Content[0].(mcp.TextContent).Text
		wire, _ := json.Marshal(res.StructuredContent)
		if len(res.RawStructuredContent) > 0 {
			wire = res.RawStructuredContent
		}
		copied := stringify(t, wire)
		textOnly, copyOnly := counter.Count(text), counter.Count(copied)
		both := textOnly
		if copied != text {
			both += copyOnly
		}
		t.Logf("%-22s budget %d, summarized %-5v: text %4d, structured only %4d, both %4d tokens", c.tool, budget, res.Meta.AdditionalFields["summarized"], textOnly, copyOnly, both)
		for policy, n := range map[string]int{"the text": textOnly, "the structured copy": copyOnly, "both unless verbatim": both} {
			if n > budget {
				t.Errorf("%s %v: a host handing its model %s hands it %d tokens, over the budget of %d", c.tool, c.args, policy, n, budget)
			}
		}
	}
	for _, tool := range e.gw.Tools() {
		if !seen[tool.Tool.Name] {
			t.Errorf("%s is not played", tool.Tool.Name)
		}
	}
}

// stringify is what JavaScript's JSON.stringify writes for the JSON value
// in wire: compact, members in their order, strings without the HTML
// escapes a Go encoder adds, numbers as written.
func stringify(t *testing.T, wire []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(wire))
	dec.UseNumber()
	var b strings.Builder
	var stack []bool // per open container: is it an object, and then is a key next
	keyNext := []bool{}
	first := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			b.WriteRune(rune(d))
			stack, keyNext, first = stack[:len(stack)-1], keyNext[:len(keyNext)-1], first[:len(first)-1]
			continue
		}
		if n := len(stack); n > 0 {
			switch {
			case stack[n-1] && keyNext[n-1]:
				if !first[n-1] {
					b.WriteByte(',')
				}
			case stack[n-1]:
				b.WriteByte(':')
			default:
				if !first[n-1] {
					b.WriteByte(',')
				}
			}
			first[n-1] = false
			if stack[n-1] {
				keyNext[n-1] = !keyNext[n-1]
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteRune(rune(v))
			stack, keyNext, first = append(stack, v == '{'), append(keyNext, v == '{'), append(first, true)
		case json.Number:
			b.WriteString(v.String())
		default:
			s, err := nsip.PlainJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(s)
		}
	}
	return b.String()
}

func TestStringifyKeepsOrderAndUnescapes(t *testing.T) {
	in := `{"b":[1,2.50,{"x":"\u003cdiv\u003e \u0026"}],"a":null,"c":{},"d":[]}`
	want := `{"b":[1,2.50,{"x":"<div> &"}],"a":null,"c":{},"d":[]}`
	if got := stringify(t, []byte(in)); got != want {
		t.Errorf("stringify = %s, want %s", got, want)
	}
}
