//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
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
	Violations     []axeViolation          `json:"violations"`
	Judged         []string                `json:"judged"`
	Keyboard       map[string]keyboardWalk `json:"keyboard"`
	SearchKeyboard *struct {
		keyboardWalk
		Controls int `json:"controls"`
	} `json:"searchKeyboard"`
	ScreenViolations []axeViolation `json:"screenViolations"`
	ScreensJudged    []string       `json:"screensJudged"`
	ConnectedVia     string         `json:"connectedVia"`
	Breeds           int            `json:"breeds"`
	Expected         struct {
		Ancestors, Bars, Breeds int
		FirstBreed              string `json:"firstBreed"`
		Search                  struct {
			Rows  []webAppRow `json:"rows"`
			Total int         `json:"total"`
		} `json:"search"`
		Contact struct{ Farm, Phone, Email string } `json:"contact"`
		EBVs    map[string]struct {
			Value float64  `json:"value"`
			Top   *float64 `json:"top"`
		} `json:"ebvs"`
		Indexes map[string]float64 `json:"indexes"`
		Ranked  []struct {
			LPN    string              `json:"lpn"`
			Value  float64             `json:"value"`
			Values map[string]*float64 `json:"values"`
		} `json:"ranked"`
	} `json:"expected"`
	Walks         []webAppWalk                  `json:"walks"`
	Cards         []struct{ Tool, View string } `json:"cards"`
	Requests      []string                      `json:"requests"`
	Refused       []string                      `json:"refused"`
	WebSockets    []string                      `json:"websockets"`
	PageErrors    []string                      `json:"pageErrors"`
	ConsoleErrors []string                      `json:"consoleErrors"`
	Fatal         string                        `json:"fatal"`
}

// webAppRow is one animal of a search, as the server answered it or as
// the app's table shows it.
type webAppRow struct {
	LPN    string              `json:"lpn"`
	Status string              `json:"status"`
	Born   string              `json:"born"`
	Values map[string]*float64 `json:"values"`
	Adds   []string            `json:"adds"`
}

// webAppFocus is where the focus was after an action.
type webAppFocus struct {
	OnHeading bool   `json:"onHeading"`
	InView    bool   `json:"inView"`
	Top       *int   `json:"top"`
	Active    string `json:"active"`
}

