package floors

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxUpward is the most arrows allowed to point up in the best layout of
// the gateway tree found by arrange. The root's files were laid out so that
// none does (each stands above what it uses: server.go wires everything,
// pipeline.go is the call path, read.go the reads below every run); a
// little slack lets a change land before its file finds its floor, but
// more than this means the files no longer read top to bottom.
const maxUpward = 8

// Size limits for non-test Go code under gateway/ (generated files and
// anything under testdata/ or node_modules/ are not counted).
const (
	maxPackageLines = 2500 // per package, all its non-test files together
	maxFileLines    = 800  // per non-test file
)

// sizeExceptions are packages and files allowed over the size limits, each
// with its line count as its allowed maximum, so they may shrink but not
// grow. There are none: an entry added must be deleted once its path is
// within the limit (the test fails until then, so a stale entry cannot
// hide growth elsewhere).
var sizeExceptions = map[string]int{}

// gatewayDir is the gateway directory: go test runs in the package
// directory, gateway/internal/floors.
const gatewayDir = "../.."

// TestGatewayFloors measures how the gateway tree is layered.
//
// Nodes are the non-test .go files directly in gateway/ (one node each) and
// the packages under gateway/ (one node per package). An arrow goes from A
// to B when A uses a name defined in B: for a package, any import of B by
// its non-test files; between root files, a package-level func, type, var
// or const, or a method, declared in B and used in A (struct fields are not
// counted; see rootArrows for how names are resolved). The nodes are laid
// out on floors, each above what it uses as far as cycles allow, in an order
// that makes as few arrows as possible point up; the number of arrows that
// still point up is held under maxUpward. Only cycles among the root files
// can force an arrow up, as Go does not allow packages to import each
// other in a cycle.
func TestGatewayFloors(t *testing.T) {
	tr, err := readTree(gatewayDir)
	if err != nil {
		t.Fatal(err)
	}
	g := tr.graph
	if len(g.nodes) == 0 {
		t.Fatalf("no Go files found under %s", tr.gwDir)
	}
	l := arrange(g)
	t.Logf("nodes: %d, arrows: %d, floors: %d, upward arrows: %d (limit %d, target 8)",
		len(g.nodes), len(g.arrows), l.floors, len(l.up), maxUpward)
	t.Logf("(%d type errors from the stand-in imports, as expected; see rootArrows)", tr.typeErrors)
	for _, c := range l.sccs {
		names := make([]string, len(c))
		for i, v := range c {
			names[i] = g.nodes[v].name
		}
		t.Logf("cycle of %d nodes: %s", len(c), strings.Join(names, " "))
	}
	// A node's floor is the number of nodes on the longest path down from
	// it along arrows that do not point up, so the ground floor holds what
	// uses nothing else in the tree.
	onFloor := make([][]string, l.floors+1)
	for _, v := range l.order {
		onFloor[l.floor[v]] = append(onFloor[l.floor[v]], g.nodes[v].name)
	}
	for f := l.floors; f >= 1; f-- {
		t.Logf("floor %2d: %s", f, strings.Join(onFloor[f], " "))
	}
	t.Logf("upward arrows (from -> to, name used, other names):")
	for _, a := range l.up {
		t.Logf("  %s -> %s  %s (+%d)", g.nodes[a.from].name, g.nodes[a.to].name, a.names[0], len(a.names)-1)
	}
	if len(l.up) > maxUpward {
		t.Errorf("%d arrows point up, more than the limit of %d; see the list above", len(l.up), maxUpward)
	} else if len(l.up) < maxUpward {
		t.Logf("%d arrows point up, within the limit of %d", len(l.up), maxUpward)
	}
}

// TestGatewaySizes holds the gateway packages and files under the size
// limits, except for the paths listed in sizeExceptions, which must not grow.
func TestGatewaySizes(t *testing.T) {
	gw, err := filepath.Abs(gatewayDir)
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := lineCounts(filepath.Dir(gw), gw)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sortedKeys(sizeExceptions) {
		if _, ok := sizes[p]; !ok {
			t.Errorf("%s is listed in sizeExceptions but has no non-test Go code any more: delete the entry", p)
		}
	}
	for _, p := range sortedKeys(sizes) {
		s := sizes[p]
		limit := maxPackageLines
		if s.file {
			limit = maxFileLines
		}
		allowed, excepted := sizeExceptions[p]
		switch {
		case excepted && s.lines <= limit:
			t.Errorf("%s has %d lines, within the limit of %d: delete its entry in sizeExceptions", p, s.lines, limit)
		case excepted && s.lines > allowed:
			t.Errorf("%s has %d lines, more than the %d it had when the limit was set; the limit is %d", p, s.lines, allowed, limit)
		case excepted:
			t.Logf("%s has %d lines, over the limit of %d (allowed %d until it is split)", p, s.lines, limit, allowed)
		case s.lines > limit:
			t.Errorf("%s has %d lines, more than the limit of %d", p, s.lines, limit)
		}
	}
}

// size is the line count of one package or file.
type size struct {
	lines int
	file  bool
}

// lineCounts counts newlines in the non-test Go files at or under gwDir,
// leaving out generated files and anything under testdata/ or node_modules/
// (or other directories the go tool ignores). Keys are slash paths from
// root: one per file and one per package directory, the latter holding the
// sum of its files.
func lineCounts(root, gwDir string) (map[string]size, error) {
	files, dirs, err := sourceDirs(gwDir)
	if err != nil {
		return nil, err
	}
	out := map[string]size{}
	for _, dir := range dirs {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		total := 0
		for _, name := range files[dir] {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, err
			}
			if generatedRE.Match(b) {
				continue
			}
			n := strings.Count(string(b), "\n")
			out[rel+"/"+name] = size{lines: n, file: true}
			total += n
		}
		out[rel] = size{lines: total}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
