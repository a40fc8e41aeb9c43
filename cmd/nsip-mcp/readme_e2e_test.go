//go:build e2e

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEndToEndReadmeWebSocketExample runs the README's WebSocket program as
// written, but for the address of a test server, with node from PATH and
// with every further Node binary listed in NSIP_E2E_NODES (space-separated,
// e.g. a Node 22 beside the system's Node 20): Node 20 has no global
// WebSocket, Node 22 has its own, and the example must work on both.
func TestEndToEndReadmeWebSocketExample(t *testing.T) {
	watchdog(t, testLimit)
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var program string
	for _, m := range regexp.MustCompile("(?s)```js\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(m[1], "WebSocketClientTransport") {
			program = m[1]
		}
	}
	// The README names the file: Node reads import and top-level await
	// only in a module, which .mjs says it is.
	name := regexp.MustCompile("Save it as `([a-z-]+\\.mjs)`").FindStringSubmatch(string(readme))
	if name == nil {
		t.Fatal("README.md does not say to save the WebSocket example as a .mjs file")
	}
	const readmeURL = "ws://127.0.0.1:8000/ws"
	if program == "" || !strings.Contains(program, readmeURL) || !strings.Contains(program, readmeExampleLPN) {
		t.Fatalf("README.md has no js block with the WebSocket example for %s at %s", readmeExampleLPN, readmeURL)
	}

	srv := startServer(t, "websocket")
	lpn := readmeExampleLPN
	if _, ok := srv.Stub.Data().Animal(lpn); !ok {
		// The stand-in's data may not carry the README's animal yet.
		lpn = srv.Stub.Data().DeepPedigree()
		t.Logf("the stand-in has no %s; asking for %s instead", readmeExampleLPN, lpn)
	}
	program = strings.ReplaceAll(program, readmeURL, "ws"+strings.TrimPrefix(srv.BaseURL, "http")+"/ws")
	program = strings.ReplaceAll(program, readmeExampleLPN, lpn)

	// The jsclient's pinned SDK and ws stand in for the reader's npm install.
	dir := t.TempDir()
	modules, err := filepath.Abs(filepath.Join(repoRoot, "transport", "testdata", "jsclient", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "ws")); err != nil {
		t.Fatalf("the TypeScript client's packages are missing (%v): run `cd transport/testdata/jsclient && npm ci`", err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, name[1])
	if err := os.WriteFile(script, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}

	nodes := strings.Fields(os.Getenv("NSIP_E2E_NODES"))
	if node, err := exec.LookPath("node"); err == nil {
		nodes = append([]string{node}, nodes...)
	}
	if len(nodes) == 0 {
		t.Fatal("node not found on PATH: install Node.js 20 or newer")
	}
	for _, node := range nodes {
		version, err := exec.Command(node, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", node, err)
		}
		t.Run(strings.TrimSpace(string(version)), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node %s: %v\n%s\nserver log:\n%s", version, err, out, srv.Stderr())
			}
			// console.log of the parsed answer: the animal's record, not an error.
			if !strings.Contains(string(out), lpn) || strings.Contains(string(out), "error:") {
				t.Errorf("the example printed no record of %s:\n%s", lpn, out)
			}
		})
	}
}
