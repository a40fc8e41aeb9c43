//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// webAppDir is the npm project the web app is built from and driven by.
var webAppDir = filepath.Join("..", "..", "gateway", "views")

// webAppReport is what gateway/views/test/webapp.mjs saw.
type webAppReport struct {
	Violations   []axeViolation                               `json:"violations"`
	Judged       []string                                     `json:"judged"`
	Keyboard     map[string]keyboardWalk                      `json:"keyboard"`
	ConnectedVia string                                       `json:"connectedVia"`
	Breeds       int                                          `json:"breeds"`
	Listed       []string                                     `json:"listed"`
	Cards        []struct{ Tool, View string }                `json:"cards"`
	Expected     struct{ Ancestors, Bars, Cells, Breeds int } `json:"expected"`
	Seen         struct {
		Ancestors    int     `json:"ancestors"`
		Subjects     int     `json:"subjects"`
		SubjectText  string  `json:"subjectText"`
		Errors       string  `json:"errors"`
		Sandbox      string  `json:"sandbox"`
		Height       float64 `json:"height"`
		ViewRequests string  `json:"viewRequests"`
		Compared     []string
		Bars, Cells  int
		ViewErrors   []string
	} `json:"seen"`
	Requests      []string `json:"requests"`
	Refused       []string `json:"refused"`
	WebSockets    []string `json:"websockets"`
	PageErrors    []string `json:"pageErrors"`
	ConsoleErrors []string `json:"consoleErrors"`
	Fatal         string   `json:"fatal"`
}

