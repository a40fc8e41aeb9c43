package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/toolname"
)

// TestToolNamesSpeltOnce holds every non-test Go file of the module (of any
// build tag) to naming a tool through nsip/toolname: a string literal that
// contains a tool's name anywhere else fails, naming its file and line.
func TestToolNamesSpeltOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	home := filepath.Join(root, "nsip", "toolname")
	files := 0
	eachSource(t, root, func(path string) error {
		if filepath.Dir(path) == home {
			return nil // the one place the names are spelt
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			for _, tool := range toolname.All {
				if strings.Contains(lit.Value, tool) {
					p := fset.Position(lit.Pos())
					rel, _ := filepath.Rel(root, p.Filename)
					t.Errorf("%s:%d spells %q in a string: use the constant in nsip/toolname", filepath.ToSlash(rel), p.Line, tool)
				}
			}
			return true
		})
		return nil
	})
	if files < 100 {
		t.Fatalf("read %d files; the walk missed the module", files)
	}
}
