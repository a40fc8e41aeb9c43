//go:build ignore

// dist builds the release artifacts into one directory (make dist):
//
//   - nsip-mcp-<version>-<os>-<arch>[.exe]: static binaries (CGO_ENABLED=0,
//     -trimpath) for each target, stamped with version, commit and date;
//   - nsip-mcp-<version>-<os>-<arch>.mcpb: a Claude Desktop bundle per target,
//     a zip of manifest.json (cmd/nsip-mcp/manifest.json with the version,
//     platform and binary filled in), server/nsip-mcp[.exe] and LICENSE;
//   - SHA256SUMS over all of them, in the format sha256sum -c reads;
//   - server.json: the MCP Registry entry (cmd/nsip-mcp/server.json with the
//     version filled in and, for each bundle built, its SHA-256).
//
// Usage: go run .ci/dist.go [-out dist] [-targets linux/amd64,...]
// [-version v1.2.3 -commit <sha> -date <RFC 3339>]; without -version it
// runs .ci/version. It is a program rather than a shell script so that it
// needs nothing beyond Go (no zip or sha256sum) on any OS.
//
// The release pipeline (.ci/goreleaser.yaml) builds the binaries and
// SHA256SUMS itself and borrows the two steps GoReleaser has no notion of:
//
//   - -bundle <binary> -target GOOS/GOARCH: the bundle of one binary already
//     built, written to -out beside the others (its build hook);
//   - -registry: server.json for the bundles of -version already in -out.
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

const allTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

// mcpbPlatform maps GOOS to the platform names of the MCPB manifest
// (Node's process.platform).
var mcpbPlatform = map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}

// semver is what the manifest's version must be: MAJOR.MINOR.PATCH with an
// optional pre-release and build.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func main() {
	out := flag.String("out", "dist", "output directory")
	targets := flag.String("targets", allTargets, "comma-separated GOOS/GOARCH pairs")
	version := flag.String("version", "", "version to stamp (default: from .ci/version)")
	commit := flag.String("commit", "", "commit to stamp")
	date := flag.String("date", "", "build date to stamp, RFC 3339")
	bundle := flag.String("bundle", "", "bundle this binary, already built for -target, into -out; build nothing")
	target := flag.String("target", "", "GOOS/GOARCH of the -bundle binary")
	registry := flag.Bool("registry", false, "write -out/server.json for the -version bundles already in -out; build nothing")
	flag.Parse()
	var err error
	switch {
	case *bundle != "" && *registry:
		err = errors.New("-bundle and -registry are two steps: give one at a time")
	case *bundle != "":
		err = bundleOne(*out, *bundle, *target, *version, *date)
	case *registry:
		err = registryOnly(*out, *version)
	default:
		err = run(*out, strings.Split(*targets, ","), *version, *commit, *date)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

// release is what every step needs: the module's directory, the version
// (v1.2.3 and, for the manifest, 1.2.3) and the time stamped into the
// bundles' zip entries.
type release struct {
	root, version, mver, commit, date string
	modified                          time.Time
}

// newRelease checks the version and date, asking .ci/version for them
// when no version is given.
func newRelease(version, commit, date string) (*release, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	if version == "" {
		if version, commit, date, err = stamp(root); err != nil {
			return nil, err
		}
	}
	r := &release{root: root, version: version, mver: strings.TrimPrefix(version, "v"), commit: commit, date: date}
	if !semver.MatchString(r.mver) {
		return nil, fmt.Errorf("version %q is not v<semver> (e.g. v1.2.3), which the bundle's manifest needs; set VERSION", version)
	}
	r.modified = time.Now().UTC()
	if date != "" {
		if r.modified, err = time.Parse(time.RFC3339, date); err != nil {
			return nil, fmt.Errorf("date %q is not RFC 3339: %v", date, err)
		}
	}
	return r, nil
}

// parseTarget splits GOOS/GOARCH and names the binary's extension.
func parseTarget(t string) (goos, goarch, exe string, err error) {
	goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
	if !ok || mcpbPlatform[goos] == "" || goarch == "" {
		return "", "", "", fmt.Errorf("target %q: want GOOS/GOARCH with GOOS linux, darwin or windows", t)
	}
	if goos == "windows" {
		exe = ".exe"
	}
	return goos, goarch, exe, nil
}

// base is the name, without extension, of a target's binary and bundle.
func (r *release) base(goos, goarch string) string {
	return fmt.Sprintf("nsip-mcp-%s-%s-%s", r.version, goos, goarch)
}

func run(out string, targets []string, version, commit, date string) error {
	r, err := newRelease(version, commit, date)
	if err != nil {
		return err
	}
	if err := clean(out); err != nil {
		return err
	}
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s -X main.date=%s", r.version, r.commit, r.date)
	var files []string
	for _, t := range targets {
		goos, goarch, exe, err := parseTarget(t)
		if err != nil {
			return err
		}
		bin := filepath.Join(out, r.base(goos, goarch)+exe)
		fmt.Fprintf(os.Stderr, "dist: %s\n", bin)
		build := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/nsip-mcp")
		build.Dir = r.root
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building %s: %v", t, err)
		}
		bundle, err := r.bundle(out, bin, goos, goarch)
		if err != nil {
			return err
		}
		files = append(files, bin, bundle)
	}
	if err := writeSums(filepath.Join(out, "SHA256SUMS"), files); err != nil {
		return err
	}
	return r.writeRegistry(out, files)
}

