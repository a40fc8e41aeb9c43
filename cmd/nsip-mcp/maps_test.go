package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// jsonBoundary are the exported declarations under gateway/ whose types
// hold a map[string]any, each with why: the places where a JSON object
// enters or leaves as one, because the protocol library or the JSON
// itself has it so. Everywhere else one package hands another typed
// values (param.Sent, param.Valid, param.Call, the tools' argument
// structs), so that go-to-definition crosses from a tool to NSIP. The
// test fails on a declaration not listed and on an entry whose
// declaration no longer holds a map, so the list only shrinks.
var jsonBoundary = map[string]string{
	"gateway/param:SentOf":                      "a JSON object mcp-go hands over (a user's answer to a form) becomes a Sent",
	"gateway/param:Sent.Members":                "the arguments as the caller sent them, walked beside Valid.Members to say how each word was read (argcheck.Readings): a JSON object on both sides",
	"gateway/param:Valid.Members":               "validated arguments written out: the cache key (cache.Key) and the summarizer's next calls (summarize.Request.Args)",
	"gateway/param:Properties.ToolProperties":   "mcp-go's ToolInputSchema.Properties is a map[string]any",
	"gateway/analysis/flock:FlockAnswer.Search": "the echo of the search a flock answer read, published as an open object with its members sorted, as the caller's own JSON",
}

// TestNoMapsBetweenPackages parses the non-test Go files under gateway/
// and fails naming each exported function, method, struct field or
// interface method whose type holds a map[string]any and jsonBoundary
// does not list.
func TestNoMapsBetweenPackages(t *testing.T) {
	root := filepath.Join("..", "..")
	found := map[string]bool{}
	eachSource(t, root, func(path string) error {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "gateway/") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if strings.HasSuffix(pkg, "test") {
			// A package that serves tests only (analysistest) takes a
			// call as the JSON literal its tests write; no room of the
			// server reads it.
			return nil
		}
		for _, name := range exportedMaps(f) {
			found[pkg+":"+name] = true
		}
		return nil
	})
	var bad []string
	for key := range found {
		if jsonBoundary[key] == "" {
			bad = append(bad, key)
		}
	}
	sort.Strings(bad)
	for _, key := range bad {
		t.Errorf("%s hands another package a map[string]any: give it a type (param.Sent for what a caller sent, param.Valid for validated arguments, param.Call for an error's example, a struct for the rest), or, where a JSON object really crosses as one, list it in jsonBoundary with why", key)
	}
	for key := range jsonBoundary {
		if !found[key] {
			t.Errorf("%s is listed in jsonBoundary but holds no map[string]any (or no longer exists): remove its entry", key)
		}
	}
}

// exportedMaps are the exported declarations of f whose types hold a
// map[string]any: functions and methods by name (Recv.Name), struct
// fields and interface methods as Type.Field.
func exportedMaps(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(recvName(d))) && holdsMap(d.Type) {
				out = append(out, funcName(d))
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				out = append(out, exportedMembers(ts)...)
			}
		}
	}
	return out
}

// exportedMembers are the exported fields or methods of type ts whose
// types hold a map[string]any, as Type.Member; the type itself when it
// is one.
func exportedMembers(ts *ast.TypeSpec) []string {
	var fields *ast.FieldList
	switch x := ts.Type.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		if holdsMap(ts.Type) {
			return []string{ts.Name.Name}
		}
		return nil
	}
	var out []string
	for _, fld := range fields.List {
		if !holdsMap(fld.Type) {
			continue
		}
		for _, n := range fld.Names {
			if n.IsExported() {
				out = append(out, ts.Name.Name+"."+n.Name)
			}
		}
	}
	return out
}

// recvName is the type name of method fd's receiver.
func recvName(fd *ast.FuncDecl) string {
	name := funcName(fd)
	return name[:strings.Index(name, ".")]
}

// holdsMap reports whether the type expression n mentions
// map[string]any (or its older spelling, map[string]interface{}).
func holdsMap(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		m, ok := n.(*ast.MapType)
		if !ok {
			return !found
		}
		key, _ := m.Key.(*ast.Ident)
		if key == nil || key.Name != "string" {
			return true
		}
		switch v := m.Value.(type) {
		case *ast.Ident:
			found = found || v.Name == "any"
		case *ast.InterfaceType:
			found = found || len(v.Methods.List) == 0
		}
		return !found
	})
	return found
}
