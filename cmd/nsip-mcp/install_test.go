package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/summarize"
)

// repoRoot is where make and the .ci scripts run.
const repoRoot = "../.."

// readmeExampleLPN is the animal the README's examples and make demo ask for.
const readmeExampleLPN = "6402382024NCS310"

// TestMakeRunStdoutIsOnlyJSONRPC runs `make run` as a host would use it as
// its command: every line on stdout must be a JSON-RPC message, so make's
// own echo of the commands it runs must not be there; and the build it
// starts is stamped with .ci/version's version.
func TestMakeRunStdoutIsOnlyJSONRPC(t *testing.T) {
	watchdog(t, testLimit)
	stamp, err := exec.Command(filepath.Join(repoRoot, ".ci", "version")).Output()
	if err != nil {
		t.Fatalf(".ci/version: %v", err)
	}
	wantVersion := strings.SplitN(string(stamp), "\n", 2)[0]
	stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "run", "BIN="+t.TempDir())
	cmd.Dir = repoRoot
	// As a host starts it: not from inside another make (make test), whose
	// MAKELEVEL would have make print "Entering directory" on stdout.
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "MAKELEVEL" && name != "MAKEFLAGS" && name != "MFLAGS" {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "NSIP_BASE_URL="+stub.URL(), "LOG_LEVEL=debug", "MCP_TRANSPORT=stdio")
	cmd.WaitDelay = outputDrain
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr logbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("make run: %v", err)
	}
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nsip_get_statuses","arguments":{}}}`,
	}
	for _, r := range requests {
		if _, err := io.WriteString(stdin, r+"\n"); err != nil {
			t.Fatalf("writing to make run: %v; stderr:\n%s", err, stderr.String())
		}
	}
	// Read until the tool's answer, then close stdin: the server stops.
	var lines []string
	sc := bufio.NewScanner(stdoutPipe)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), `"id":2`) {
			break
		}
	}
	_ = stdin.Close()
	rest, _ := io.ReadAll(stdoutPipe)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("make run exited with %v; stderr:\n%s", err, stderr.String())
	}
	if s := strings.TrimSpace(string(rest)); s != "" {
		lines = append(lines, strings.Split(s, "\n")...)
	}
	if len(lines) != 2 {
		t.Fatalf("stdout had %d lines, want the 2 answers; stdout:\n%s\nstderr:\n%s", len(lines), strings.Join(lines, "\n"), stderr.String())
	}
	for i, line := range lines {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
			ID      int    `json:"id"`
			Result  struct {
				ServerInfo struct{ Version string } `json:"serverInfo"`
				Content    []struct{ Text string }  `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" || m.ID != i+1 {
			t.Fatalf("stdout line %d is not the JSON-RPC answer to request %d: %.300q", i+1, i+1, line)
		}
		if i == 0 && m.Result.ServerInfo.Version != wantVersion {
			t.Errorf("serverInfo.version %q, want %q from .ci/version", m.Result.ServerInfo.Version, wantVersion)
		}
		if i == 1 && (len(m.Result.Content) != 1 || !strings.Contains(m.Result.Content[0].Text, "CURRENT")) {
			t.Errorf("nsip_get_statuses answered %.300s, want the statuses with CURRENT", line)
		}
	}
}

// TestDemoMakesOneCall runs the script behind make demo: nsip-stub and
// nsip-mcp together, initialize, then nsip_get_animal for the README's
// animal (another with a deep pedigree while the stand-in lacks it), each
// answer printed after "< ".
func TestDemoMakesOneCall(t *testing.T) {
	watchdog(t, testLimit)
	dir := t.TempDir()
	if b, err := exec.Command("go", "build", "-o", filepath.Join(dir, "nsip-stub"), "../nsip-stub").CombinedOutput(); err != nil {
		t.Fatalf("building nsip-stub: %v\n%s", err, b)
	}
	if err := os.Symlink(buildBinary(), filepath.Join(dir, "nsip-mcp")); err != nil {
		t.Fatal(err)
	}
	lpn := readmeExampleLPN
	if d := nsiptest.NewDataset(1, 4000); !hasAnimal(d, lpn) { // nsip-stub's defaults
		lpn = d.DeepPedigree()
		t.Logf("the stand-in has no %s; asking for %s instead", readmeExampleLPN, lpn)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(repoRoot, ".ci", "demo"), dir, lpn).CombinedOutput()
	if err != nil {
		t.Fatalf(".ci/demo: %v\n%s", err, out)
	}
	var answers []string
	for _, line := range strings.Split(string(out), "\n") {
		if a, ok := strings.CutPrefix(line, "< "); ok {
			answers = append(answers, a)
		}
	}
	if len(answers) != 2 {
		t.Fatalf("demo printed %d answers, want initialize's and the call's:\n%s", len(answers), out)
	}
	var call struct {
		ID     int `json:"id"`
		Result struct {
			IsError bool                    `json:"isError"`
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answers[1]), &call); err != nil || call.ID != 2 || call.Result.IsError ||
		len(call.Result.Content) != 1 || !strings.Contains(call.Result.Content[0].Text, `"success":true`) ||
		!strings.Contains(call.Result.Content[0].Text, lpn) {
		t.Errorf("the demo's call answered %.400s; want animal %s's record", answers[1], lpn)
	}
}

// TestDemoRefusesAnUnusableLPN: make demo LPN="6402382024 NCS310" reaches
// the script as one argument with a space (the Makefile quotes it), or as
// two when split; either way the script refuses, naming LPN and the ID
// without the space, before starting anything, rather than asking for the
// first part.
func TestDemoRefusesAnUnusableLPN(t *testing.T) {
	dir := t.TempDir() // no binaries: a refusal must not need them
	for _, args := range [][]string{{"6402382024 NCS310"}, {"6402382024", "NCS310"}, {`x"}}`}} {
		cmd := exec.Command(filepath.Join(repoRoot, ".ci", "demo"), append([]string{dir}, args...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("demo %q: %v, want exit 2\n%s", args, err, out)
		}
		want := "make demo LPN=6402382024NCS310"
		if !strings.Contains(string(out), "demo: LPN") || !strings.Contains(string(out), want) || strings.Contains(string(out), "stand-in NSIP at") {
			t.Errorf("demo %q said %q; want a refusal naming LPN and %q, nothing started", args, out, want)
		}
	}
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mk), "'$(LPN)'") {
		t.Error("the Makefile passes $(LPN) to .ci/demo unquoted, so an LPN with a space arrives split")
	}
}