// bundleOne wraps a binary built elsewhere (by the release pipeline) in
// its bundle, leaving everything else in out as it is.
func bundleOne(out, bin, target, version, date string) error {
	goos, goarch, _, err := parseTarget(target)
	if err != nil {
		return fmt.Errorf("-target: %v", err)
	}
	if fi, err := os.Stat(bin); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("-bundle %s: no such binary; build it first", bin)
	}
	r, err := newRelease(version, "", date)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	bundle, err := r.bundle(out, bin, goos, goarch)
	if err == nil {
		fmt.Fprintf(os.Stderr, "dist: %s\n", bundle)
	}
	return err
}

// registryOnly writes server.json for the bundles of this version that
// are already in out; with none there it refuses, as an entry listing no
// bundle would publish a release without them.
func registryOnly(out, version string) error {
	r, err := newRelease(version, "", "")
	if err != nil {
		return err
	}
	bundles, err := filepath.Glob(filepath.Join(out, "nsip-mcp-"+r.version+"-*.mcpb"))
	if err != nil {
		return err
	}
	if len(bundles) == 0 {
		return fmt.Errorf("no bundles nsip-mcp-%s-*.mcpb in %s: build them first (make dist, or the release pipeline)", r.version, out)
	}
	return r.writeRegistry(out, bundles)
}

// bundle zips the manifest, the binary and the licence into the target's
// bundle in out and returns its path.
func (r *release) bundle(out, bin, goos, goarch string) (string, error) {
	manifest, err := os.ReadFile(filepath.Join(r.root, "cmd", "nsip-mcp", "manifest.json"))
	if err != nil {
		return "", err
	}
	license, err := os.ReadFile(filepath.Join(r.root, "LICENSE"))
	if err != nil {
		return "", err
	}
	_, _, exe, _ := parseTarget(goos + "/" + goarch)
	m, err := bundleManifest(manifest, r.mver, mcpbPlatform[goos], "server/nsip-mcp"+exe)
	if err != nil {
		return "", err
	}
	path := filepath.Join(out, r.base(goos, goarch)+".mcpb")
	if err := writeBundle(path, r.modified, m, bin, "server/nsip-mcp"+exe, license); err != nil {
		return "", fmt.Errorf("bundle %s: %v", path, err)
	}
	return path, nil
}

