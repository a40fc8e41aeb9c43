package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// goFileRE is a Go file named in a comment: summarize/fit.go, pool.go.
	goFileRE = regexp.MustCompile(`(?:[\w.-]+/)*[\w-]+\.go\b`)
	// codeRE is a requirement code of specs/spec.md.
	codeRE = regexp.MustCompile(`\b(?:FR|SC)-\d+[a-z]?\b`)
)

// staleNames are comments known to name a file that is gone, each until
// the file holding it is next rewritten: file -> the name. An entry the
// walk does not meet fails the test, so that it goes when the comment does.
var staleNames = map[string]string{}

// TestCommentsNameWhatExists reads every comment of the module's Go files
// and fails for each that names a Go file no package holds, or a
// requirement code specs/spec.md does not define, so that comments do not
// outlive what they point to. A file is found by its path from the module
// root, from the commenting file's folder, or, for a bare name, anywhere
// in the module.
func TestCommentsNameWhatExists(t *testing.T) {
	root := filepath.Join("..", "..")
	spec, err := os.ReadFile(filepath.Join(root, "specs", "spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, c := range codeRE.FindAllString(string(spec), -1) {
		defined[c] = true
	}
	if len(defined) < 5 {
		t.Fatalf("specs/spec.md defines %d codes; the pattern missed them", len(defined))
	}
	var files []string
	byName := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && (name == "node_modules" || name == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			files = append(files, path)
			byName[name] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	exists := func(from, name string) bool {
		if !strings.Contains(name, "/") {
			return byName[name]
		}
		for _, base := range []string{root, filepath.Dir(from)} {
			if _, err := os.Stat(filepath.Join(base, filepath.FromSlash(name))); err == nil {
				return true
			}
		}
		return false
	}
	met := map[string]bool{}
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, g := range f.Comments {
			text := g.Text()
			for _, name := range goFileRE.FindAllString(text, -1) {
				if staleNames[filepath.ToSlash(rel)] == name {
					met[filepath.ToSlash(rel)] = true
					continue
				}
				if !exists(path, name) {
					t.Errorf("%s: a comment names %s, which is no file of the module", rel, name)
				}
			}
			for _, c := range codeRE.FindAllString(text, -1) {
				if !defined[c] {
					t.Errorf("%s: a comment names %s, which specs/spec.md does not define", rel, c)
				}
			}
		}
	}
	for file, name := range staleNames {
		if !met[file] {
			t.Errorf("%s no longer names %s: remove it from staleNames", file, name)
		}
	}
}