func hasAnimal(d *nsiptest.Dataset, lpn string) bool {
	_, ok := d.Animal(lpn)
	return ok
}

// TestTerminalHint: what a person who starts the server by hand reads.
func TestTerminalHint(t *testing.T) {
	var b bytes.Buffer
	writeTerminalHint(&b)
	for _, want := range []string{"MCP server", "stdin", "stdout", "make demo", "@modelcontextprotocol/inspector", "Claude Desktop", "Ctrl-D"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("hint lacks %q:\n%s", want, b.String())
		}
	}
}

// TestDistBuildsBinariesChecksumsAndBundle runs the script behind make dist
// for this machine's target only (all six take minutes): one static binary
// that reports the stamped version, a bundle whose manifest names that
// binary, and checksums that match both.
func TestDistBuildsBinariesChecksumsAndBundle(t *testing.T) {
	watchdog(t, testLimit)
	goos, goarch := runtime.GOOS, runtime.GOARCH
	if !slices.Contains([]string{"linux", "darwin", "windows"}, goos) || !slices.Contains([]string{"amd64", "arm64"}, goarch) {
		goos, goarch = "linux", "amd64"
	}
	native := goos == runtime.GOOS && goarch == runtime.GOARCH
	out := t.TempDir()
	const version = "v2.0.1-rc.1"
	cmd := exec.Command("go", "run", ".ci/dist.go", "-out", out, "-targets", goos+"/"+goarch,
		"-version", version, "-commit", stampCommit, "-date", stampDate)
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/dist.go: %v\n%s", err, b)
	}
	exe := ""
	if goos == "windows" {
		exe = ".exe"
	}
	base := "nsip-mcp-" + version + "-" + goos + "-" + goarch
	binName, bundleName := base+exe, base+".mcpb"
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"SHA256SUMS", binName, bundleName, "server.json"}; !slices.Equal(names, want) {
		t.Fatalf("dist holds %v, want %v", names, want)
	}

	// SHA256SUMS lists both files, in sha256sum -c's format, with their hashes.
	sums, _ := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	var listed []string
	for _, l := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("SHA256SUMS line %q is not <sha256>  <name>", l)
		}
		body, err := os.ReadFile(filepath.Join(out, m[2]))
		if err != nil {
			t.Fatalf("SHA256SUMS lists %s: %v", m[2], err)
		}
		if h := sha256.Sum256(body); hex.EncodeToString(h[:]) != m[1] {
			t.Errorf("SHA256SUMS says %s for %s; the file hashes to %x", m[1], m[2], h)
		}
		listed = append(listed, m[2])
	}
	if want := []string{binName, bundleName}; !slices.Equal(listed, want) {
		t.Errorf("SHA256SUMS lists %v, want %v", listed, want)
	}

	bin := filepath.Join(out, binName)
	binary, _ := os.ReadFile(bin)
	if goos == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		libs, _ := f.ImportedLibraries()
		if f.Section(".interp") != nil || len(libs) != 0 {
			t.Errorf("%s is dynamically linked (libraries %v); want a static binary", binName, libs)
		}
		f.Close()
	}
	if native {
		got, err := exec.Command(bin, "--version").Output()
		if err != nil || !strings.HasPrefix(string(got), "nsip-mcp "+version+" (commit "+stampCommit+", built "+stampDate) {
			t.Errorf("%s --version printed %q (%v), want version %s, commit and date", binName, got, err, version)
		}
	}

	// The bundle: a manifest that parses, names the binary it carries as
	// its entry point and command, executable, byte for byte the release one.
	zr, err := zip.OpenReader(filepath.Join(out, bundleName))
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	var m struct {
		ManifestVersion string `json:"manifest_version"`
		Name, Version   string
		Server          struct {
			Type       string
			EntryPoint string                   `json:"entry_point"`
			MCPConfig  struct{ Command string } `json:"mcp_config"`
		}
		Compatibility struct{ Platforms []string }
	}
	if err := json.Unmarshal(readZip(t, files["manifest.json"]), &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	platform := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[goos]
	if m.ManifestVersion != "0.3" || m.Name != "nsip-mcp" || m.Version != strings.TrimPrefix(version, "v") ||
		m.Server.Type != "binary" || m.Server.EntryPoint != "server/nsip-mcp"+exe ||
		m.Server.MCPConfig.Command != "${__dirname}/server/nsip-mcp"+exe || !slices.Equal(m.Compatibility.Platforms, []string{platform}) {
		t.Errorf("manifest %+v: want 0.3, nsip-mcp %s, a binary server at server/nsip-mcp%s run as its command, platform %s",
			m, strings.TrimPrefix(version, "v"), exe, platform)
	}
	entry := files[m.Server.EntryPoint]
	if entry == nil {
		t.Fatalf("the bundle has no %s; it holds %v", m.Server.EntryPoint, slices.Sorted(mapsKeys(files)))
	}
	if !bytes.Equal(readZip(t, entry), binary) || entry.Mode()&0o111 == 0 {
		t.Errorf("%s in the bundle (mode %v) is not the released binary, executable", entry.Name, entry.Mode())
	}
	if files["LICENSE"] == nil {
		t.Error("the bundle has no LICENSE")
	}

	// The registry entry: this release's version, its image, and the one
	// bundle built, with the hash of the file.
	var reg registryEntry
	readJSONFile(t, filepath.Join(out, "server.json"), &reg)
	bundleBody, _ := os.ReadFile(filepath.Join(out, bundleName))
	sum := sha256.Sum256(bundleBody)
	var kinds []string
	for _, p := range reg.Packages {
		kinds = append(kinds, p.RegistryType)
		switch p.RegistryType {
		case "oci":
			if !strings.HasSuffix(p.Identifier, ":"+strings.TrimPrefix(version, "v")) {
				t.Errorf("server.json's image %s is not tagged %s", p.Identifier, version)
			}
		case "mcpb":
			if !strings.HasSuffix(p.Identifier, "/releases/download/"+version+"/"+bundleName) || p.FileSha256 != hex.EncodeToString(sum[:]) {
				t.Errorf("server.json's bundle %s (sha256 %s); want %s at tag %s, sha256 %x", p.Identifier, p.FileSha256, bundleName, version, sum)
			}
		}
	}
	if reg.Version != strings.TrimPrefix(version, "v") || !slices.Equal(kinds, []string{"oci", "mcpb"}) {
		t.Errorf("server.json: version %q, packages %v; want %s, the image and the one bundle built", reg.Version, kinds, strings.TrimPrefix(version, "v"))
	}
}

