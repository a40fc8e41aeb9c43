//go:build e2e

package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/views"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// viewsDir is the views' npm project, whose test/views.mjs hosts each view
// in Chromium.
var viewsDir = filepath.Join("..", "..", "gateway", "views")

// viewsLimit bounds the views test: nine tool calls (a plan, percentiles),
// the view's own calls, and a browser.
const viewsLimit = 6 * time.Minute

// viewsReport is what test/views.mjs prints.
type viewsReport struct {
	Tools map[string]struct {
		URI  *string `json:"uri"`
		Flat *string `json:"flat"`
	} `json:"tools"`
	Cases []struct {
		Label        string         `json:"label"`
		Tool         string         `json:"tool"`
		View         string         `json:"view"`
		MIMEType     string         `json:"mimeType"`
		IsError      bool           `json:"isError"`
		Expected     map[string]any `json:"expected"`
		Seen         map[string]any `json:"seen"`
		Error        string         `json:"error"`
		Exception    string         `json:"exception"`
		ViewRequests []string       `json:"viewRequests"`
		Ms           int            `json:"ms"`
		Backgrounds  struct {
			Light string `json:"light"`
			Dark  string `json:"dark"`
		} `json:"backgrounds"`
		NarrowWidth int                     `json:"narrowWidth"`
		Violations  []axeViolation          `json:"violations"`
		Judged      []string                `json:"judged"`
		Keyboard    map[string]keyboardWalk `json:"keyboard"`
		Contrast    map[string]struct {
			N     int      `json:"n"`
			Min   *float64 `json:"min"`
			Worst any      `json:"worst"`
		} `json:"contrast"`
		// For a case pressed (viewCase.Press): what the view showed and
		// called before its button was pressed, and the plan's own NSIP
		// requests.
		Before struct {
			ToolCalls int    `json:"toolCalls"`
			Unknown   int    `json:"unknown"`
			Button    string `json:"button"`
		} `json:"before"`
		PlanFetched   int  `json:"planFetched"`
		PlanTimeLimit bool `json:"planTimeLimit"`
		// What an error answer held, and the sentences the view made of
		// it; elements the answer's text would have made were it HTML.
		ErrorBody struct {
			Error map[string]any `json:"error"`
		} `json:"errorBody"`
		ErrorLines []string `json:"errorLines"`
		Injected   int      `json:"injected"`
		// The view's legends, and the marks it draws that none names.
		Legends      int      `json:"legends"`
		MarksUsed    []string `json:"marksUsed"`
		MarksUnnamed []string `json:"marksUnnamed"`
		// The pedigree at a desktop's frame and a phone's, and the answer's
		// ancestors in each generation.
		AnswerByGen []int `json:"answerByGen"`
		Fit         struct {
			Desktop pedigreeFit `json:"desktop"`
			Phone   pedigreeFit `json:"phone"`
		} `json:"fit"`
	} `json:"cases"`
	// The pedigree view with a made-up lineage deeper than any frame
	// holds at full size, at a desktop's width and a phone's, and once its
	// button has listed every generation.
	DeepPedigree *struct {
		AnswerByGen []int       `json:"answerByGen"`
		Desktop     pedigreeFit `json:"desktop"`
		Phone       pedigreeFit `json:"phone"`
		Listed      pedigreeFit `json:"listed"`
	} `json:"deepPedigree"`
	Requests      []string `json:"requests"`
	PageErrors    []string `json:"pageErrors"`
	ConsoleErrors []string `json:"consoleErrors"`
	Fatal         string   `json:"fatal"`
}

// pedigreeFit is the pedigree as laid out in a frame Width wide: what it
// says it shows, its boxes in each generation (ByGen[1] the parents), the
// elements outside the frame and the LPN IDs cut short in their boxes.
type pedigreeFit struct {
	Width       int      `json:"width"`
	ScrollWidth int      `json:"scrollWidth"`
	Says        string   `json:"says"`
	ByGen       []int    `json:"byGen"`
	Outside     []string `json:"outside"`
	Cut         []string `json:"cut"`
	List        bool     `json:"list"`
}

