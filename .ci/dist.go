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
	flag.Parse()
	if err := run(*out, strings.Split(*targets, ","), *version, *commit, *date); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(out string, targets []string, version, commit, date string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if version == "" {
		if version, commit, date, err = stamp(root); err != nil {
			return err
		}
	}
	mver := strings.TrimPrefix(version, "v")
	if !semver.MatchString(mver) {
		return fmt.Errorf("version %q is not v<semver> (e.g. v1.2.3), which the bundle's manifest needs; set VERSION", version)
	}
	modified := time.Now().UTC()
	if date != "" {
		if modified, err = time.Parse(time.RFC3339, date); err != nil {
			return fmt.Errorf("date %q is not RFC 3339: %v", date, err)
		}
	}
	manifest, err := os.ReadFile(filepath.Join(root, "cmd", "nsip-mcp", "manifest.json"))
	if err != nil {
		return err
	}
	registry, err := os.ReadFile(filepath.Join(root, "cmd", "nsip-mcp", "server.json"))
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return err
	}
	if err := clean(out); err != nil {
		return err
	}
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s -X main.date=%s", version, commit, date)
	var files []string
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok || mcpbPlatform[goos] == "" || goarch == "" {
			return fmt.Errorf("target %q: want GOOS/GOARCH with GOOS linux, darwin or windows", t)
		}
		exe := ""
		if goos == "windows" {
			exe = ".exe"
		}
		base := fmt.Sprintf("nsip-mcp-%s-%s-%s", version, goos, goarch)
		bin := filepath.Join(out, base+exe)
		fmt.Fprintf(os.Stderr, "dist: %s\n", bin)
		build := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/nsip-mcp")
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building %s: %v", t, err)
		}
		m, err := bundleManifest(manifest, mver, mcpbPlatform[goos], "server/nsip-mcp"+exe)
		if err != nil {
			return err
		}
		bundle := filepath.Join(out, base+".mcpb")
		if err := writeBundle(bundle, modified, m, bin, "server/nsip-mcp"+exe, license); err != nil {
			return fmt.Errorf("bundle %s: %v", bundle, err)
		}
		files = append(files, bin, bundle)
	}
	if err := writeSums(filepath.Join(out, "SHA256SUMS"), files); err != nil {
		return err
	}
	entry, err := registryEntry(registry, version, files)
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
