package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

// TestFeatureSnapshots compares the resources, resource templates and
// prompts a client lists with their contracts under specs/contracts, as
// TestSnapshot does for tools. -update rewrites them.
func TestFeatureSnapshots(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	f := rpctest.ListFeatures(t, ctx, e.client)
	live := map[string]map[string]any{"resources": {}, "templates": {}, "prompts": {}}
	for _, r := range f.Resources.Resources {
		live["resources"][r.Name] = r
	}
	for _, tp := range f.Templates.ResourceTemplates {
		live["templates"][tp.Name] = tp
	}
	for _, p := range f.Prompts.Prompts {
		live["prompts"][p.Name] = p
	}
	for kind, items := range live {
		dir := filepath.Join("..", "specs", "contracts", kind)
		if len(items) == 0 {
			t.Errorf("no %s listed", kind)
		}
		for name, v := range items {
			t.Run(kind+"/"+name, func(t *testing.T) { checkSnapshot(t, filepath.Join(dir, name+".json"), v) })
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			if _, ok := items[strings.TrimSuffix(filepath.Base(f), ".json")]; !ok && !*update {
				t.Errorf("snapshot %s has nothing live; remove it if that is intended", f)
			}
		}
	}
}

func checkSnapshot(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no snapshot %s (%v); run: go test ./gateway -run Snapshot -update", path, err)
	}
	if !jsonEqual(t, got, want) {
		t.Errorf("drifted from %s; if intended, run: go test ./gateway -run Snapshot -update\nlive:\n%s", path, got)
	}
}
