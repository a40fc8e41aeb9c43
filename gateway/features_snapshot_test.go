package gateway

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nsip-tools/nsip-mcp/gateway/internal/snapshot"
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
			t.Run(kind+"/"+name, func(t *testing.T) {
				snapshot.Check(t, filepath.Join(dir, name+".json"), snapshot.Indented(t, v), snapshot.JSON,
					"go test ./gateway -run Snapshot -update")
			})
		}
		snapshot.Orphans(t, dir, func(name string) bool { _, ok := items[name]; return ok })
	}
}
