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

// checkContract holds d to its published contract: name, title,
// description and the input schema derived from its argument struct
// (specs/contracts/tools/<name>.json; the gateway serves the definition as
// it is), and the answer types its output schema offers (checkAnswers).
func checkContract(t *testing.T, d *Def) {
	t.Helper()
	snapshot.CheckTool(t, filepath.Join("..", "..", "specs"), snapshot.Tool{
		Name: d.Name, Title: d.Title, Description: d.Desc, InputSchema: d.Args.InputSchema()})
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
	args, errs := d.Validate(param.SentOf(sent))
	if len(errs) == 0 {
		t.Fatalf("%s %v: accepted as %v", d.Name, sent, args)
	}
	return errs[0]
}
