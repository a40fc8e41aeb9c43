package analysistest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
)

// What each analysis's own test shares: its published contract, and a
// user's call of it validated as the call path validates it.

// CheckContract holds d to its published contract: name, title,
// description and the input schema derived from its argument struct
// (specs/contracts/tools/<name>.json; the gateway serves the definition as
// it is), and the answer types its output schema offers (checkAnswers),
// named by names, the SchemaNames of d's package.
func CheckContract(t *testing.T, d *analysis.Def, names map[reflect.Type]string) {
	t.Helper()
	snapshot.CheckTool(t, specs(t), snapshot.Tool{
		Name: d.Name, Title: d.Title, Description: d.Desc, InputSchema: d.Args.InputSchema()})
	checkAnswers(t, d, names)
}

// specs is the module's specs directory, found from the test's own
// directory, so that an analysis's test finds it at any depth.
func specs(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "specs")
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// checkAnswers holds d's Answers to the variants its output schema
// (specs/contracts/output/<name>.json) offers: the branches of its anyOf
// that refer to a type names holds, in order. The
// other branches are the summaries every analysis's answer may become,
// which the gateway adds.
func checkAnswers(t *testing.T, d *analysis.Def, names map[reflect.Type]string) {
	t.Helper()
	path := filepath.Join(specs(t), "contracts", "output", d.Name+".json")
	var out struct {
		AnyOf []struct {
			Ref string `json:"$ref"`
		} `json:"anyOf"`
	}
	readJSON(t, path, &out)
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

// Decoded is a user's call of d with sent as the run reads it: validated,
// then decoded into d's argument struct A.
func Decoded[A any](t *testing.T, d *analysis.Def, sent map[string]any) A {
	t.Helper()
	var a A
	if err := analysis.DecodeArgs(Valid(t, d, sent), &a); err != nil {
		t.Fatalf("%s %v: %v", d.Name, sent, err)
	}
	return a
}

// Invalid is the first problem validation finds with a user's call of d
// with sent, failing the test when it finds none.
func Invalid(t *testing.T, d *analysis.Def, sent map[string]any) param.FieldError {
	t.Helper()
	args, errs := d.Validate(param.SentOf(sent))
	if len(errs) == 0 {
		t.Fatalf("%s %v: accepted as %v", d.Name, sent, args)
	}
	return errs[0]
}
