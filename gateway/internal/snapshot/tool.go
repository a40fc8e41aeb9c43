package snapshot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Tool is what a tool's definition says of itself in its tools/list entry
// (specs/contracts/tools/<name>.json): its name, title (both the tool's
// and its annotations'), description and input schema. The rest of the
// entry (the annotations' hints, icons, _meta) is the gateway's, held to
// the same file by the gateway's own snapshot test.
type Tool struct {
	Name, Title, Description string
	InputSchema              any // encoded, then compared as a JSON value
}

// CheckTool holds a tool's definition, read by the test beside it, to
// its published entry under specs, the repository's specs directory
// relative to the test.
func CheckTool(t testing.TB, specs string, d Tool) {
	t.Helper()
	path := filepath.Join(specs, "contracts", "tools", d.Name+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations struct {
			Title string `json:"title"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if c.Name != d.Name {
		t.Errorf("%s names the tool %q, the definition %q", path, c.Name, d.Name)
	}
	if c.Title != d.Title || c.Annotations.Title != d.Title {
		t.Errorf("%s: title %q, annotations.title %q; the definition's is %q", path, c.Title, c.Annotations.Title, d.Title)
	}
	if c.Description != d.Description {
		t.Errorf("%s: description\n %s\nthe definition's\n %s", path, c.Description, d.Description)
	}
	schema, err := json.Marshal(d.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := JSON(schema, c.InputSchema); err != nil || !same {
		t.Errorf("%s: inputSchema\n %s\nthe arguments' (%v)\n %s", path, c.InputSchema, err, schema)
	}
}
