package gateway

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// With NoStructured (NSIP_STRUCTURED=off) no tool declares an output
// schema and no result carries structuredContent; the text is the same
// as with it.
func TestNoStructuredLeavesTheCopyOut(t *testing.T) {
	texts := map[bool][]string{}
	for _, off := range []bool{false, true} {
		e := newEnv(t, withConfig(func(c *Config) { c.NoStructured = off }))
		list, err := e.client.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		withSchema := 0
		for _, tool := range list.Tools {
			if tool.OutputSchema.Type != "" || len(tool.OutputSchema.Properties) > 0 || len(tool.OutputSchema.Defs) > 0 {
				withSchema++
			}
		}
		if want := map[bool]int{false: len(list.Tools), true: 0}[off]; withSchema != want || len(list.Tools) != 15 {
			t.Errorf("off=%v: %d of %d tools declare an output schema, want %d of 15", off, withSchema, len(list.Tools), want)
		}
		d := e.up.Data()
		rams, ewes := deepKatahdins(t, d, 3, 1, 2)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"nsip_get_animal", map[string]any{"search_string": rams[0]}},
			{"nsip_get_animal", map[string]any{"search_string": rams[0], "percentiles": true}},
			{"nsip_compare_animals", map[string]any{"lpn_ids": []string{rams[0], ewes[0]}}},
			{"nsip_check_mating", map[string]any{"sire_lpn_id": rams[0], "dam_lpn_id": ewes[0]}},
		} {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = c.tool, c.args
			res, err := e.client.CallTool(context.Background(), req)
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", c.tool, err, res)
			}
			if has := res.StructuredContent != nil || len(res.RawStructuredContent) > 0; has == off {
				t.Errorf("off=%v: %s carries structuredContent: %v", off, c.tool, has)
			}
			tc, _ := mcp.AsTextContent(res.Content[0])
			texts[off] = append(texts[off], tc.Text)
		}
	}
	for i := range texts[false] {
		if texts[false][i] != texts[true][i] {
			t.Errorf("call %d: the text differs without the structured copy\n on: %.300s\noff: %.300s", i, texts[false][i], texts[true][i])
		}
	}
}
