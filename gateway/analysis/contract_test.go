package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// What each analysis's own test shares: its published contract, and a
// user's call of it validated as the call path validates it.

// contract is the part of an analysis's tools/list entry
// (specs/contracts/tools/<name>.json) that its definition here produces.
// The gateway serves the definition as it is, so these must be equal; the
// rest (the annotations' hints, icons, _meta) is the gateway's, held to the
// same file by its own snapshot test.
type contract struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations struct {
		Title string `json:"title"`
	} `json:"annotations"`
}

// checkContract holds d to its published contract: the name, the title
// (both as the tool's and the annotations'), the description, the input
// schema derived from its argument struct (compared as JSON values), and
// the answer types its output schema offers (checkAnswers).
func checkContract(t *testing.T, d *Def) {
	t.Helper()
	path := filepath.Join("..", "..", "specs", "contracts", "tools", d.Name+".json")
	var c contract
	readJSON(t, path, &c)
	if c.Name != d.Name {
		t.Errorf("%s names the tool %q, the definition %q", path, c.Name, d.Name)
	}
	if c.Title != d.Title || c.Annotations.Title != d.Title {
		t.Errorf("%s: title %q, annotations.title %q; the definition's is %q", path, c.Title, c.Annotations.Title, d.Title)
	}
	if c.Description != d.Desc {
		t.Errorf("%s: description\n %s\nthe definition's\n %s", path, c.Description, d.Desc)
	}
	schema, err := json.Marshal(d.Args.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	if same, err := snapshot.JSON(schema, c.InputSchema); err != nil || !same {
		t.Errorf("%s: inputSchema\n %s\nthe arguments' (%v)\n %s", path, c.InputSchema, err, schema)
	}
	checkAnswers(t, d)
}

// checkAnswers holds d's Answers to the variants its output schema
// (specs/contracts/output/<name>.json) offers: the branches of its anyOf
// that refer to a type this package names (SchemaNames), in order. The
// other branches are the summaries every analysis's answer may become,
// which the gateway adds.
func checkAnswers(t *testing.T, d *Def) {
	t.Helper()
	path := filepath.Join("..", "..", "specs", "contracts", "output", d.Name+".json")
	var out struct {
		AnyOf []struct {
			Ref string `json:"$ref"`
		} `json:"anyOf"`
	}
	readJSON(t, path, &out)
	names := SchemaNames()
	ours := map[string]bool{}
	for _, n := range names {
		ours[n] = true
	}
	var published, answers []string
	for _, b := range out.AnyOf {
		if n, ok := strings.CutPrefix(b.Ref, "#/$defs/"); ok && ours[n] {
			published = append(published, n)
		}
	}
	for _, a := range d.Answers {
		answers = append(answers, names[a])
	}
	if !slices.Equal(published, answers) {
		t.Errorf("%s offers the answers %q; the definition's are %q", path, published, answers)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// valid is the validated arguments of a user's call of d with sent,
// failing the test on any problem.
func valid(t *testing.T, d *Def, sent map[string]any) map[string]any {
	t.Helper()
	args, errs := d.Validate(sent)
	if len(errs) > 0 {
		t.Fatalf("%s %v: %v", d.Name, sent, errs)
	}
	return args
}

// decoded is a user's call of d with sent as the run reads it: validated,
// then decoded into d's argument struct A.
func decoded[A any](t *testing.T, d *Def, sent map[string]any) A {
	t.Helper()
	var a A
	if err := decodeArgs(valid(t, d, sent), &a); err != nil {
		t.Fatalf("%s %v: %v", d.Name, sent, err)
	}
	return a
}

// invalid is the first problem validation finds with a user's call of d
// with sent, failing the test when it finds none.
func invalid(t *testing.T, d *Def, sent map[string]any) param.FieldError {
	t.Helper()
	args, errs := d.Validate(sent)
	if len(errs) == 0 {
		t.Fatalf("%s %v: accepted as %v", d.Name, sent, args)
	}
	return errs[0]
}
