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

// TestDocsSayWhatTheServerDoes holds user-facing texts to the code: a page
// on a loopback origin needs no MCP_ALLOWED_ORIGINS (the origin check
// accepts it on a loopback listener), a refused secret is not described by
// its length (ConfigError shows nothing of it), and the Claude Desktop
// bundle's settings name nothing the bundle does not contain.
func TestDocsSayWhatTheServerDoes(t *testing.T) {
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	loopback := regexp.MustCompile(`https?://(localhost|127\.0\.0\.1|\[::1\])`)
	text := strings.ReplaceAll(strings.ReplaceAll(read("README.md"), "e.g. ", "e.g, "), "\n", " ")
	for _, sentence := range regexp.MustCompile(`[.;] `).Split(text, -1) {
		if strings.Contains(sentence, "MCP_ALLOWED_ORIGINS") && loopback.MatchString(sentence) {
			t.Errorf("README says to set MCP_ALLOWED_ORIGINS for a loopback page, which a loopback listener accepts anyway: %q", sentence)
		}
	}
	if conf := read("specs/configuration.md"); regexp.MustCompile(`(?i)(by|gives) its length`).MatchString(conf) {
		t.Error("specs/configuration.md says a bad secret is shown by its length; the error shows nothing of it")
	}
	if _, err := Load(env(map[string]string{"NSIP_REDIS_URL": "redis://127.0.0.1:6379", "NSIP_REDIS_SECRET": "short-secret"})); err == nil ||
		strings.Contains(err.Error(), "short-secret") || strings.Contains(err.Error(), "12") || !strings.Contains(err.Error(), "(the value is not shown)") {
		t.Errorf("a short NSIP_REDIS_SECRET: %v; want it refused showing nothing of it", err)
	}
	if m := read("cmd/nsip-mcp/manifest.json"); strings.Contains(m, "nsip-stub") {
		t.Error("the bundle's manifest names nsip-stub, which the bundle does not contain")
	}
}
