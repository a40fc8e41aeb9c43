package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// registryEntry is server.json, the MCP Registry's description of the
// server and where its packages are.
type registryEntry struct {
	Schema      string `json:"$schema"`
	Name        string
	Description string
	Version     string
	Repository  struct{ URL, Source string }
	Packages    []struct {
		RegistryType string
		Identifier   string
		FileSha256   string
		Transport    struct{ Type string }
		Environment  []struct {
			Name, Default, Format string
			Choices               []string
		} `json:"environmentVariables"`
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestRegistryEntryMatchesTheBundle keeps server.json in step with the
// bundle's manifest, make dist's file names and the image: same name and
// version, one image, one bundle per release target, and only settings the
// server reads, with defaults it accepts.
func TestRegistryEntryMatchesTheBundle(t *testing.T) {
	var e registryEntry
	readJSONFile(t, "server.json", &e)
	var m struct {
		Name, Version string
		Repository    struct{ URL string }
	}
	readJSONFile(t, "manifest.json", &m)

	owner := strings.TrimPrefix(m.Repository.URL, "https://github.com/")
	owner, _, _ = strings.Cut(owner, "/")
	if want := "io.github." + owner + "/" + m.Name; e.Name != want {
		t.Errorf("server.json name %q, want %q (the manifest's name under its GitHub owner)", e.Name, want)
	}
	if e.Version != m.Version || e.Repository.URL != m.Repository.URL || e.Repository.Source != "github" {
		t.Errorf("server.json version %q, repository %+v; the manifest has %q, %s", e.Version, e.Repository, m.Version, m.Repository.URL)
	}
	if !strings.HasSuffix(e.Schema, "/server.schema.json") || len(e.Description) == 0 || len(e.Description) > 100 {
		t.Errorf("server.json $schema %q, description of %d characters; want the registry schema and 1 to 100", e.Schema, len(e.Description))
	}

	// The release targets, as make dist builds them.
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	tm := regexp.MustCompile(`(?m)^TARGETS \?= (\S+)$`).FindSubmatch(mk)
	if tm == nil {
		t.Fatal("no TARGETS ?= line in the Makefile")
	}
	var want []string
	for _, target := range strings.Split(string(tm[1]), ",") {
		goos, goarch, _ := strings.Cut(target, "/")
		want = append(want, fmt.Sprintf("https://github.com/%s/%s/releases/download/v%s/nsip-mcp-v%[3]s-%s-%s.mcpb", owner, m.Name, e.Version, goos, goarch))
	}
	var bundles, images []string
	hash := regexp.MustCompile(`^[a-f0-9]{64}$`)
	for _, p := range e.Packages {
		if p.Transport.Type != "stdio" {
			t.Errorf("package %s: transport %q, want stdio", p.Identifier, p.Transport.Type)
		}
		switch p.RegistryType {
		case "mcpb":
			bundles = append(bundles, p.Identifier)
			if !hash.MatchString(p.FileSha256) {
				t.Errorf("bundle %s: fileSha256 %q is not 64 hex digits", p.Identifier, p.FileSha256)
			}
		case "oci":
			images = append(images, p.Identifier)
		default:
			t.Errorf("package %s: registryType %q, want oci or mcpb", p.Identifier, p.RegistryType)
		}
		for _, v := range p.Environment {
			if !slices.ContainsFunc(settings, func(s setting) bool { return s.name == v.Name }) {
				t.Errorf("package %s sets %s, which nsip-mcp does not read", p.Identifier, v.Name)
			}
			for _, value := range append([]string{v.Default}, v.Choices...) {
				if _, err := Load(env(map[string]string{v.Name: value})); err != nil {
					t.Errorf("package %s offers %s=%s, which is refused: %v", p.Identifier, v.Name, value, err)
				}
			}
		}
	}
	if !slices.Equal(bundles, want) {
		t.Errorf("server.json lists bundles\n%v\nwant make dist's\n%v", bundles, want)
	}
	if len(images) != 1 || !strings.HasSuffix(images[0], "/"+owner+"/"+m.Name+":"+e.Version) {
		t.Errorf("server.json lists images %v, want one tagged %s", images, e.Version)
	}

	// The registry checks an image's ownership by this label.
	df, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if label := `LABEL io.modelcontextprotocol.server.name="` + e.Name + `"`; !strings.Contains(string(df), label) {
		t.Errorf("the Dockerfile lacks %s", label)
	}
}
