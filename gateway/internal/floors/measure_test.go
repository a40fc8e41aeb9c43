// Package floors measures how the gateway tree is layered and how large its
// packages and files are, so that limits on both can be held by tests.
//
// The package has test files only, so it is not itself a node of the graph
// it measures and adds nothing to the gateway build.
package floors

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A node is either one non-test .go file of the gateway root package or one
// package under gateway/ (its non-test files taken together).
type node struct {
	name string // slash path from the module root, e.g. "gateway/pipeline.go" or "gateway/lookup"
	dir  string // absolute directory
	// files holds the parsed non-test files (one for a root file node).
	files []*ast.File
	// pkgName is the package clause name.
	pkgName string
}

// An arrow says that code in from uses a name defined in to.
type arrow struct {
	from, to int
	// names holds the names used, sorted; the first one is shown in reports.
	names []string
}

// graph is the gateway tree as nodes and arrows between them.
type graph struct {
	nodes  []*node
	arrows []arrow // sorted by (from, to); at most one per ordered pair
}

// tree is what is read from disk: the module path, the gateway directory and
// the parsed graph.
type tree struct {
	module string
	gwDir  string // absolute path of gateway/
	root   string // absolute path of the module root
	fset   *token.FileSet
	graph  graph
	// typeErrors counts errors met while type-checking the root package
	// against empty stand-ins for the packages it imports; see rootArrows.
	typeErrors int
}

// generatedRE is the standard marker of generated Go files
// (https://go.dev/s/generatedcode).
var generatedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// skipDir reports whether the go tool (or this measure) ignores a directory.
func skipDir(name string) bool {
	return name == "testdata" || name == "node_modules" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// isSourceFile reports whether a file name is a non-test Go file.
func isSourceFile(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") &&
		!strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// modulePath reads the module line of go.mod in dir.
func modulePath(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", errors.New("no module line in go.mod")
}

// sourceDirs lists, in lexical order, every directory at or under gwDir that
// holds non-test Go files, with those files' names.
func sourceDirs(gwDir string) (map[string][]string, []string, error) {
	files := map[string][]string{}
	var dirs []string
	err := filepath.WalkDir(gwDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != gwDir && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isSourceFile(d.Name()) {
			return nil
		}
		dir := filepath.Dir(p)
		if files[dir] == nil {
			dirs = append(dirs, dir)
		}
		files[dir] = append(files[dir], d.Name())
		return nil
	})
	sort.Strings(dirs)
	for _, d := range dirs {
		sort.Strings(files[d])
	}
	return files, dirs, err
}

// readTree parses the gateway tree found at gwDir (whose parent must be the
// module root) and builds its graph.
func readTree(gwDir string) (*tree, error) {
	gwDir, err := filepath.Abs(gwDir)
	if err != nil {
		return nil, err
	}
	t := &tree{gwDir: gwDir, root: filepath.Dir(gwDir), fset: token.NewFileSet()}
	if t.module, err = modulePath(t.root); err != nil {
		return nil, err
	}
	files, dirs, err := sourceDirs(gwDir)
	if err != nil {
		return nil, err
	}
	g := &t.graph
	index := map[string]int{} // import path of a package node -> node
	var rootFiles []*ast.File
	rootIndex := map[*ast.File]int{}
	for _, dir := range dirs {
		var parsed []*ast.File
		for _, name := range files[dir] {
			f, err := parser.ParseFile(t.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			parsed = append(parsed, f)
		}
		rel, err := filepath.Rel(t.root, dir)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		if dir == gwDir {
			for i, f := range parsed {
				rootIndex[f] = len(g.nodes)
				g.nodes = append(g.nodes, &node{
					name: path.Join(rel, files[dir][i]), dir: dir,
					files: []*ast.File{f}, pkgName: f.Name.Name,
				})
			}
			rootFiles = parsed
			continue
		}
		index[t.module+"/"+rel] = len(g.nodes)
		g.nodes = append(g.nodes, &node{name: rel, dir: dir, files: parsed, pkgName: parsed[0].Name.Name})
	}

	uses := map[[2]int]map[string]bool{}
	add := func(from, to int, name string) {
		if from == to {
			return
		}
		k := [2]int{from, to}
		if uses[k] == nil {
			uses[k] = map[string]bool{}
		}
		uses[k][name] = true
	}

	// Arrows to packages come from imports: any imported name counts.
	rootPath := t.module + "/" + filepath.ToSlash(mustRel(t.root, gwDir))
	for from, n := range g.nodes {
		for _, f := range n.files {
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				to, ok := index[p]
				if !ok {
					if p == rootPath {
						// A package under gateway/ importing the root
						// package would close a cycle the compiler
						// refuses, unless the root package does not
						// import it; point at the files that declare
						// the names used.
						for _, name := range selectorsOf(f, importName(imp, "gateway")) {
							if to, ok := declaringRootFile(rootFiles, rootIndex, name); ok {
								add(from, to, name)
							}
						}
					}
					continue
				}
				used := selectorsOf(f, importName(imp, g.nodes[to].pkgName))
				if len(used) == 0 {
					used = []string{"import " + imp.Path.Value}
				}
				for _, name := range used {
					add(from, to, name)
				}
			}
		}
	}

	// Arrows between root files come from the identifiers they use.
	t.typeErrors = rootArrows(t.fset, rootPath, rootFiles, rootIndex, add)

	for k, names := range uses {
		a := arrow{from: k[0], to: k[1]}
		for name := range names {
			a.names = append(a.names, name)
		}
		sort.Strings(a.names)
		g.arrows = append(g.arrows, a)
	}
	sort.Slice(g.arrows, func(i, j int) bool {
		a, b := g.arrows[i], g.arrows[j]
		if a.from != b.from {
			return a.from < b.from
		}
		return a.to < b.to
	})
	return t, nil
}

func mustRel(base, target string) string {
	r, err := filepath.Rel(base, target)
	if err != nil {
		panic(err)
	}
	return r
}

// importName is the name an import is known by in its file.
func importName(imp *ast.ImportSpec, pkgName string) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	return pkgName
}