type viewCase struct {
	Label string         `json:"label"`
	Tool  string         `json:"tool"`
	Args  map[string]any `json:"args"`
	view  string
}

// pressedCase is a case whose view has a button asking for the cells it
// has not filled: test/views.mjs reports what the view shows and called
// before the button, then presses it.
type pressedCase struct {
	viewCase
	Press bool `json:"press"`
}

// viewCases are one or two calls per view, of animals the stand-in answers
// in full: a four-generation pedigree (summarized, so the view reads the
// rest behind _meta.full), a plan that mates four of five ewes (two rams
// of two ewes each, no COI cap), a ram with his daughter (planned under a
// cap they are over, and checked).
func viewCases(t *testing.T, d *nsiptest.Dataset) []viewCase {
	t.Helper()
	a := jsSubject(t, d)
	deep, _ := d.Animal(d.DeepPedigree())
	// A daughter with her sire: a pair with a common ancestor for certain.
	var daughter nsiptest.Animal
	for _, id := range d.AnimalIDs() {
		if x, _ := d.Animal(id); x.Gender == "Female" && x.Sire != "" && d.PedigreeDepth(id) >= 3 {
			daughter = x
			break
		}
	}
	if daughter.LPNID == "" {
		t.Fatal("the stand-in has no ewe with a sire and three generations behind her")
	}
	// Katahdins with recorded parents, so that every pair's COI is known:
	// a breed registers some animals without parents, small breeds many.
	current := func(gender string, n int) []string {
		all, err := d.Search(640, nsiptest.Criteria{Gender: gender, Status: "CURRENT", BornAfter: "2021-01-01"}, "", false)
		var ids []string
		for _, id := range all {
			if d.PedigreeDepth(id) >= 1 {
				ids = append(ids, id)
			}
		}
		if err != nil || len(ids) < n {
			t.Fatalf("the stand-in has %d current %s Katahdins born since 2021 with parents recorded (%v), want %d", len(ids), gender, err, n)
		}
		return ids[:n]
	}
	return []viewCase{
		{"lineage", "nsip_get_lineage", map[string]any{"lpn_id": deep.LPNID}, "pedigree"},
		{"profile", "nsip_search_by_lpn", map[string]any{"lpn_id": deep.LPNID}, "pedigree"},
		{"animal", "nsip_get_animal", map[string]any{"search_string": a.LPNID, "percentiles": true}, "ebvs"},
		{"compare", "nsip_compare_animals", map[string]any{"lpn_ids": []string{a.LPNID, a.Sire, a.Dam}}, "ebvs"},
		{"plan", "nsip_plan_matings", map[string]any{"ram_lpn_ids": current("Male", 2), "ewe_lpn_ids": current("Female", 5),
			"weights": jsRankWeights, "max_coi": 1, "max_ewes_per_ram": 2}, "matings"},
		// A ram with his daughter under a first cousins' cap: the pair
		// is over it, and the matrix marks its COI so.
		{"capped", "nsip_plan_matings", map[string]any{"ram_lpn_ids": []string{daughter.Sire}, "ewe_lpn_ids": []string{daughter.LPNID},
			"weights": jsRankWeights, "max_coi": 0.0625}, "matings"},
		{"check", "nsip_check_mating", map[string]any{"sire_lpn_id": daughter.Sire, "dam_lpn_id": daughter.LPNID}, "matings"},
		// The COI matrix alone: every cell from the answer, none checked,
		// the ram with his daughter among them.
		{"matrix", "nsip_plan_matings", map[string]any{"ram_lpn_ids": distinct(append(current("Male", 2), daughter.Sire)),
			"ewe_lpn_ids": distinct(append(current("Female", 4), daughter.LPNID)), "coi_only": true}, "matings"},
		{"rank", "nsip_rank_animals", map[string]any{"breed_id": a.BreedID, "weights": jsRankWeights, "top_n": 10}, "ranking"},
		{"flock", "nsip_flock_summary", map[string]any{"flock_id": a.FlockCode}, "flock"},
		{"diversity", "nsip_breed_diversity", map[string]any{"breed_id": a.BreedID}, "diversity"},
	}
}

