package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Fatal is Fatalf for the recorder, as Check and Indented call it.
func (r *recorder) Fatal(a ...any) {
	r.Errorf("%s", fmt.Sprint(a...))
	runtime.Goexit()
}

// setUpdate sets -update to on for the rest of the test and puts back
// what the run was given after it, so that each test checks the mode it
// is about whether or not the run itself was given -update.
func setUpdate(t *testing.T, on bool) {
	was := *update
	*update = on
	t.Cleanup(func() { *update = was })
}

// Under -update a file is written (its folder made) rather than compared,
// and an orphan is only reported.
func TestUpdateWritesAndOnlyReportsOrphans(t *testing.T) {
	setUpdate(t, true)
	if !Updating() {
		t.Fatal("Updating is false under -update")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "a.json")
	if got := run(t, func(r *recorder) { Check(r, path, Indented(r, map[string]int{"a": 1}), JSON, "rerun") }); len(got) != 0 {
		t.Fatalf("writing under -update failed: %q", got)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("wrote %q, %v; want the indented value and a newline", b, err)
	}
	if got := run(t, func(r *recorder) { Orphans(r, filepath.Dir(path), func(string) bool { return false }) }); len(got) != 0 {
		t.Errorf("an orphan under -update failed the run: %q", got)
	}
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(t, func(r *recorder) { Check(r, filepath.Join(blocked, "a.json"), []byte("{}"), JSON, "rerun") }); len(got) != 1 {
		t.Errorf("a folder that cannot be made: %q; want one failure", got)
	}
}

// A value that cannot be JSON, and a file that is not JSON, fail the
// check naming the file.
func TestCheckFailsOnWhatIsNotJSON(t *testing.T) {
	setUpdate(t, false)
	if got := run(t, func(r *recorder) { Indented(r, func() {}) }); len(got) != 1 {
		t.Errorf("indenting a func: %q; want one failure", got)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := run(t, func(r *recorder) { Check(r, path, []byte("{}"), JSON, "rerun") })
	if len(got) != 1 || got[0][:len(path)] != path {
		t.Errorf("a file that is not JSON: %q; want one failure naming it", got)
	}
	if got := run(t, func(r *recorder) { Orphans(r, "[", func(string) bool { return true }) }); len(got) != 1 {
		t.Errorf("a bad pattern: %q; want one failure", got)
	}
}