// needWebAppDeps fails unless the views project has its pinned packages
// installed, so that a stale install is reported rather than tested.
func needWebAppDeps(t *testing.T) {
	t.Helper()
	var pkg struct {
		Dependencies, DevDependencies map[string]string
	}
	readJSON(t, filepath.Join(webAppDir, "package.json"), &pkg)
	for _, name := range []string{"@modelcontextprotocol/client", "playwright-core"} {
		want := pkg.Dependencies[name] + pkg.DevDependencies[name]
		var got struct{ Version string }
		b, err := os.ReadFile(filepath.Join(webAppDir, "node_modules", name, "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil || got.Version != want {
			t.Fatalf("%s %s is not installed (found %q): run `make views`", name, want, got.Version)
		}
	}
}

// TestWebAppReachesAPedigree opens the web app in headless Chromium against
// the real binary (websocket transport, MCP_WEB_APP=on) and the stand-in:
// it connects over /ws, lists the breeds (a first screen in which axe-core
// finds no serious or critical WCAG 2.2 A or AA violation, light and dark,
// at 1200 and 360 px, and where Tab reaches every control with a visible
// focus ring), searches the example ram's breed
// and flock, opens an animal of the first page from the list and shows its
// pedigree in the pedigree view, hosted through AppBridge, with one box per
// ancestor of its lineage. Then it searches the flock's rams and ewes,
// compares the rams and plans their matings: one EBV bar per value of the comparison, one matrix cell per
// ram and ewe. No request leaves for a host other than the server's.
// NSIP_WEBAPP_SHOTS=DIR also saves the screenshots (desktop, phone).
func TestWebAppReachesAPedigree(t *testing.T) {
	watchdog(t, 3*testLimit)
	node, chromium := needBrowserOnly(t)
	needWebAppDeps(t)
	s := startServer(t, "websocket", "MCP_WEB_APP=on")
	// The animal of the example ram's flock with the deepest pedigree on
	// the search's first page (the web app lists 15 in NSIP's order).
	d := s.Stub.Data()
	ex, ok := d.Animal(nsiptest.ExampleRam)
	if !ok {
		t.Fatalf("the stand-in has no %s", nsiptest.ExampleRam)
	}
	listed, err := d.Search(ex.BreedID, nsiptest.Criteria{FlockID: ex.FlockCode}, "", false)
	if err != nil || len(listed) == 0 {
		t.Fatalf("flock %s: %d animals (%v)", ex.FlockCode, len(listed), err)
	}
	deepest := listed[0]
	for _, id := range listed[:min(15, len(listed))] {
		if d.PedigreeDepth(id) > d.PedigreeDepth(deepest) {
			deepest = id
		}
	}
	ram, _ := d.Animal(deepest)
	ctx, cancel := context.WithTimeout(context.Background(), 2*testLimit)
	defer cancel()
	args := []string{"--experimental-websocket", "test/webapp.mjs", s.BaseURL, ram.LPNID, strconv.Itoa(ram.BreedID), ram.FlockCode}
	if dir := os.Getenv("NSIP_WEBAPP_SHOTS"); dir != "" {
		abs, _ := filepath.Abs(dir)
		args = append(args, abs)
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = webAppDir
	cmd.Env = append(os.Environ(), "CHROMIUM_PATH="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var rep webAppReport
	if derr := json.Unmarshal(stdout.Bytes(), &rep); err != nil || derr != nil || rep.Fatal != "" {
		t.Fatalf("node: %v %v %s\nstderr:\n%s\nserver log:\n%s", err, derr, stdout.String(), stderr.String(), s.Stderr())
	}
	checkAccessible(t, rep.Judged, rep.Violations)
	for where, k := range rep.Keyboard {
		checkKeyboard(t, where, k)
		if len(k.Stops) < 5 {
			t.Errorf("%s: Tab reached %+v on the first screen, want its theme button, breed, sex, flock and Search at least", where, k.Stops)
		}
	}
	if rep.ConnectedVia != "WebSocket" || len(rep.WebSockets) == 0 || rep.WebSockets[0] != "ws"+strings.TrimPrefix(s.BaseURL, "http")+"/ws" {
		t.Errorf("connected via %q, WebSockets %v; want the server's /ws", rep.ConnectedVia, rep.WebSockets)
	}
	if rep.Expected.Breeds < 2 || rep.Breeds != rep.Expected.Breeds {
		t.Errorf("%d choices in the breed list, want the %d breeds of nsip_list_breeds and nothing else", rep.Breeds, rep.Expected.Breeds)
	}
	if !slices.Contains(rep.Listed, ram.LPNID) {
		t.Errorf("the search listed %v, without %s", rep.Listed, ram.LPNID)
	}
	if len(rep.Cards) != 1 || rep.Cards[0].Tool != "nsip_search_by_lpn" || rep.Cards[0].View != "ui://nsip/pedigree" {
		t.Errorf("answers shown %+v, want nsip_search_by_lpn in ui://nsip/pedigree", rep.Cards)
	}
	seen := rep.Seen
	if rep.Expected.Ancestors < 2 || seen.Ancestors != rep.Expected.Ancestors {
		t.Errorf("the chart has %d ancestor boxes, the lineage %d ancestors", seen.Ancestors, rep.Expected.Ancestors)
	}
	if seen.Subjects != 1 || !strings.HasPrefix(seen.SubjectText, ram.LPNID) || seen.Errors != "" {
		t.Errorf("subject boxes %d (%q), errors %q", seen.Subjects, seen.SubjectText, seen.Errors)
	}
	if seen.Sandbox != "allow-scripts" || seen.Height < 200 {
		t.Errorf("the view's frame: sandbox %q, height %v; want allow-scripts only and sized to the chart", seen.Sandbox, seen.Height)
	}
	// A profile over the budget has the chart read its generations beyond
	// the compact answer through _meta.full (TestViewsInABrowser sees it);
	// one within the budget, as NSIP's lean answers make most, asks
	// nothing more. Whatever it asks goes through the bridge as a read.
	for _, req := range strings.Fields(seen.ViewRequests) {
		if !strings.HasPrefix(req, "resources/read:nsip://full/") {
			t.Errorf("the pedigree view asked %q through the bridge, want reads of the full answer only", req)
		}
	}
	// The comparison holds the first six rams the app's search by sex
	// listed: NSIP's rows carry no sex, so the app takes it from the search.
	rams, err := d.Search(ex.BreedID, nsiptest.Criteria{FlockID: ex.FlockCode, Gender: "Male"}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen.Compared)
	if want := slices.Sorted(slices.Values(rams[:min(6, len(rams))])); !slices.Equal(seen.Compared, want) {
		t.Errorf("compared %v, want the first rams the search listed %v", seen.Compared, want)
	}
	if rep.Expected.Bars == 0 || seen.Bars != rep.Expected.Bars || rep.Expected.Cells == 0 || seen.Cells != rep.Expected.Cells || len(seen.ViewErrors) > 0 {
		t.Errorf("comparison: %d EBV bars, want %d; mating plan: %d cells, want %d; view errors %v",
			seen.Bars, rep.Expected.Bars, seen.Cells, rep.Expected.Cells, seen.ViewErrors)
	}
	t.Logf("via %s: %d breeds, listed %v; pedigree %d ancestor boxes; comparison %d bars; plan %d cells; %d requests",
		rep.ConnectedVia, rep.Breeds, rep.Listed, seen.Ancestors, seen.Bars, seen.Cells, len(rep.Requests))
	for _, u := range rep.Requests {
		if !strings.HasPrefix(u, s.BaseURL+"/") {
			t.Errorf("a request left for elsewhere: %s", u)
		}
	}
	if len(rep.Refused) > 0 || len(rep.PageErrors) > 0 || len(rep.ConsoleErrors) > 0 {
		t.Errorf("refused %v, page errors %v, console errors %v", rep.Refused, rep.PageErrors, rep.ConsoleErrors)
	}
}

// needBrowserOnly is needBrowser without the jsclient project, which this
// test does not use.
func needBrowserOnly(t *testing.T) (node, chromium string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found on PATH: install Node.js 20 or newer, then run `make views`")
	}
	chromium = os.Getenv("CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium not found at %s: install it with `apt-get install -y chromium` (or point CHROMIUM_PATH at a Chromium binary)", chromium)
	}
	return node, chromium
}