func readZip(t *testing.T, f *zip.File) []byte {
	t.Helper()
	if f == nil {
		t.Fatal("file missing from the bundle")
	}
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// bundleManifest is the part of manifest.json a host acts on.
type bundleManifest struct {
	Server struct {
		MCPConfig struct {
			Env map[string]string
		} `json:"mcp_config"`
	}
	Tools      []struct{ Name, Description string }
	UserConfig map[string]struct {
		Type     string
		Title    string
		Default  any
		Min, Max *float64
	} `json:"user_config"`
}

// TestManifestMatchesTheServer keeps cmd/nsip-mcp/manifest.json honest: it
// lists exactly the server's tools, its env sets only real settings from
// user_config options that exist, the options' defaults are accepted, and
// a number option's min and max are the setting's own bounds.
func TestManifestMatchesTheServer(t *testing.T) {
	raw, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m bundleManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}

	client, _ := nsip.NewClient()
	g, err := gateway.New(client, summarize.New(summarize.StartCounter()), gateway.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var served, listed []string
	for _, tool := range g.Tools() {
		served = append(served, tool.Tool.Name)
	}
	for _, tool := range m.Tools {
		listed = append(listed, tool.Name)
		if tool.Description == "" {
			t.Errorf("manifest tool %s has no description", tool.Name)
		}
	}
	slices.Sort(served)
	slices.Sort(listed)
	if !slices.Equal(served, listed) {
		t.Errorf("manifest.json lists tools %v; the server has %v: update manifest.json's tools", listed, served)
	}

	ref := regexp.MustCompile(`^\$\{user_config\.([a-z_]+)\}$`)
	defaults := map[string]string{}
	for name, value := range m.Server.MCPConfig.Env {
		if !slices.ContainsFunc(settings, func(s setting) bool { return s.name == name }) {
			t.Errorf("manifest env sets %s, which nsip-mcp does not read", name)
		}
		r := ref.FindStringSubmatch(value)
		if r == nil {
			t.Errorf("manifest env %s=%q is not ${user_config.<option>}", name, value)
			continue
		}
		opt, ok := m.UserConfig[r[1]]
		if !ok {
			t.Errorf("manifest env %s uses user_config.%s, which is not defined", name, r[1])
			continue
		}
		defaults[name] = fmt.Sprint(opt.Default)
		// MCPB's option types; a host refuses a bundle with any other,
		// so a whole-number setting can only be offered as a number.
		if !slices.Contains([]string{"string", "number", "boolean", "directory", "file"}, opt.Type) {
			t.Errorf("user_config.%s has type %q, which MCPB does not know", r[1], opt.Type)
		}
		if opt.Type == "number" && (opt.Min == nil || opt.Max == nil) {
			t.Errorf("user_config.%s is a number without min and max; %s has bounds", r[1], name)
		}
		if opt.Type == "number" && opt.Min != nil && opt.Max != nil {
			// A number field takes any number within its bounds, so the
			// setting must take fractions too (2000.5 once stopped the
			// server at start).
			for _, v := range []float64{*opt.Min, *opt.Max, *opt.Min + 0.5, (*opt.Min+*opt.Max)/2 + 0.25, *opt.Max - 0.5} {
				if _, err := Load(env(map[string]string{name: fmt.Sprint(v)})); err != nil {
					t.Errorf("user_config.%s allows %v, which %s refuses: %v", r[1], v, name, err)
				}
			}
			for _, v := range []float64{*opt.Min - 1, *opt.Max + 1} {
				if _, err := Load(env(map[string]string{name: fmt.Sprint(v)})); err == nil {
					t.Errorf("user_config.%s's bounds are narrower than %s's: %v is accepted", r[1], name, v)
				}
			}
		}
	}
	if len(defaults) != len(m.UserConfig) {
		t.Errorf("manifest defines %d user_config options but env uses %d", len(m.UserConfig), len(defaults))
	}
	cfg, err := Load(env(defaults))
	if err != nil {
		t.Fatalf("the manifest's defaults %v are refused: %v", defaults, err)
	}
	if cfg.NSIP.BaseURL != nsip.DefaultBaseURL || cfg.Gateway.Budget != 2000 {
		t.Errorf("with the manifest's defaults, base URL %q and budget %d; want the public API and 2000", cfg.NSIP.BaseURL, cfg.Gateway.Budget)
	}
}

// TestDistBundlesAReleaseBuild runs the two steps the release pipeline
// borrows from .ci/dist.go on binaries built elsewhere, as GoReleaser
// leaves them: -bundle wraps each one, byte for byte, in its target's
// bundle beside what is already there, and -registry lists exactly the
// bundles of that version with their hashes.
func TestDistBundlesAReleaseBuild(t *testing.T) {
	const version = "v2.0.1"
	out := t.TempDir()
	built := t.TempDir()
	// Stand-ins for GoReleaser's builds and what it has already written.
	bins := map[string][]byte{"linux/arm64": []byte("linux arm64 binary"), "windows/amd64": []byte("windows amd64 binary")}
	paths := map[string]string{}
	for target, body := range bins {
		name := "nsip-mcp"
		if strings.HasPrefix(target, "windows/") {
			name += ".exe"
		}
		dir := filepath.Join(built, strings.ReplaceAll(target, "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		paths[target] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[target], body, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	others := map[string]string{"nsip-mcp-v2.0.1-linux-arm64": "release binary", "nsip-mcp-v1.0.0-linux-amd64.mcpb": "an older bundle"}
	for name, body := range others {
		if err := os.WriteFile(filepath.Join(out, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dist := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", append([]string{"run", ".ci/dist.go", "-out", out}, args...)...)
		cmd.Dir = repoRoot
		return cmd.CombinedOutput()
	}
	for _, target := range []string{"linux/arm64", "windows/amd64"} {
		if b, err := dist("-bundle", paths[target], "-target", target, "-version", version, "-date", stampDate); err != nil {
			t.Fatalf("-bundle %s: %v\n%s", target, err, b)
		}
	}
	if b, err := dist("-registry", "-version", version); err != nil {
		t.Fatalf("-registry: %v\n%s", err, b)
	}

	for name, body := range others {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != body {
			t.Errorf("%s was %q before the bundle step and is %q (%v) after", name, body, got, err)
		}
	}
	sums := map[string]string{}
	for target, entry := range map[string]string{"linux/arm64": "server/nsip-mcp", "windows/amd64": "server/nsip-mcp.exe"} {
		name := "nsip-mcp-" + version + "-" + strings.ReplaceAll(target, "/", "-") + ".mcpb"
		body, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatalf("no bundle for %s: %v", target, err)
		}
		h := sha256.Sum256(body)
		sums[name] = hex.EncodeToString(h[:])
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := map[string]*zip.File{}
		for _, f := range zr.File {
			files[f.Name] = f
		}
		var m struct {
			Version string
			Server  struct {
				EntryPoint string `json:"entry_point"`
			}
			Compatibility struct{ Platforms []string }
		}
		if err := json.Unmarshal(readZip(t, files["manifest.json"]), &m); err != nil {
			t.Fatalf("%s manifest.json: %v", name, err)
		}
		platform := map[string]string{"linux/arm64": "linux", "windows/amd64": "win32"}[target]
		if m.Version != "2.0.1" || m.Server.EntryPoint != entry || !slices.Equal(m.Compatibility.Platforms, []string{platform}) {
			t.Errorf("%s manifest: version %q, entry point %q, platforms %v; want 2.0.1, %s, [%s]", name, m.Version, m.Server.EntryPoint, m.Compatibility.Platforms, entry, platform)
		}
		if got := readZip(t, files[entry]); !bytes.Equal(got, bins[target]) || files[entry].Mode()&0o111 == 0 {
			t.Errorf("%s holds %q (mode %v) at %s, want the built binary %q, executable", name, got, files[entry].Mode(), entry, bins[target])
		}
	}

	var reg registryEntry
	readJSONFile(t, filepath.Join(out, "server.json"), &reg)
	listed := map[string]string{}
	for _, p := range reg.Packages {
		if p.RegistryType == "mcpb" {
			listed[p.Identifier[strings.LastIndex(p.Identifier, "/")+1:]] = p.FileSha256
			if !strings.Contains(p.Identifier, "/releases/download/"+version+"/") {
				t.Errorf("server.json's bundle %s is not at tag %s", p.Identifier, version)
			}
		}
	}
	if reg.Version != "2.0.1" || fmt.Sprint(listed) != fmt.Sprint(sums) {
		t.Errorf("server.json: version %q, bundles %v; want 2.0.1 and exactly the bundles built, %v", reg.Version, listed, sums)
	}
}

// TestDistRefusesAMissingBundleStep: the release's server.json step finds
// no bundle (the build hook did not run) or the hook names no binary; each
// stops with what to do instead of publishing an entry without bundles.
func TestDistRefusesAMissingBundleStep(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-registry", "-version", "v2.0.1"}, "no bundles nsip-mcp-v2.0.1-*.mcpb in " + out + ": build them first"},
		{[]string{"-bundle", filepath.Join(out, "nsip-mcp"), "-target", "linux/amd64", "-version", "v2.0.1"}, "no such binary; build it first"},
		{[]string{"-bundle", filepath.Join(out, "nsip-mcp"), "-target", "plan9/amd64", "-version", "v2.0.1"}, `-target: target "plan9/amd64": want GOOS/GOARCH`},
	} {
		cmd := exec.Command("go", append([]string{"run", ".ci/dist.go", "-out", out}, c.args...)...)
		cmd.Dir = repoRoot
		b, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(b), c.want) {
			t.Errorf("dist %v: %v, said %q; want a failure saying %q", c.args, err, b, c.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the refused steps left %d files in %s", len(entries), out)
	}
}

// TestReleaseBuildsWhatDistBuilds keeps .ci/goreleaser.yaml in step with
// make dist: the same targets, the same static, stamped build, binaries
// named as .ci/dist.go names them (and so as server.json's bundles are),
// and each one bundled by .ci/dist.go.
func TestReleaseBuildsWhatDistBuilds(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cfg, dist, mk := read(".ci/goreleaser.yaml"), read(".ci/dist.go"), read("Makefile")
	field := func(re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(cfg)
		if m == nil {
			t.Fatalf(".ci/goreleaser.yaml has no line matching %s", re)
		}
		return m[1]
	}
	list := func(s string) []string { return strings.Split(strings.ReplaceAll(s, " ", ""), ",") }

	var targets []string
	for _, goos := range list(field(`(?m)^\s+goos: \[([^]]+)\]$`)) {
		for _, goarch := range list(field(`(?m)^\s+goarch: \[([^]]+)\]$`)) {
			targets = append(targets, goos+"/"+goarch)
		}
	}
	want := list(regexp.MustCompile(`(?m)^TARGETS \?= (\S+)$`).FindStringSubmatch(mk)[1])
	slices.Sort(targets)
	slices.Sort(want)
	if !slices.Equal(targets, want) {
		t.Errorf("the release builds %v; make dist builds %v", targets, want)
	}

	// dist.go's build and names, with GoReleaser's for the version, commit,
	// date, GOOS and GOARCH.
	distFlags := regexp.MustCompile(`ldflags := fmt\.Sprintf\("([^"]+)"`).FindStringSubmatch(dist)
	distName := regexp.MustCompile(`fmt\.Sprintf\("(nsip-mcp-%s-%s-%s)"`).FindStringSubmatch(dist)
	if distFlags == nil || distName == nil {
		t.Fatal(".ci/dist.go has no ldflags or file name format")
	}
	fill := func(format string, values ...string) string {
		for _, v := range values {
			format = strings.Replace(format, "%s", v, 1)
		}
		return format
	}
	flags := fill(distFlags[1], "v{{ .Version }}", "{{ .FullCommit }}", "{{ .CommitDate }}")
	if got := field(`(?m)^\s+- (-s -w -X main\.version=.*)$`); got != flags {
		t.Errorf("the release's ldflags are %q; make dist's are %q", got, flags)
	}
	if !strings.Contains(cfg, "- CGO_ENABLED=0\n") || !strings.Contains(cfg, "- -trimpath\n") {
		t.Error("the release's build is not CGO_ENABLED=0 with -trimpath, as make dist's is")
	}
	name := fill(distName[1], "v{{ .Version }}", "{{ .Os }}", "{{ .Arch }}")
	if got := field(`(?m)^\s+name_template: "(nsip-mcp-[^"]*)"$`); got != name {
		t.Errorf("the release names its binaries %q; make dist names them %q", got, name)
	}
	if hook := field(`(?m)^\s+- cmd: (go run \.ci/dist\.go .*)$`); !strings.Contains(hook, `-bundle "{{ .Path }}" -target "{{ .Os }}/{{ .Arch }}" -version "v{{ .Version }}"`) {
		t.Errorf("the release's build hook %q does not bundle each binary with its target and version", hook)
	}
}