// webAppWalk is one way through the app, at one width and theme.
type webAppWalk struct {
	Name          string                 `json:"name"`
	DefaultBreed  string                 `json:"defaultBreed"`
	BreedsSorted  bool                   `json:"breedsSorted"`
	Remembered    string                 `json:"remembered"`
	DefaultStatus string                 `json:"defaultStatus"`
	Listed        []webAppRow            `json:"listed"`
	SortHeader    string                 `json:"sortHeader"`
	Focus         map[string]webAppFocus `json:"focus"`
	Animal        struct {
		ContactVisible bool     `json:"contactVisible"`
		Contact        []string `json:"contact"`
		Indexes        string   `json:"indexes"`
		WWT            string   `json:"wwt"`
		WWTPct         string   `json:"wwtPct"`
		EBVRows        int      `json:"ebvRows"`
		Ancestors      int      `json:"ancestors"`
		Subject        string   `json:"subject"`
		ViewErrors     []string `json:"viewErrors"`
		Sandbox        string   `json:"sandbox"`
		Views          []string `json:"views"`
	} `json:"animal"`
	Plan struct {
		Rams, Ewes []webAppRow
		Picked     struct{ Rams, Ewes []string }
		Count      string   `json:"count"`
		Cells      int      `json:"cells"`
		Planned    int      `json:"planned"`
		ViewErrors []string `json:"viewErrors"`
	} `json:"plan"`
	More *struct {
		Listed  []string `json:"listed"`
		Focused string   `json:"focused"`
	} `json:"more"`
	Index *struct {
		Sort  string      `json:"sort"`
		Tool  string      `json:"tool"`
		Rows  []webAppRow `json:"rows"`
		Focus webAppFocus `json:"focus"`
	} `json:"index"`
	Compare *struct {
		Compared []string    `json:"compared"`
		Bars     int         `json:"bars"`
		Focus    webAppFocus `json:"focus"`
	} `json:"compare"`
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
// the real binary (websocket transport, MCP_WEB_APP=on) and the stand-in,
// and walks it as a breeder would, at a desktop's width (1280 px, light)
// and a phone's (390 px, dark). The first screen connects over /ws and
// offers the breeds of nsip_list_breeds in alphabetical order, starting at
// the first and, once one is chosen, at that one; axe-core finds no serious
// or critical WCAG 2.2 A or AA violation in it (light and dark, 1280 and
// 360 px) and Tab reaches every control with a visible focus ring. The
// search of the example ram's breed and flock lists usable (CURRENT)
// animals by default, sorted by WWT highest first, in NSIP's order, with
// the values the server answers and the birth year from the ID. The
// subject's page shows its breeder's contact, its indexes, its EBVs with
// breed percentiles in the EBV view and its pedigree in the pedigree view,
// one box per ancestor. Searches of the flock's rams and ewes of any
// status offer "+ ram" and "+ ewe" only on animals that can be mated, and
// the plan of those picked has one matrix cell per ram and ewe. After each
// action the new card's heading has the focus and is within the window,
// and axe finds nothing serious on that screen in light or dark. No
// request leaves for a host other than the server's.
// NSIP_WEBAPP_SHOTS=DIR also saves screenshots of each screen.
func TestWebAppReachesAPedigree(t *testing.T) {
	watchdog(t, 3*testLimit)
	node, chromium := needBrowserOnly(t)
	needWebAppDeps(t)
	s := startServer(t, "websocket", "MCP_WEB_APP=on")
	// The animal with the deepest pedigree among the first page of the
	// example ram's flock as the app searches it by default: usable
	// animals, by WWT.
	d := s.Stub.Data()
	ex, ok := d.Animal(nsiptest.ExampleRam)
	if !ok {
		t.Fatalf("the stand-in has no %s", nsiptest.ExampleRam)
	}
	usable := nsiptest.Criteria{FlockID: ex.FlockCode, Status: "CURRENT"}
	listed, err := d.Search(ex.BreedID, usable, "WWT", false)
	if err != nil || len(listed) == 0 {
		t.Fatalf("flock %s: %d animals (%v)", ex.FlockCode, len(listed), err)
	}
	all := listed
	listed = listed[:min(15, len(listed))]
	deepest := listed[0]
	for _, id := range listed {
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
		if len(k.Stops) < 7 {
			t.Errorf("%s: Tab reached %+v on the first screen, want its theme button, breed, status, sex, sort, EBVs, flock and Search at least", where, k.Stops)
		}
	}
	if k := rep.SearchKeyboard; k == nil || k.Controls < 15 || len(k.Stops) != k.Controls {
		t.Errorf("Tab from the search's heading: %+v, want each of its controls once", k)
	} else {
		checkKeyboard(t, "the search's card", keyboardWalk{Stops: k.Stops, Reachable: k.Controls})
	}
	if len(rep.ScreensJudged) != 18 {
		t.Errorf("axe judged %q, want search, animal and plan, light and dark, at both widths and at 360 px", rep.ScreensJudged)
	}
	for _, v := range rep.ScreenViolations {
		msg := fmt.Sprintf("axe, %s: %s (%s) %s: %q", v.Where, v.Rule, v.Impact, v.Help, v.Targets)
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	if rep.ConnectedVia != "WebSocket" || len(rep.WebSockets) == 0 || rep.WebSockets[0] != "ws"+strings.TrimPrefix(s.BaseURL, "http")+"/ws" {
		t.Errorf("connected via %q, WebSockets %v; want the server's /ws", rep.ConnectedVia, rep.WebSockets)
	}
	if rep.Expected.Breeds < 2 || rep.Breeds != rep.Expected.Breeds {
		t.Errorf("%d choices in the breed list, want the %d breeds of nsip_list_breeds and nothing else", rep.Breeds, rep.Expected.Breeds)
	}
	if len(rep.Walks) != 2 {
		t.Fatalf("walked %d ways, want desktop and phone", len(rep.Walks))
	}
	for _, w := range rep.Walks {
		checkWebAppWalk(t, d, &rep, w, listed, ram)
	}
	checkWebAppDesktop(t, &rep, rep.Walks[0], all)
	if c := rep.Walks[0].Compare; c == nil || rep.Expected.Bars == 0 || c.Bars != rep.Expected.Bars || !c.Focus.OnHeading || !c.Focus.InView {
		t.Errorf("comparison %+v, want %d EBV bars and its heading focused in view", c, rep.Expected.Bars)
	}
	t.Logf("via %s: %d breeds; listed %d of %d; pedigree %d ancestor boxes; plan %d cells, %d mated; %d requests",
		rep.ConnectedVia, rep.Breeds, len(rep.Walks[0].Listed), rep.Expected.Search.Total, rep.Walks[0].Animal.Ancestors, rep.Walks[0].Plan.Cells, rep.Walks[0].Plan.Planned, len(rep.Requests))
	for _, u := range rep.Requests {
		if !strings.HasPrefix(u, s.BaseURL+"/") {
			t.Errorf("a request left for elsewhere: %s", u)
		}
	}
	if len(rep.Refused) > 0 || len(rep.PageErrors) > 0 || len(rep.ConsoleErrors) > 0 {
		t.Errorf("refused %v, page errors %v, console errors %v", rep.Refused, rep.PageErrors, rep.ConsoleErrors)
	}
}

// checkWebAppWalk judges one walk through the app against the server's
// answers and the stand-in's data.
func checkWebAppWalk(t *testing.T, d *nsiptest.Dataset, rep *webAppReport, w webAppWalk, listed []string, ram nsiptest.Animal) {
	t.Helper()
	e := rep.Expected
	if w.DefaultBreed != e.FirstBreed || !w.BreedsSorted {
		t.Errorf("%s: the breed picker starts at %q (sorted %v), want the first alphabetically, %q", w.Name, w.DefaultBreed, w.BreedsSorted, e.FirstBreed)
	}
	if w.Remembered != strconv.Itoa(ram.BreedID) || w.DefaultStatus != "CURRENT" {
		t.Errorf("%s: after a reload the picker is at breed %q and status %q, want the breed chosen, %d, and CURRENT", w.Name, w.Remembered, w.DefaultStatus, ram.BreedID)
	}
	// The search: NSIP's order of usable animals by WWT, the server's
	// values, the birth year from the ID.
	var got []string
	for _, r := range w.Listed {
		got = append(got, r.LPN)
	}
	if !slices.Equal(got, listed) {
		t.Errorf("%s: the search listed %v, want %v", w.Name, got, listed)
	}
	if w.SortHeader != "WWT" {
		t.Errorf("%s: the table says it is sorted by %q, want WWT", w.Name, w.SortHeader)
	}
	want := map[string]webAppRow{}
	for _, r := range e.Search.Rows {
		want[r.LPN] = r
	}
	last := math.Inf(1)
	for _, r := range w.Listed {
		a, _ := d.Animal(r.LPN)
		if r.Status != "CURRENT" || a.Status != "CURRENT" || r.Born != r.LPN[6:10] {
			t.Errorf("%s: row %s shows status %q (NSIP %q), born %q; want CURRENT and the ID's year", w.Name, r.LPN, r.Status, a.Status, r.Born)
		}
		for _, code := range []string{"WWT", "BWT", "PWWT"} {
			g, x := r.Values[code], want[r.LPN].Values[code]
			if (g == nil) != (x == nil) || g != nil && math.Abs(*g-*x) > 0.0005 {
				t.Errorf("%s: row %s shows %s %v, the server answered %v", w.Name, r.LPN, code, deref(g), deref(x))
			}
		}
		if v := r.Values["WWT"]; v != nil {
			if *v > last {
				t.Errorf("%s: row %s has WWT %v after %v: not highest first", w.Name, r.LPN, *v, last)
			}
			last = *v
		}
	}
	for _, step := range []string{"search", "animal", "plan"} {
		if f := w.Focus[step]; !f.OnHeading || !f.InView {
			t.Errorf("%s: after the %s the focus is on %q (the new card's heading: %v), its heading at %v in view: %v", w.Name, step, f.Active, f.OnHeading, deref(f.Top), f.InView)
		}
	}
	// The animal's page.
	an := w.Animal
	c := e.Contact
	if !an.ContactVisible || !slices.Contains(an.Contact, c.Farm) || !slices.Contains(an.Contact, c.Phone) || !slices.Contains(an.Contact, c.Email) {
		t.Errorf("%s: the breeder shown (visible %v) is %q, want farm %q, phone %q, email %q", w.Name, an.ContactVisible, an.Contact, c.Farm, c.Phone, c.Email)
	}
	for name := range e.Indexes {
		if !strings.Contains(an.Indexes, name) {
			t.Errorf("%s: the indexes shown %q lack %s", w.Name, an.Indexes, name)
		}
	}
	wwt := e.EBVs["WWT"]
	if v, err := strconv.ParseFloat(an.WWT, 64); err != nil || math.Abs(v-wwt.Value) > 0.0005 || wwt.Top == nil ||
		!strings.Contains(an.WWTPct, strconv.FormatFloat(math.Round(*wwt.Top*10)/10, 'f', -1, 64)+"%") || an.EBVRows != len(e.EBVs) {
		t.Errorf("%s: the EBV view shows WWT %q, %q and %d EBVs; the server answered %v, top %v%% of %d", w.Name, an.WWT, an.WWTPct, an.EBVRows, wwt.Value, deref(wwt.Top), len(e.EBVs))
	}
	if e.Ancestors < 2 || an.Ancestors != e.Ancestors || !strings.HasPrefix(an.Subject, ram.LPNID) {
		t.Errorf("%s: the chart has %d ancestor boxes and subject %q, the lineage %d ancestors of %s", w.Name, an.Ancestors, an.Subject, e.Ancestors, ram.LPNID)
	}
	if views := slices.Sorted(slices.Values(an.Views)); !slices.Equal(views, []string{"ui://nsip/ebvs", "ui://nsip/pedigree"}) || an.Sandbox != "allow-scripts" || len(an.ViewErrors) > 0 {
		t.Errorf("%s: the animal's page shows views %v (sandbox %q, errors %v), want the EBV and pedigree views", w.Name, views, an.Sandbox, an.ViewErrors)
	}
	// The plan: "+ ram" and "+ ewe" only on animals that can be mated.
	p := w.Plan
	for _, rows := range []struct {
		sex, add, other string
		rows            []webAppRow
	}{{"Male", "rams", "ewes", p.Rams}, {"Female", "ewes", "rams", p.Ewes}} {
		if len(rows.rows) == 0 {
			t.Errorf("%s: the search of %s listed no animals", w.Name, rows.add)
		}
		for _, r := range rows.rows {
			a, _ := d.Animal(r.LPN)
			mateable := r.Status != "DEAD" && r.Status != "CULL"
			if a.Gender != rows.sex || a.Status != r.Status || slices.Contains(r.Adds, rows.add) != mateable || slices.Contains(r.Adds, rows.other) {
				t.Errorf("%s: %s (%s, %s) offers %v in the search of %s", w.Name, r.LPN, a.Gender, r.Status, r.Adds, rows.add)
			}
		}
	}
	if len(p.Picked.Rams) == 0 || len(p.Picked.Ewes) == 0 || p.Cells != len(p.Picked.Rams)*len(p.Picked.Ewes) || len(p.ViewErrors) > 0 {
		t.Errorf("%s: the plan of %v × %v has %d matrix cells (view errors %v), want one per pair", w.Name, p.Picked.Rams, p.Picked.Ewes, p.Cells, p.ViewErrors)
	}
	if !strings.Contains(p.Count, strconv.Itoa(len(p.Picked.Rams))+" ram") || !strings.Contains(p.Count, strconv.Itoa(len(p.Picked.Ewes))+" ewe") {
		t.Errorf("%s: the plan's heading counts %q, picked %d rams and %d ewes", w.Name, p.Count, len(p.Picked.Rams), len(p.Picked.Ewes))
	}
}

// checkWebAppDesktop judges what the desktop walk does beyond the phone's:
// the search's next page and a ranking by an index.
func checkWebAppDesktop(t *testing.T, rep *webAppReport, w webAppWalk, all []string) {
	t.Helper()
	if len(all) > 15 {
		want := all[:min(30, len(all))]
		if w.More == nil || !slices.Equal(w.More.Listed, want) || w.More.Focused != want[15] {
			t.Errorf("More animals: %+v, want %v with the focus on %s", w.More, want, want[15])
		}
	}
	ix := w.Index
	if ix == nil || ix.Tool != "nsip_rank_animals" || len(ix.Rows) == 0 || len(ix.Rows) != len(rep.Expected.Ranked) || !ix.Focus.OnHeading || !ix.Focus.InView {
		t.Fatalf("the ranking by an index: %+v, want nsip_rank_animals's %d animals with its heading focused in view", ix, len(rep.Expected.Ranked))
	}
	for i, r := range ix.Rows {
		x := rep.Expected.Ranked[i]
		if v := r.Values["index"]; r.LPN != x.LPN || v == nil || math.Abs(*v-x.Value) > 0.0005 || r.Status != "CURRENT" {
			t.Errorf("ranked by %s, row %d is %s (%v, %s), the server ranked %s (%v)", ix.Sort, i+1, r.LPN, deref(v), r.Status, x.LPN, x.Value)
		}
		for _, code := range []string{"BWT", "PWWT"} {
			g, want := r.Values[code], x.Values[code]
			if want == nil || g == nil || math.Abs(*g-*want) > 0.0005 {
				t.Errorf("ranked by %s, %s shows %s %v, the server's comparison %v", ix.Sort, r.LPN, code, deref(g), deref(want))
			}
		}
	}
	if w.Plan.Planned == 0 {
		t.Errorf("the plan of %v × %v mated no pair", w.Plan.Picked.Rams, w.Plan.Picked.Ewes)
	}
}

// deref is what p points at, or nil, for a message.
func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
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
