//go:build e2e

package gateway

import (
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/cache/redistest"
)

// A pass read on one replica serves another through Redis.
func TestBreedPassSharedThroughRedis(t *testing.T) {
	rd := redistest.Start(t)
	rs, up := newReplicas(t, 2, rd.URL(), nil)
	d := up.Data()
	ids := breedAnimals(d, 640, 10)
	comparePass(t, func(name string, args any) reply { return rs[0].call(t, name, args) }, d, ids[:5])
	b := comparePass(t, func(name string, args any) reply { return rs[1].call(t, name, args) }, d, ids[5:])
	if b.Percentiles.Lookups != 1 || !strings.HasPrefix(b.Percentiles.BreedPass["640"], "kept") {
		t.Errorf("replica B: %d lookups, breed_pass %v; want the pass replica A shared", b.Percentiles.Lookups, b.Percentiles.BreedPass)
	}
	if _, n := rs[1].gw.passes.Size(); n != 1 {
		t.Errorf("replica B keeps %d passes after loading one, want 1", n)
	}
}
