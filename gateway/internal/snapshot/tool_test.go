package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tool's definition is held to its published entry: a title, a word of
// the description or a schema that drifts is named with the file, while
// the entry's indentation and members the gateway adds are not.
func TestCheckToolNamesWhatDrifted(t *testing.T) {
	specs := t.TempDir()
	if err := os.MkdirAll(filepath.Join(specs, "contracts", "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	entry := `{
  "_meta": {"ui/resourceUri": "ui://nsip/pedigree"},
  "annotations": {"title": "NSIP pedigree", "readOnlyHint": true},
  "description": "An animal's pedigree.",
  "inputSchema": {"type": "object", "properties": {"lpn_id": {"type": "string"}}},
  "name": "nsip_get_lineage",
  "title": "NSIP pedigree"
}
`
	if err := os.WriteFile(filepath.Join(specs, "contracts", "tools", "nsip_get_lineage.json"), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	def := Tool{Name: "nsip_get_lineage", Title: "NSIP pedigree", Description: "An animal's pedigree.",
		InputSchema: map[string]any{"properties": map[string]any{"lpn_id": map[string]any{"type": "string"}}, "type": "object"}}
	if failed := run(t, func(r *recorder) { CheckTool(r, specs, def) }); len(failed) != 0 {
		t.Errorf("the definition as published: %q", failed)
	}
	for _, c := range []struct {
		change func(d *Tool)
		says   string
	}{
		{func(d *Tool) { d.Title = "Pedigree" }, `title "NSIP pedigree", annotations.title "NSIP pedigree"; the definition's is "Pedigree"`},
		{func(d *Tool) { d.Description = "A pedigree." }, "description"},
		{func(d *Tool) { d.InputSchema = map[string]any{"type": "object"} }, "inputSchema"},
		{func(d *Tool) { d.Name = "nsip_get_pedigree" }, "nsip_get_pedigree.json"},
	} {
		d := def
		c.change(&d)
		failed := run(t, func(r *recorder) { CheckTool(r, specs, d) })
		if len(failed) != 1 || !strings.Contains(failed[0], c.says) {
			t.Errorf("%+v: %q, want one failure saying %q", d, failed, c.says)
		}
	}
	if err := os.WriteFile(filepath.Join(specs, "contracts", "tools", "nsip_broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := def
	d.Name = "nsip_broken"
	if failed := run(t, func(r *recorder) { CheckTool(r, specs, d) }); len(failed) != 1 || !strings.Contains(failed[0], "nsip_broken.json") {
		t.Errorf("an entry that is not JSON: %q", failed)
	}
}
