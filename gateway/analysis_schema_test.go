package gateway

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Every golden answer of gateway/analysis (one call of each variant, with
// its optional parts) validates against its tool's output schema, drafts
// 2020-12 and 7: the schemas, generated from the answer types, hold the
// answers those types write, beyond the calls the gateway's tests make.
func TestGoldenAnswersMatchTheirSchemas(t *testing.T) {
	tools := map[string]string{
		"rank": "nsip_rank_animals", "compare": "nsip_compare_animals", "flock": "nsip_flock_summary",
		"mating": "nsip_check_mating", "plan": "nsip_plan_matings", "animal": "nsip_get_animal",
	}
	paths, err := filepath.Glob(filepath.Join("analysis", "testdata", "golden", "*.json"))
	if err != nil || len(paths) < 20 {
		t.Fatalf("goldens %v, %v: want the analyses' goldens", paths, err)
	}
	schemas := compiledSchemas(t)
	for _, p := range paths {
		base := filepath.Base(p)
		tool := tools[base[:strings.IndexAny(base, "_.")]]
		f, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The answer is the first line; a table of every row may follow.
		line, _, _ := bufio.NewReader(bytes.NewReader(f)).ReadLine()
		for i, s := range schemas[tool] {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err != nil {
				t.Fatalf("%s: %v", base, err)
			}
			if err := s.Validate(v); err != nil {
				t.Errorf("%s does not validate against %s's outputSchema (%s): %v", base, tool, []string{"draft 2020-12", "draft 7"}[i], err)
			}
		}
	}
}
