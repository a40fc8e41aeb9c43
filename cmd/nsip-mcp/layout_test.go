package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mayImport is specs/layout.md's table: for each package of the module,
// the packages of ours its non-test files may import. A package not listed
// fails the test, so that a new room is placed on purpose.
var mayImport = map[string][]string{
	"nsip":                          nil,
	"nsip/breeding":                 nil,
	"nsip/breeding/tabular":         nil,
	"nsip/toolname":                 nil,
	"nsip/shape":                    nil,
	"nsip/livecheck":                {"nsip", "nsip/shape"},
	"nsip/nsiptest":                 {"nsip"},
	"nsip/nsiptest/logbuf":          nil,
	"cache":                         nil,
	"cache/cachetest":               {"cache"},
	"cache/redistest":               {"cache"},
	"cache/recent":                  nil,
	"summarize":                     {"cache/recent", "nsip", "nsip/toolname"},
	"transport/caller":              nil,
	"transport":                     {"transport/caller"},
	"transport/rpctest":             {"transport", "transport/caller"},
	"gateway/internal/jsonpool":     nil,
	"gateway/param":                 {"gateway/internal/jsonpool", "nsip", "nsip/toolname"},
	"gateway/nsiparg":               {"gateway/param", "nsip", "nsip/toolname"},
	"gateway/outschema":             {"gateway/param"},
	"gateway/tooldef":               {"gateway/param", "gateway/toolsets", "summarize"},
	"gateway/metrics":               {"nsip"},
	"gateway/full":                  {"nsip", "transport/caller"},
	"gateway/tasks":                 {"transport/caller"},
	"gateway/session":               {"cache/recent", "nsip", "transport/caller"},
	"gateway/calllog":               {"nsip", "transport/caller"},
	"gateway/upstream":              {"cache", "gateway/metrics", "nsip", "summarize"},
	"gateway/features":              {"gateway/param", "gateway/nsiparg", "nsip", "nsip/toolname", "summarize"},
	"gateway/analysis/breedpass":    {"gateway/nsiparg", "nsip", "nsip/breeding"},
	"gateway/analysis/facts":        {"gateway/nsiparg", "nsip", "nsip/toolname"},
	"gateway/analysis":              {"gateway/analysis/breedpass", "gateway/full", "gateway/param", "gateway/nsiparg", "gateway/tooldef", "nsip", "nsip/breeding"},
	"gateway/analysis/scan":         {"gateway/analysis", "gateway/analysis/breedpass", "nsip"},
	"gateway/analysis/pedigree":     {"gateway/analysis", "gateway/analysis/breedpass", "gateway/analysis/facts", "gateway/param", "nsip", "nsip/breeding"},
	"gateway/analysis/percentile":   {"gateway/analysis", "gateway/analysis/breedpass", "gateway/analysis/facts", "gateway/analysis/scan", "gateway/param", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/toolname", "summarize"},
	"gateway/analysis/mating":       {"gateway/analysis", "gateway/analysis/facts", "gateway/analysis/pedigree", "gateway/param", "gateway/nsiparg", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/breeding", "nsip/toolname", "summarize"},
	"gateway/analysis/compare":      {"gateway/analysis", "gateway/analysis/facts", "gateway/analysis/percentile", "gateway/param", "gateway/nsiparg", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/toolname", "summarize"},
	"gateway/analysis/rank":         {"gateway/analysis", "gateway/analysis/breedpass", "gateway/analysis/facts", "gateway/analysis/pedigree", "gateway/analysis/percentile", "gateway/analysis/scan", "gateway/param", "gateway/nsiparg", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/breeding", "nsip/toolname", "summarize"},
	"gateway/analysis/flock":        {"gateway/analysis", "gateway/analysis/breedpass", "gateway/analysis/facts", "gateway/analysis/scan", "gateway/full", "gateway/param", "gateway/nsiparg", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/breeding", "nsip/toolname", "summarize"},
	"gateway/analysis/diversity":    {"gateway/analysis", "gateway/analysis/breedpass", "gateway/analysis/scan", "gateway/full", "gateway/param", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/breeding", "nsip/toolname", "summarize"},
	"gateway/analysis/plan":         {"gateway/analysis", "gateway/analysis/facts", "gateway/analysis/pedigree", "gateway/full", "gateway/param", "gateway/nsiparg", "gateway/tooldef", "gateway/toolsets", "nsip", "nsip/breeding", "nsip/toolname", "summarize"},
	"gateway/analysis/analysistest": {"gateway/analysis", "gateway/analysis/breedpass", "gateway/internal/snapshot", "gateway/param", "gateway/nsiparg", "nsip/breeding/tabular", "nsip", "nsip/breeding", "nsip/toolname"},
	"gateway/finite":                {"gateway/analysis", "nsip"},
	"gateway/argcheck":              {"gateway/param", "gateway/nsiparg", "nsip", "nsip/toolname"},
	"gateway/health":                {"cache", "gateway/metrics", "gateway/upstream"},
	"gateway/elicit":                {"gateway/analysis", "gateway/param", "nsip"},
	"gateway/toolerr":               {"gateway/analysis", "gateway/health", "gateway/param", "gateway/tooldef", "gateway/upstream", "nsip", "nsip/breeding", "nsip/toolname"},
	"gateway/internal/snapshot":     nil,
	"gateway/views":                 {"nsip/toolname"},
	"gateway/toolsets":              nil,
	"gateway/passes":                {"gateway/analysis/breedpass"},
	"gateway/structured":            {"gateway/analysis", "gateway/analysis/compare", "gateway/analysis/diversity", "gateway/analysis/flock", "gateway/analysis/mating", "gateway/analysis/percentile", "gateway/analysis/plan", "gateway/analysis/rank", "gateway/outschema", "nsip", "summarize"},
	"gateway/toolcall":              {"gateway/calllog", "gateway/full", "cache/recent", "gateway/param", "gateway/toolerr", "gateway/upstream", "summarize"},
	"gateway/lookup":                {"cache", "gateway/argcheck", "gateway/full", "gateway/param", "gateway/nsiparg", "gateway/toolcall", "gateway/tooldef", "gateway/toolerr", "gateway/toolsets", "gateway/upstream", "nsip", "nsip/toolname", "summarize"},
	"gateway/source":                {"gateway/lookup", "gateway/toolcall", "nsip"},
	"gateway":                       {"gateway/*", "cache", "nsip", "nsip/breeding", "nsip/toolname", "summarize", "transport/caller"},
	"cmd/*":                         {"*"},
}

const module = "github.com/nsip-tools/nsip-mcp/"

// TestImportsPointOneWay reads the imports of every non-test Go file in the
// module and holds each package to mayImport.
func TestImportsPointOneWay(t *testing.T) {
	root := filepath.Join("..", "..")
	imports := map[string]map[string]bool{}
	eachSource(t, root, func(path string) error {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if ours, ok := strings.CutPrefix(p, module); ok {
				imports[pkg][ours] = true
			}
		}
		return nil
	})
	if len(imports) < 20 {
		t.Fatalf("found %d packages; the walk missed the module", len(imports))
	}
	for pkg, ims := range imports {
		allowed, listed := rulesFor(pkg)
		if !listed {
			t.Errorf("package %s is not in specs/layout.md's table (mayImport): give it one job and the packages it may import", pkg)
			continue
		}
		for im := range ims {
			if !slices.ContainsFunc(allowed, func(a string) bool { return matches(a, im) }) {
				t.Errorf("%s imports %s, which specs/layout.md does not let it: move the code to the room it belongs in, or change the table on purpose", pkg, im)
			}
		}
	}
}

// rulesFor is the entry for pkg, exact or by a trailing /* pattern.
func rulesFor(pkg string) ([]string, bool) {
	if r, ok := mayImport[pkg]; ok {
		return r, true
	}
	for pattern, r := range mayImport {
		if matches(pattern, pkg) {
			return r, true
		}
	}
	return nil, false
}

// matches reports whether pattern (a path, "x/*" for what is under x, or
// "*") names pkg.
func matches(pattern, pkg string) bool {
	if pattern == "*" || pattern == pkg {
		return true
	}
	base, ok := strings.CutSuffix(pattern, "/*")
	return ok && strings.HasPrefix(pkg, base+"/")
}

// eachSource calls read with the path of every non-test Go file of the
// module under root, whatever its build tags, leaving out testdata,
// node_modules and hidden folders: the walk the module-wide checks share.
func eachSource(t *testing.T, root string, read func(path string) error) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		return read(path)
	})
	if err != nil {
		t.Fatal(err)
	}
}