// writeRegistry writes out/server.json listing the bundles among files.
func (r *release) writeRegistry(out string, files []string) error {
	registry, err := os.ReadFile(filepath.Join(r.root, "cmd", "nsip-mcp", "server.json"))
	if err != nil {
		return err
	}
	entry, err := registryEntry(registry, r.version, files)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "server.json"), entry, 0o644)
}

// templateVersion is the version cmd/nsip-mcp/server.json and manifest.json
// carry until a release fills in its own.
const templateVersion = "0.0.0"

// registryEntry fills the release's version into the registry template and
// keeps, of its bundles, those built here, each with the hash of its file:
// the hash is known only now, and a listed bundle without one is refused.
func registryEntry(tmpl []byte, version string, files []string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(tmpl, &doc); err != nil {
		return nil, fmt.Errorf("cmd/nsip-mcp/server.json: %v", err)
	}
	mver := strings.TrimPrefix(version, "v")
	doc["version"] = mver
	built := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, ".mcpb") {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			sum := sha256.Sum256(b)
			built[filepath.Base(f)] = hex.EncodeToString(sum[:])
		}
	}
	pkgs, _ := doc["packages"].([]any)
	var kept []any
	for _, p := range pkgs {
		pkg, _ := p.(map[string]any)
		id, _ := pkg["identifier"].(string)
		switch pkg["registryType"] {
		case "oci":
			pkg["identifier"] = strings.TrimSuffix(id, ":"+templateVersion) + ":" + mver
		case "mcpb":
			id = strings.ReplaceAll(id, "v"+templateVersion, version)
			sum, ok := built[id[strings.LastIndex(id, "/")+1:]]
			if !ok {
				continue
			}
			pkg["identifier"], pkg["fileSha256"] = id, sum
		}
		kept = append(kept, pkg)
	}
	doc["packages"] = kept
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// repoRoot is the module's directory, wherever dist is started from.
func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the nsip-mcp module")
	}
	return filepath.Dir(mod), nil
}

// stamp asks .ci/version for the version, commit and date.
func stamp(root string) (version, commit, date string, err error) {
	cmd := exec.Command("bash", filepath.Join(root, ".ci", "version"))
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", "", "", fmt.Errorf(".ci/version: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for len(lines) < 3 {
		lines = append(lines, "")
	}
	return lines[0], lines[1], lines[2], nil
}

// clean removes what an earlier run left in out, and nothing else.
func clean(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(out, "nsip-mcp-*"))
	if err != nil {
		return err
	}
	for _, f := range append(old, filepath.Join(out, "SHA256SUMS"), filepath.Join(out, "server.json")) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// bundleManifest fills the version, the one platform the bundle's binary
// runs on and the binary's path into the manifest template.
func bundleManifest(tmpl []byte, version, platform, entry string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(tmpl, &m); err != nil {
		return nil, fmt.Errorf("cmd/nsip-mcp/manifest.json: %v", err)
	}
	m["version"] = version
	m["compatibility"] = map[string]any{"platforms": []string{platform}}
	server, _ := m["server"].(map[string]any)
	cfg, _ := server["mcp_config"].(map[string]any)
	if server == nil || cfg == nil {
		return nil, errors.New("cmd/nsip-mcp/manifest.json: no server.mcp_config")
	}
	server["entry_point"] = entry
	cfg["command"] = "${__dirname}/" + entry
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeBundle zips the manifest, the binary (executable) and the licence.
func writeBundle(path string, modified time.Time, manifest []byte, bin, entry string, license []byte) error {
	binary, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, e := range []struct {
		name string
		mode os.FileMode
		body []byte
	}{
		{"manifest.json", 0o644, manifest},
		{entry, 0o755, binary},
		{"LICENSE", 0o644, license},
	} {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: modified}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err == nil {
			_, err = w.Write(e.body)
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSums writes "<sha256>  <name>" for each file, sorted by name.
func writeSums(path string, files []string) error {
	slices.Sort(files)
	var b strings.Builder
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), filepath.Base(name))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
