// Package snapshot keeps the tests' contract files: what a client sees is
// compared with a file under version control, and `-update` rewrites the
// files after a deliberate change. Only test binaries import it, so the
// flag exists only there.
package snapshot

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite contract and golden files from what the code now answers")

// Updating reports whether this run rewrites the files instead of comparing.
func Updating() bool { return *update }

// Compare decides whether the live bytes match the file's.
type Compare func(got, want []byte) (bool, error)

// Bytes holds a file to the exact bytes: goldens whose token counts rest on
// every byte.
func Bytes(got, want []byte) (bool, error) { return bytes.Equal(got, want), nil }

// JSON holds a file to the JSON value it spells, so a contract may be
// re-indented by hand without failing.
func JSON(got, want []byte) (bool, error) {
	var x, y any
	if err := json.Unmarshal(got, &x); err != nil {
		return false, err
	}
	if err := json.Unmarshal(want, &y); err != nil {
		return false, err
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb), nil
}

// Indented is v as the contract files spell it: two-space indent and a
// final newline, so a diff of a contract reads like any other.
func Indented(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// Check compares got with the file at path, or writes it there under
// -update. rerun is the command that rewrites the file, named in the
// failure so the fix is one paste away.
func Check(t testing.TB, path string, got []byte, same Compare, rerun string) {
	t.Helper()
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
		t.Fatalf("no file %s (%v); if it is new, run: %s", path, err, rerun)
	}
	ok, err := same(got, want)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !ok {
		t.Errorf("drifted from %s; if intended, run: %s\n got: %s\nwant: %s", path, rerun, got, want)
	}
}

// Orphans fails for each .json file in dir whose name nothing live has: a
// removed tool or resource is a contract change too, so its file must go
// with it. Under -update the orphans are only reported.
func Orphans(t testing.TB, dir string, live func(name string) bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !live(strings.TrimSuffix(filepath.Base(f), ".json")) {
			if *update {
				t.Logf("%s has nothing live; remove it if that is intended", f)
				continue
			}
			t.Errorf("%s has nothing live; remove it if that is intended", f)
		}
	}
}
