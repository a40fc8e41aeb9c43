package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a test so that a failing comparison can be
// watched instead of failing this test.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) {
	r.Errorf(f, a...)
	runtime.Goexit()
}
func (r *recorder) Logf(string, ...any) {}

// run calls f with a recorder on a goroutine of its own, as Fatalf ends it.
func run(t *testing.T, f func(r *recorder)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failed
}

func TestJSONComparesValuesNotSpelling(t *testing.T) {
	for _, c := range []struct {
		got, want string
		same      bool
	}{
		{`{"a":1,"b":[2,3]}`, "{\n  \"b\": [2, 3],\n  \"a\": 1\n}\n", true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
	} {
		same, err := JSON([]byte(c.got), []byte(c.want))
		if err != nil || same != c.same {
			t.Errorf("JSON(%s, %s) = %v, %v; want %v", c.got, c.want, same, err, c.same)
		}
	}
	if _, err := JSON([]byte(`{}`), []byte(`{`)); err == nil {
		t.Error("a file that is not JSON compared without an error")
	}
	if same, _ := Bytes([]byte("{\"a\":1}\n"), []byte(`{"a":1}`)); same {
		t.Error("Bytes let a missing newline pass")
	}
}

func TestCheckReportsDriftAndMissingFilesWithTheRerun(t *testing.T) {
	setUpdate(t, false)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	if err := os.WriteFile(path, []byte("{\"a\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const rerun = "go test ./x -update"

	if got := run(t, func(r *recorder) { Check(r, path, Indented(r, map[string]int{"a": 1}), JSON, rerun) }); len(got) != 0 {
		t.Errorf("an equal value failed: %q", got)
	}
	got := run(t, func(r *recorder) { Check(r, path, Indented(r, map[string]int{"a": 2}), JSON, rerun) })
	if len(got) != 1 || !strings.Contains(got[0], "drifted from "+path) || !strings.Contains(got[0], rerun) {
		t.Errorf("drift reported as %q", got)
	}
	got = run(t, func(r *recorder) { Check(r, filepath.Join(dir, "none.json"), []byte("{}"), JSON, rerun) })
	if len(got) != 1 || !strings.Contains(got[0], "none.json") || !strings.Contains(got[0], rerun) {
		t.Errorf("a missing file reported as %q", got)
	}
}

func TestOrphansNamesFilesWithNothingLive(t *testing.T) {
	setUpdate(t, false)
	dir := t.TempDir()
	for _, n := range []string{"kept.json", "gone.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := run(t, func(r *recorder) { Orphans(r, dir, func(name string) bool { return name == "kept" }) })
	if len(got) != 1 || !strings.Contains(got[0], "gone.json") {
		t.Errorf("orphans reported as %q; want gone.json alone", got)
	}
}
