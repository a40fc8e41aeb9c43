package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxFuncLines is the longest a function declaration may be, counted from
// its func keyword to its closing brace: past it a function does several
// jobs, which then have no names of their own and no comment saying why
// each exists.
const maxFuncLines = 100

// declarative are the functions allowed past maxFuncLines because they
// only state a table: their body is one return of a composite literal,
// which the test checks, so that logic cannot hide behind the entry. Each
// is keyed as longFuncs keys it, with the reason it is one table. None is
// today.
var declarative = map[string]string{}

// pending are functions over maxFuncLines still to be split into steps.
// An entry is removed when its function is; the test fails on an entry
// whose function is no longer over the limit, so the list only shrinks.
var pending = map[string]string{}

// TestFunctionsAreShort parses every non-test Go file of the module and
// fails naming each function declaration longer than maxFuncLines that
// neither list allows.
func TestFunctionsAreShort(t *testing.T) {
	long, funcs := longFuncs(t, filepath.Join("..", ".."))
	if funcs < 1000 {
		t.Fatalf("found %d functions; the walk missed the module", funcs)
	}
	for key, f := range long {
		switch _, isTable := declarative[key]; {
		case isTable && !f.table:
			t.Errorf("%s (%d lines) is listed in declarative, but its body is not one return of a composite literal: split it into steps", key, f.lines)
		case isTable:
		case pending[key] != "":
		default:
			t.Errorf("%s is %d lines, over %d: split it into named steps or small types with one job each (a body that only returns one table literal may be listed in declarative, with why)", key, f.lines, maxFuncLines)
		}
	}
	for _, list := range []map[string]string{declarative, pending} {
		for key := range list {
			if _, ok := long[key]; !ok {
				t.Errorf("%s is allowed past %d lines but is not over them (or no longer exists): remove its entry", key, maxFuncLines)
			}
		}
	}
}

// longFunc is a function over maxFuncLines: its length and whether its
// body is one return of a composite literal.
type longFunc struct {
	lines int
	table bool
}

// longFuncs are the module's non-test function declarations over
// maxFuncLines under root, keyed "path:Name" or "path:Recv.Name" with the
// path relative to root, and how many declarations it read in all.
func longFuncs(t *testing.T, root string) (map[string]longFunc, int) {
	t.Helper()
	long := map[string]longFunc{}
	funcs := 0
	eachSource(t, root, func(path string) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			n := fset.Position(fd.End()).Line - fset.Position(fd.Type.Func).Line + 1
			if n > maxFuncLines {
				long[filepath.ToSlash(rel)+":"+funcName(fd)] = longFunc{lines: n, table: returnsLiteral(fd.Body)}
			}
		}
		return nil
	})
	return long, funcs
}

// funcName is fd's name, with its receiver's type for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr: // a generic receiver, T[P]
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	return fmt.Sprintf("%s.%s", typ, fd.Name.Name)
}

// returnsLiteral reports whether body is one return of a composite
// literal, or of its address: a table stated, no steps taken.
func returnsLiteral(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	ret, ok := body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	e := ret.Results[0]
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	_, ok = e.(*ast.CompositeLit)
	return ok
}

// TestReturnsLiteral holds the declarative shape to one return of a table:
// a long function that computes anything first is not one.
func TestReturnsLiteral(t *testing.T) {
	for src, want := range map[string]bool{
		"func f() map[string]int { return map[string]int{\"a\": 1} }": true,
		"func f() *T { return &T{A: 1} }":                             true,
		"func f() []int { x := 1; return []int{x} }":                  false,
		"func f() int { return g() }":                                 false,
		"func f() (T, error) { return T{}, nil }":                     false,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n"+src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := returnsLiteral(f.Decls[0].(*ast.FuncDecl).Body); got != want {
			t.Errorf("returnsLiteral(%s) = %v, want %v", src, got, want)
		}
	}
}