// selectorsOf lists, in order of first use, the names selected from the
// package imported as pkg in f ("pkg.Name").
func selectorsOf(f *ast.File, pkg string) []string {
	if pkg == "_" || pkg == "." {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == pkg && !seen[sel.Sel.Name] {
				seen[sel.Sel.Name] = true
				out = append(out, pkg+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// declaringRootFile finds the root file declaring a package-level name.
func declaringRootFile(files []*ast.File, index map[*ast.File]int, qualified string) (int, bool) {
	name := qualified[strings.LastIndex(qualified, ".")+1:]
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == name {
					return index[f], true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.Name == name {
							return index[f], true
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.Name == name {
								return index[f], true
							}
						}
					}
				}
			}
		}
	}
	return 0, false
}

// rootArrows finds which root files use names declared in which other root
// files, and reports each use through add. It returns the number of type
// errors met, which are expected (see below).
//
// The root package is type-checked with go/types so that every identifier is
// resolved exactly: local variables that shadow a package-level name are not
// mistaken for it, and a method call x.M counts only when M is a method
// declared in the root package on the static type of x (calls to methods of
// imported types with the same name, such as Close or String, do not count).
// Standard-library imports are type-checked from source; the packages of
// this module and third-party modules are not loaded (go/types puts an
// empty package in each one's place), because type-checking all of them
// from source took over ten times as long. The cost of that approximation:
// an expression whose type comes from such a package is untyped to the
// checker, so a root method reached only through a value returned by, or
// stored in, an imported package's generic code would be missed. When the
// measure was written, a check with every import loaded found the same
// arrows.
// Package-level names (func, type, var, const) and methods declared in the
// root package count; struct fields do not, to keep the measure to what a
// file declares at top level. A call through an interface counts for the
// file declaring the interface, not for the files whose types implement it,
// since the caller names only the interface.
func rootArrows(fset *token.FileSet, rootPath string, files []*ast.File, index map[*ast.File]int, add func(from, to int, name string)) int {
	if len(files) == 0 {
		return 0
	}
	byFile := map[string]int{} // file name -> node
	for _, f := range files {
		byFile[fset.Position(f.Package).Filename] = index[f]
	}
	errs := 0
	conf := types.Config{
		Importer: stdOnlyImporter{fset: fset, std: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)},
		Error:    func(error) { errs++ },
	}
	info := &types.Info{
		Uses: map[*ast.Ident]types.Object{},
	}
	pkg, _ := conf.Check(rootPath, fset, files, info)

	declaredIn := func(obj types.Object) (int, bool) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return 0, false
		}
		switch o := obj.(type) {
		case *types.Var:
			if o.IsField() || o.Parent() != pkg.Scope() {
				return 0, false
			}
		case *types.Func:
			sig, _ := o.Type().(*types.Signature)
			if sig == nil || (sig.Recv() == nil && o.Parent() != pkg.Scope()) {
				return 0, false
			}
		case *types.TypeName, *types.Const:
			if obj.Parent() != pkg.Scope() {
				return 0, false
			}
		default:
			return 0, false
		}
		to, ok := byFile[fset.Position(obj.Pos()).Filename]
		return to, ok
	}
	nameOf := func(obj types.Object) string {
		if f, ok := obj.(*types.Func); ok {
			if recv := f.Type().(*types.Signature).Recv(); recv != nil {
				t := recv.Type()
				if p, ok := t.(*types.Pointer); ok {
					t = p.Elem()
				}
				if n, ok := t.(*types.Named); ok {
					return n.Obj().Name() + "." + f.Name()
				}
				return "(" + types.TypeString(t, types.RelativeTo(pkg)) + ")." + f.Name()
			}
		}
		return obj.Name()
	}
	// Uses records the object of every identifier that refers to one,
	// including the Sel of each selector x.Sel, so methods (promoted or
	// not) are covered by the same walk as package-level names.
	for _, f := range files {
		from := index[f]
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := info.Uses[id]
			if to, ok := declaredIn(obj); ok {
				add(from, to, nameOf(obj))
			}
			return true
		})
	}
	return errs
}

// stdOnlyImporter imports standard-library packages from source and gives
// every other import an empty package of the right name, so the root
// package can be checked without type-checking the whole module graph.
type stdOnlyImporter struct {
	fset *token.FileSet
	std  types.ImporterFrom
}

func (s stdOnlyImporter) Import(p string) (*types.Package, error) {
	return s.ImportFrom(p, "", 0)
}

func (s stdOnlyImporter) ImportFrom(p, dir string, mode types.ImportMode) (*types.Package, error) {
	if first, _, _ := strings.Cut(p, "/"); !strings.Contains(first, ".") {
		return s.std.ImportFrom(p, dir, mode)
	}
	return nil, fmt.Errorf("%s: not loaded", p)
}
