// Package buildbin builds a command of this module once for a package's
// tests, which then start it as a real process.
package buildbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Main builds the command in dir (relative to the test's package, e.g.
// "." or "../nsip-mcp") with any extra go build flags, stores its path in
// *bin, runs the tests and exits with their code. It is meant to be the
// whole of a TestMain.
func Main(m *testing.M, bin *string, dir string, flags ...string) {
	tmp, err := os.MkdirTemp("", "nsip-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "buildbin: temp dir:", err)
		os.Exit(1)
	}
	*bin = filepath.Join(tmp, filepath.Base(mustAbs(dir)))
	args := append(append([]string{"build", "-o", *bin}, flags...), dir)
	build := exec.Command("go", args...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "buildbin: building %s: %v\n", dir, err)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func mustAbs(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		panic(err)
	}
	return abs
}
