package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runPinned runs make release-check's pin check on root and returns its
// exit status, what it printed on stdout (one break a line) and on stderr.
func runPinned(t *testing.T, root string) (int, []string, string) {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".ci/pinned.go", "-root", abs)
	cmd.Dir = repoRoot
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("go run .ci/pinned.go: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if out.Len() == 0 {
		lines = nil
	}
	return cmd.ProcessState.ExitCode(), lines, errb.String()
}

// badWorkflow breaks every rule once, beside entries that keep them: a
// step's own token, a pinned action with its version, a local action and
// a run script that only mentions uses: in its text.
const badWorkflow = `name: bad
on: push
env:
  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
  LEVEL: info
jobs:
  release:
    runs-on: ubuntu-24.04
    container:
      image: golang:1.26
    services:
      redis:
        image: redis@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
    permissions:
      contents: write
    env:
      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
      GH_TOKEN: "${{ github.token }}"
      TAG: ${{ github.ref_name }}
    steps:
      - uses: actions/checkout@v4
      - uses: "actions/setup-go@main" # a branch
      - uses: docker/login-action@c94ce9f
      - uses: docker/build-push-action@10e90e3645eae34f1e60eeb005ba3a3d33f178e8 # v6.19.2
        with:
          password: ${{ secrets.GITHUB_TOKEN }}
      - uses: ./.github/actions/local
      - uses: docker://alpine:3.20
      - name: Publish
        env:
          GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}
        run: |
          echo "uses: actions/checkout@v4"
          gh release edit "$TAG" --draft=false
  reuse:
    uses: nsip-tools/workflows/.github/workflows/check.yml@v1
`

const badDockerfile = `# syntax=docker/dockerfile:1
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
RUN go build -o /out/nsip-mcp ./cmd/nsip-mcp
FROM build AS test
FROM scratch
COPY --from=build /out/nsip-mcp /nsip-mcp
`

// TestPinCheckFailsOnABadWorkflow: the check fails on an action named by
// tag, branch or short SHA, a reusable workflow by tag, an image by tag
// (container, docker://, FROM, the syntax directive) and a token in a
// workflow's or job's env, naming each line and the fix; a step's own
// token, pinned actions, a local action, scratch, an earlier stage and a
// run script's text pass.
func TestPinCheckFailsOnABadWorkflow(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		".github/workflows/bad.yml":      badWorkflow,
		".github/workflows/other.yml":    "on: push\njobs:\n  a:\n    steps:\n      - uses: actions/cache@v4\n",
		"deploy/Dockerfile":              badDockerfile,
		"deploy/Dockerfile.dockerignore": "FROM golang:1.26\n", // not a Dockerfile
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, got, stderr := runPinned(t, root)
	const pin = "names a tag or branch, which can be moved to other code: pin the full commit SHA of the release and name the version in a comment"
	const fix = "to every step: give it only to the steps that need it, in their own env: or with:"
	const digest = "which can be moved to another image: name it by digest"
	want := []string{
		".github/workflows/bad.yml:4: the workflow's env gives NPM_TOKEN = ${{ secrets.NPM_TOKEN }} " + fix,
		".github/workflows/bad.yml:10: image golang:1.26 is named by tag, " + digest + " (image@sha256:<64 hex>)",
		".github/workflows/bad.yml:17: job release's env gives GITHUB_TOKEN = ${{ secrets.GITHUB_TOKEN }} " + fix,
		".github/workflows/bad.yml:18: job release's env gives GH_TOKEN = ${{ github.token }} " + fix,
		".github/workflows/bad.yml:21: uses: actions/checkout@v4 " + pin + " (actions/checkout@<40 hex> # v1.2.3)",
		".github/workflows/bad.yml:22: uses: actions/setup-go@main " + pin + " (actions/setup-go@<40 hex> # v1.2.3)",
		".github/workflows/bad.yml:23: uses: docker/login-action@c94ce9f " + pin + " (docker/login-action@<40 hex> # v1.2.3)",
		".github/workflows/bad.yml:28: uses: docker://alpine:3.20 names an image by tag, " + digest + " (docker://image@sha256:<64 hex>)",
		".github/workflows/bad.yml:36: uses: nsip-tools/workflows/.github/workflows/check.yml@v1 " + pin + " (nsip-tools/workflows/.github/workflows/check.yml@<40 hex> # v1.2.3)",
		".github/workflows/other.yml:5: uses: actions/cache@v4 " + pin + " (actions/cache@<40 hex> # v1.2.3)",
		"deploy/Dockerfile:1: the syntax directive names frontend image docker/dockerfile:1 by tag: name it by digest (image@sha256:<64 hex>) or remove it",
		"deploy/Dockerfile:2: FROM golang:1.26 names its base by tag, " + digest + " (image@sha256:<64 hex>), or copy a prebuilt binary onto scratch",
	}
	if code != 1 || !slices.Equal(got, want) {
		t.Errorf("exit %d, printed:\n%s\nwant exit 1 and:\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(stderr, "pinned: 12 problems in 2 workflows, 1 Dockerfiles") {
		t.Errorf("stderr %q, want the count of problems and files", stderr)
	}
}

// TestPinCheckPassesTheRelease: the repository's own workflows and
// Dockerfile pass, as make release-check requires.
func TestPinCheckPassesTheRelease(t *testing.T) {
	code, got, stderr := runPinned(t, repoRoot)
	if code != 0 || len(got) != 0 || !strings.Contains(stderr, "every action pinned by commit, every image by digest, no job-wide token") {
		t.Errorf("exit %d, printed %q, stderr %q; want exit 0 and nothing wrong", code, got, stderr)
	}
}

// TestPinCheckFindsNoWorkflows: a root without workflows is an error, not
// a pass, so that a wrong -root cannot hide the release.
func TestPinCheckFindsNoWorkflows(t *testing.T) {
	code, got, stderr := runPinned(t, t.TempDir())
	if code != 1 || len(got) != 0 || !strings.Contains(stderr, "pinned: no workflows under ") {
		t.Errorf("exit %d, printed %q, stderr %q; want exit 1 saying there are no workflows", code, got, stderr)
	}
}