// readBreedPass has the breed's pass read, by asking nsip_breed_diversity
// until it answers from the pass rather than naming the read, so that the
// view is shown the breed's figures.
func readBreedPass(t *testing.T, srv *runningServer, breed int) {
	t.Helper()
	c := dialFlavour(t, "streamable", srv.BaseURL)
	initialize(t, c)
	for {
		text := call(t, c, "nsip_breed_diversity", map[string]any{"breed_id": breed})
		if strings.Contains(text, `"coi_by_birth_year"`) {
			return
		}
		if !strings.Contains(text, "being read in the background") {
			t.Fatalf("the breed's pass is not being read: %.400s", text)
		}
		time.Sleep(100 * time.Millisecond) // the read's own pace; the watchdog bounds the wait
	}
}

// distinct is ids without repeats, in their order.
func distinct(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// TestViewsInABrowser hosts every view in headless Chromium through the
// MCP Apps SDK's AppBridge, fed with the server's real answers (got with
// the TypeScript SDK client), and checks what a person sees against what
// the answers hold: a box per ancestor, a bar per EBV with the accuracies
// under 40% marked, a cell per pair with the plan's pairs marked, a row per
// ranked animal (sortable), a histogram per trait; that it follows the
// host's theme and fits a phone's width; and that the page sent no request
// anywhere. NSIP_VIEWS_SCREENSHOTS=specs/views (from the
// repository's root: ../../specs/views here) writes a light and a dark
// picture of each view.
func TestViewsInABrowser(t *testing.T) {
	watchdog(t, viewsLimit)
	srv := startServer(t, "http-sse")
	cases := viewCases(t, srv.Stub.Data())
	readBreedPass(t, srv, jsSubject(t, srv.Stub.Data()).BreedID)
	rep := runViews(t, srv, cases)
	checkViewTools(t, rep)
	if len(rep.Cases) != len(cases) {
		t.Fatalf("%d cases reported, want %d", len(rep.Cases), len(cases))
	}
	t.Run("deep pedigree", func(t *testing.T) {
		d := rep.DeepPedigree
		if d == nil {
			t.Fatal("no report of the deep pedigree")
		}
		checkPedigreeFit(t, "desktop", d.Desktop, d.AnswerByGen)
		checkPedigreeFit(t, "phone", d.Phone, d.AnswerByGen)
		checkPedigreeFit(t, "desktop, listed", d.Listed, d.AnswerByGen)
		if m := regexp.MustCompile(`^Shows ([56]) of 7 generations`).FindStringSubmatch(d.Desktop.Says); m == nil || !strings.HasSuffix(d.Desktop.Says, "List all 7 generations") || d.Desktop.List {
			t.Errorf("a desktop's frame with seven generations: %q (a list: %v); want a chart of five or six and a button listing all seven", d.Desktop.Says, d.Desktop.List)
		}
		if !d.Phone.List || !d.Listed.List || !strings.HasSuffix(d.Listed.Says, "Show as a chart") {
			t.Errorf("a phone's frame: %q (a list: %v); after the button: %q (a list: %v); want lists, the desktop's with a way back", d.Phone.Says, d.Phone.List, d.Listed.Says, d.Listed.List)
		}
	})
	for i, c := range rep.Cases {
		want := cases[i]
		t.Run(c.Label, func(t *testing.T) {
			if c.Exception != "" || c.IsError || c.Error != "" {
				t.Fatalf("%s: exception %s; tool error %v; the view says %q", c.Tool, c.Exception, c.IsError, c.Error)
			}
			if c.View != want.view || c.MIMEType != views.MIMEType {
				t.Errorf("%s is shown by %q (%s), want %q (%s)", c.Tool, c.View, c.MIMEType, want.view, views.MIMEType)
			}
			if len(c.Expected) == 0 {
				t.Fatal("nothing expected: the answer's shape was not recognized")
			}
			for k, v := range c.Expected {
				if !reflect.DeepEqual(c.Seen[k], v) {
					t.Errorf("%s: the view shows %s = %v, the answer holds %v", c.Tool, k, c.Seen[k], v)
				}
			}
			checkViewCase(t, c.Label, c.Seen, c.Expected, c.ViewRequests)
			if c.Legends == 0 || len(c.MarksUnnamed) > 0 {
				t.Errorf("%d legends; the view draws %q, of which no legend names %q", c.Legends, c.MarksUsed, c.MarksUnnamed)
			}
			t.Logf("the view draws %q, each named in its legend", c.MarksUsed)
			if c.View == "pedigree" {
				checkPedigreeFit(t, "desktop", c.Fit.Desktop, c.AnswerByGen)
				checkPedigreeFit(t, "phone", c.Fit.Phone, c.AnswerByGen)
				if c.Fit.Phone.Width > 400 || c.Fit.Desktop.Width < 900 {
					t.Errorf("the pedigree was measured %d and %d px wide, want a phone's 390 and a desktop's 960", c.Fit.Phone.Width, c.Fit.Desktop.Width)
				}
			}
			if b := c.Backgrounds; b.Light == "" || b.Light == b.Dark {
				t.Errorf("background %q in the light theme, %q in the dark", b.Light, b.Dark)
			}
			if c.NarrowWidth == 0 || c.NarrowWidth > 360 {
				t.Errorf("at 360 px wide the page is %d px wide", c.NarrowWidth)
			}
			checkAccessible(t, c.Judged, c.Violations)
			checkContrast(t, c.Label, c.Contrast)
			for where, k := range c.Keyboard {
				checkKeyboard(t, where, k)
			}
			if len(c.Keyboard) != 4 {
				t.Errorf("the keyboard walked the view %d times, want light and dark at two widths", len(c.Keyboard))
			}
			t.Logf("%s: %v; the view asked %d times; %d ms", c.Tool, c.Seen, len(c.ViewRequests), c.Ms)
		})
	}
}

// TestMatricesViewAsksFirstAfterACutPlan: a plan stopped at its time limit
// (NSIP's lineages slower than the call's limit) is shown with the pairs
// it did not mate as unknown and a button that says what checking them
// costs; the view calls no tool until the button is pressed, then one
// nsip_check_mating per unknown pair. A complete plan fills its cells on
// its own, as TestViewsInABrowser's plan case holds.
func TestMatricesViewAsksFirstAfterACutPlan(t *testing.T) {
	watchdog(t, viewsLimit)
	srv := startServer(t, "http-sse", "NSIP_CALL_TIMEOUT=2s", "NSIP_TIMEOUT=2s")
	var plan viewCase
	for _, c := range viewCases(t, srv.Stub.Data()) {
		if c.Label == "plan" {
			plan = c
		}
	}
	plan.Label = "plan cut short"
	srv.Stub.SetLatency(nsiptest.EndpointLineage, 3*time.Second)
	srv.Stub.ResetCounts()
	rep := runViews(t, srv, []pressedCase{{plan, true}})
	if len(rep.Cases) != 1 {
		t.Fatalf("%d cases reported, want 1", len(rep.Cases))
	}
	c := rep.Cases[0]
	if c.Exception != "" || c.IsError || c.Error != "" {
		t.Fatalf("exception %s; tool error %v; the view says %q", c.Exception, c.IsError, c.Error)
	}
	if !c.PlanTimeLimit {
		t.Fatal("the plan was not cut short: the stand-in's lineages came within the call's limit")
	}
	planned, _ := c.Expected["planned"].([]any)
	cells, _ := c.Expected["cells"].(float64)
	missing := int(cells) - len(planned)
	viewNSIP := srv.Stub.TotalRequests() - c.PlanFetched
	t.Logf("plan: %d NSIP requests; %d of %v pairs mated; before the button %d tool calls; after it %q, %d NSIP requests in all from the view",
		c.PlanFetched, len(planned), cells, c.Before.ToolCalls, c.ViewRequests, viewNSIP)
	if c.Before.ToolCalls != 0 {
		t.Errorf("the view called %d tools on its own after a plan cut short, want none until asked", c.Before.ToolCalls)
	}
	if want := fmt.Sprintf("Compute the %d missing COIs (about %d NSIP lookups)", missing, missing); c.Before.Unknown != missing || c.Before.Button != want {
		t.Errorf("before the button: %d cells unknown, button %q; want %d and %q", c.Before.Unknown, c.Before.Button, missing, want)
	}
	checks := 0
	for _, r := range c.ViewRequests {
		if r == "tools/call nsip_check_mating" {
			checks++
		}
	}
	if checks != missing {
		t.Errorf("after the button the view made %q, want %d nsip_check_mating calls", c.ViewRequests, missing)
	}
	if pending, _ := c.Seen["pending"].(float64); pending != 0 {
		t.Errorf("%v: cells left pending once every check came back", c.Seen)
	}
}

// checkPedigreeFit holds the pedigree laid out at one width to what a
// person must see there: a sentence saying how many of the answer's
// generations (answer: its ancestors in each) it shows, that many
// generations of boxes (every ancestor of each), nothing outside the frame
// and no LPN ID cut short.
func checkPedigreeFit(t *testing.T, where string, f pedigreeFit, answer []int) {
	t.Helper()
	generations := len(answer) - 1
	shown := 0
	if m := regexp.MustCompile(`^Shows (\d+) of (\d+) generations`).FindStringSubmatch(f.Says); m != nil {
		shown, _ = strconv.Atoi(m[1])
		if of, _ := strconv.Atoi(m[2]); of != generations || shown >= generations {
			t.Errorf("%s: the pedigree says %q; the answer has %d generations", where, f.Says, generations)
		}
	} else if m := regexp.MustCompile(`^Shows all (\d+) generations`).FindStringSubmatch(f.Says); m != nil {
		shown, _ = strconv.Atoi(m[1])
		if shown != generations {
			t.Errorf("%s: the pedigree says %q; the answer has %d generations", where, f.Says, generations)
		}
	} else {
		t.Errorf("%s: the pedigree does not say how many generations it shows: %q", where, f.Says)
	}
	if len(f.ByGen)-1 != shown || shown < 2 {
		t.Errorf("%s: boxes by generation %v, want the %d generations it says it shows", where, f.ByGen, shown)
	}
	for g := 1; g < len(f.ByGen) && g < len(answer); g++ {
		if f.ByGen[g] != answer[g] {
			t.Errorf("%s: generation %d has %d boxes, the answer %d ancestors", where, g, f.ByGen[g], answer[g])
		}
	}
	if len(f.Outside) > 0 || f.ScrollWidth > f.Width {
		t.Errorf("%s: the frame is %d px wide, the page %d px; outside it: %q", where, f.Width, f.ScrollWidth, f.Outside)
	}
	if len(f.Cut) > 0 {
		t.Errorf("%s: LPN IDs cut short in their boxes: %q", where, f.Cut)
	}
	t.Logf("pedigree at %d px: %q (as a list: %v), boxes by generation %v", f.Width, f.Says, f.List, f.ByGen)
}

// errorCases are calls the server answers with an error, one a view: an
// animal and a pair NSIP has not, a ranking by a trait that does not
// exist, and IDs that are markup, which must stay text.
var errorCases = []viewCase{
	{"lineage error", "nsip_get_lineage", map[string]any{"lpn_id": "<img src=x onerror=alert(1)>"}, "pedigree"},
	{"animal error", "nsip_get_animal", map[string]any{"search_string": "6400000000NOSUCH"}, "ebvs"},
	{"check error", "nsip_check_mating", map[string]any{"sire_lpn_id": "6400000000NOSIRE", "dam_lpn_id": "6400000000NODAM1"}, "matings"},
	{"rank error", "nsip_rank_animals", map[string]any{"breed_id": 640, "weights": map[string]any{"NOT_A_TRAIT": 1}, "top_n": 10}, "ranking"},
	{"flock error", "nsip_flock_summary", map[string]any{"flock_id": "<b>flock</b>"}, "flock"},
}

// TestViewsExplainErrors hosts each view with an error answer: the view
// shows what went wrong and what to do as sentences, never the JSON, and
// any markup in the answer as text; axe finds no serious issue in it.
func TestViewsExplainErrors(t *testing.T) {
	watchdog(t, viewsLimit)
	srv := startServer(t, "http-sse")
	rep := runViews(t, srv, errorCases)
	if len(rep.Cases) != len(errorCases) {
		t.Fatalf("%d cases reported, want %d", len(rep.Cases), len(errorCases))
	}
	for i, c := range rep.Cases {
		want := errorCases[i]
		t.Run(c.Label, func(t *testing.T) {
			if c.Exception != "" || !c.IsError || c.View != want.view {
				t.Fatalf("%s: exception %s; tool error %v; shown by %q, want %q", c.Tool, c.Exception, c.IsError, c.View, want.view)
			}
			e := c.ErrorBody.Error
			problem, _ := e["problem"].(string)
			if problem == "" {
				t.Fatalf("the answer's error has no problem: %v", e)
			}
			// The problem as a sentence: a capital first letter, a full
			// stop, and an argument's name as it is spelled.
			wantLines := []string{capitalize(problem)}
			if field, _ := e["field"].(string); field != "" && strings.HasPrefix(problem, field) {
				wantLines = []string{"The argument " + problem}
			}
			if next, _ := e["next"].(string); next != "" {
				wantLines = append(wantLines, "What to do: "+capitalize(next))
			}
			if expected, _ := e["expected"].(string); expected != "" {
				wantLines = append(wantLines, "Expected: "+strings.TrimSuffix(expected, "."))
			}
			for _, w := range wantLines {
				if !slices.ContainsFunc(c.ErrorLines, func(l string) bool { return strings.HasPrefix(l, strings.TrimSuffix(w, ".")) }) {
					t.Errorf("the view says %q; want a line %q", c.ErrorLines, w)
				}
			}
			if !slices.ContainsFunc(c.ErrorLines, func(l string) bool { return strings.HasPrefix(l, "What to do: ") }) {
				t.Errorf("the view says %q, and not what to do", c.ErrorLines)
			}
			if len(c.ErrorLines) < 2 || strings.Contains(c.Error, "{") || strings.Contains(c.Error, `"code"`) {
				t.Errorf("the view shows %q, want sentences and no JSON", c.Error)
			}
			if v, _ := e["value"].(string); strings.Contains(v, "<") && (!strings.Contains(c.Error, v) || c.Injected != 0) {
				t.Errorf("the markup %q in the answer: shown as text %v, elements made %d", v, strings.Contains(c.Error, v), c.Injected)
			}
			checkAccessible(t, c.Judged, c.Violations)
			t.Logf("%s (%v): %q", c.Tool, e["code"], c.ErrorLines)
		})
	}
}

// capitalize is a fragment as the view writes it as a sentence.
func capitalize(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runViews runs test/views.mjs over srv for cases and returns its report,
// failing on any request the page sent or error it met.
func runViews(t *testing.T, srv *runningServer, cases any) viewsReport {
	t.Helper()
	node, chromium := needViewsBrowser(t)
	plan, _ := json.Marshal(cases)
	args := []string{"test/views.mjs", srv.BaseURL + "/mcp", string(plan)}
	if dir := os.Getenv("NSIP_VIEWS_SCREENSHOTS"); dir != "" {
		abs, _ := filepath.Abs(dir)
		args = append(args, abs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), viewsLimit-30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = viewsDir
	cmd.Env = append(os.Environ(), "CHROMIUM_PATH="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var rep viewsReport
	if derr := json.Unmarshal(stdout.Bytes(), &rep); err != nil || derr != nil || rep.Fatal != "" {
		t.Fatalf("node: %v (report: %v) %s\nstderr:\n%s\nserver log:\n%s", err, derr, rep.Fatal, stderr.String(), srv.Stderr())
	}
	if len(rep.Requests) > 0 || len(rep.PageErrors) > 0 || len(rep.ConsoleErrors) > 0 {
		t.Errorf("the page sent requests %q; page errors %q; console errors %q", rep.Requests, rep.PageErrors, rep.ConsoleErrors)
	}
	return rep
}

// needViewsBrowser returns node and Chromium, or fails saying what to
// install; the views' test needs the views' own packages, not the SDK
// client's (needBrowser).
func needViewsBrowser(t *testing.T) (node, chromium string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found on PATH: install Node.js 20 or newer, then run `make e2e-deps` (or run go test without -tags e2e)")
	}
	if _, err := os.Stat(filepath.Join(viewsDir, "node_modules", ".package-lock.json")); err != nil {
		t.Fatal("gateway/views has no node_modules: run `make e2e-deps` (or `cd gateway/views && npm ci`)")
	}
	chromium = cmp.Or(os.Getenv("CHROMIUM_PATH"), "/usr/bin/chromium")
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium not found at %s: install it with `apt-get install -y chromium` (or point CHROMIUM_PATH at a Chromium binary)", chromium)
	}
	return node, chromium
}

// checkViewTools holds tools/list to each tool naming its view under both
// keys, and the others naming none.
func checkViewTools(t *testing.T, rep viewsReport) {
	t.Helper()
	if len(rep.Tools) < 14 {
		t.Errorf("tools/list had %d tools", len(rep.Tools))
	}
	for name, tl := range rep.Tools {
		v, has := views.For(name)
		switch {
		case !has && (tl.URI != nil || tl.Flat != nil):
			t.Errorf("%s names a view it has not", name)
		case has && (tl.URI == nil || tl.Flat == nil || *tl.URI != v.URI() || *tl.Flat != v.URI()):
			t.Errorf("%s: _meta.ui.resourceUri %v and ui/resourceUri %v, want %s under both", name, tl.URI, tl.Flat, v.URI())
		}
	}
}

// checkViewCase checks what each view must show beyond matching the
// answer: something at all, and the requests it made for more.
func checkViewCase(t *testing.T, label string, seen, want map[string]any, asked []string) {
	t.Helper()
	num := func(m map[string]any, k string) float64 { f, _ := m[k].(float64); return f }
	switch label {
	case "lineage", "profile":
		if num(seen, "ancestors") < 1<<(nsiptest.LineageDepth+1)-2 || num(seen, "subjects") != 1 {
			t.Errorf("%v: want one subject and the %d generations behind it", seen, nsiptest.LineageDepth)
		}
		if !slices.ContainsFunc(asked, func(r string) bool { return strings.HasPrefix(r, "resources/read nsip://full/") }) {
			t.Errorf("the view read %q, want the answer's _meta.full link", asked)
		}
	case "animal", "compare":
		if num(seen, "bars") == 0 || num(seen, "accBars") != num(seen, "bars") {
			t.Errorf("%v: want one accuracy bar per EBV", seen)
		}
	case "plan":
		planned, _ := want["planned"].([]any)
		cells := num(seen, "cells")
		if len(planned) == 0 || float64(len(planned)) == cells {
			t.Fatalf("the plan mated %d of %v pairs: the case shows no marking", len(planned), cells)
		}
		if num(seen, "pending") != 0 || num(seen, "filled") != cells {
			t.Errorf("%v: want every cell's COI shown", seen)
		}
		if n := float64(len(asked)); n != cells-float64(len(planned)) {
			t.Errorf("the view made %v requests (%q), want one nsip_check_mating per pair not in the plan (%v)", n, asked, cells-float64(len(planned)))
		}
	case "matrix":
		if num(seen, "cells") < 6 || num(seen, "filled") == 0 || num(seen, "over") == 0 || len(asked) != 0 {
			t.Errorf("%v, requests %q: want every pair's cell, the known ones filled and the ram's daughter over the cap, without a request", seen, asked)
		}
	case "check":
		if num(seen, "ancestors") == 0 {
			t.Errorf("%v: a ram and his daughter show no common ancestor", seen)
		}
	case "rank":
		if num(seen, "lowest") >= num(seen, "highest") {
			t.Errorf("%v: sorting by index gave the same first row both ways", seen)
		}
		if num(seen, "keyLowest") != num(seen, "lowest") || num(seen, "keyHighest") != num(seen, "highest") {
			t.Errorf("%v: Enter and Space on the index heading sort as a click does not", seen)
		}
	case "diversity":
		if num(seen, "bars") < 2 || num(seen, "highest") <= 0 {
			t.Errorf("%v: want a bar a birth year and some year's mean COI above 0", seen)
		}
	case "flock":
		if num(seen, "histograms") == 0 {
			t.Errorf("%v: no histogram from the flock's rows", seen)
		}
	}
}

// axeViolation is one rule axe-core found broken, where (theme and width),
// and the elements it names.
type axeViolation struct {
	Rule    string   `json:"rule"`
	Impact  string   `json:"impact"`
	Targets []string `json:"targets"`
	Help    string   `json:"help"`
	Where   string   `json:"where"`
}

// checkAccessible fails unless axe-core judged the page in light and dark
// at a desktop's width and a phone's 360 px, and on every serious or
// critical violation of WCAG 2.0-2.2 A and AA it found; it logs the lesser
// ones.
func checkAccessible(t *testing.T, judged []string, found []axeViolation) {
	t.Helper()
	if len(judged) != 4 || !slices.Contains(judged, "light 360px") || !slices.Contains(judged, "dark 360px") {
		t.Errorf("axe judged the page %q, want light and dark at a desktop's width and at 360 px", judged)
	}
	for _, v := range found {
		msg := fmt.Sprintf("axe, %s: %s (%s) %s: %q", v.Where, v.Rule, v.Impact, v.Help, v.Targets)
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// contrastMeasured names, for each case, the text whose contrast the view
// test measures by value and which the case must show: the accuracy labels
// on the EBV bars, the COI cells of a plan, the shares of a pair's common
// ancestors, a flock's counts. A plan's COIs over its cap are measured
// whenever the plan has some.
var contrastMeasured = map[string][]string{
	"animal":  {"accuracy labels", "percentile labels"},
	"compare": {"accuracy labels"},
	"plan":    {"COI cells"},
	"capped":  {"COIs over the cap"},
	"check":   {"ancestors' shares"},
	"flock":   {"counts"},
}

// checkContrast holds the text measured to at least 4.5:1, WCAG AA's ratio
// for text under 18.66 px bold, in every theme and width.
func checkContrast(t *testing.T, label string, got map[string]struct {
	N     int      `json:"n"`
	Min   *float64 `json:"min"`
	Worst any      `json:"worst"`
}) {
	t.Helper()
	for _, name := range contrastMeasured[label] {
		for _, where := range []string{"light 960px", "dark 960px", "light 360px", "dark 360px"} {
			if c := got[name+", "+where]; c.N == 0 {
				t.Errorf("no %s measured (%s)", name, where)
			}
		}
	}
	for k, c := range got {
		if c.N > 0 && (c.Min == nil || *c.Min < 4.5) {
			t.Errorf("%s: contrast %v:1 at worst (%v), want at least 4.5:1", k, derefOr(c.Min), c.Worst)
		} else if c.N > 0 {
			t.Logf("%s: %d measured, contrast at least %v:1", k, c.N, *c.Min)
		}
	}
}

func derefOr(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// keyboardWalk is what pressing Tab through a page reached (test/a11y.mjs
// focusWalk), beside how many elements a keyboard should reach.
type keyboardWalk struct {
	Stops []struct {
		What         string  `json:"what"`
		Name         string  `json:"name"`
		Visible      bool    `json:"visible"`
		RingContrast float64 `json:"ringContrast"`
	} `json:"stops"`
	Reachable int `json:"reachable"`
}

// checkKeyboard holds Tab to reach every control and scrolling region
// once, each showing a focus ring of at least 3:1 with what is behind it
// (WCAG 2.2's 1.4.11 and 2.4.7).
func checkKeyboard(t *testing.T, where string, k keyboardWalk) {
	t.Helper()
	if len(k.Stops) != k.Reachable {
		t.Errorf("%s: Tab stopped at %d elements (%+v), want the %d controls and regions", where, len(k.Stops), k.Stops, k.Reachable)
	}
	for _, s := range k.Stops {
		if !s.Visible || s.RingContrast < 3 {
			t.Errorf("%s: %s %q has the focus with a ring visible %v, contrast %v:1; want a ring of at least 3:1", where, s.What, s.Name, s.Visible, s.RingContrast)
		}
	}
}
