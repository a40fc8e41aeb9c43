package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestReadmeInstallSteps checks the README's install block against what the
// commands really do: install must create ~/.local/bin on a fresh home,
// and the version shown must have the form .ci/version stamps before the
// first tag and --version prints.
func TestReadmeInstallSteps(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	var install string
	for _, l := range strings.Split(readme, "\n") {
		if strings.HasPrefix(l, "install ") && strings.Contains(l, "~/.local/bin/") {
			install = l
		}
	}
	if install == "" || !(strings.Contains(install, " -D ") || strings.Contains(readme, "mkdir -p ~/.local/bin")) {
		t.Errorf("the README's install line %q fails where ~/.local/bin does not exist: use install -D or mkdir -p first", install)
	}
	form := regexp.MustCompile(`# nsip-mcp ((v0\.0\.0-[0-9]+-g[0-9a-f]{7}) \(commit ([0-9a-f]{7}…), built (\S+), (go1\.\d+\.\d+), linux/amd64\))`)
	m := form.FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("the README shows no nsip-mcp --version line of the form a build before the first tag prints")
	}
	got := buildInfo{Version: m[2], Commit: m[3], Date: m[4], Go: m[5]}.String()
	if want := strings.Replace(m[1], "linux/amd64", runtime.GOOS+"/"+runtime.GOARCH, 1); got != want {
		t.Errorf("--version prints %q for the README's build, which shows %q", got, want)
	}
}
