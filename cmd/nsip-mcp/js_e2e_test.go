//go:build e2e

package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// The official TypeScript SDK and a real browser against the real binary,
// built only with -tags e2e (make test and CI set it) so that plain
// go test ./... needs nothing but Go. Under the tag they need Node.js with
// the locked jsclient dependencies and Debian's Chromium, and fail saying
// what to install when either is missing: an opted-in run never skips.

// jsClientDir holds the Node scripts, the test page and the lockfile.
var jsClientDir = filepath.Join("..", "..", "transport", "testdata", "jsclient")

// nodeRunTimeout bounds one node process; the scripts give up earlier and
// still print their report.
const nodeRunTimeout = 60 * time.Second

// jsCall is one tool result as the scripts report it.
type jsCall struct {
	Tool      string   `json:"tool"`
	IsError   bool     `json:"isError"`
	Text      string   `json:"text"`
	Blocks    []string `json:"blocks"`
	Exception string   `json:"exception"` // the SDK threw instead of returning a result
	// Validated: the SDK held an outputSchema validator for the tool, so
	// it checked structuredContent (Ajv) before returning the result.
	Validated  bool `json:"validated"`
	Structured bool `json:"structured"` // the result carried structuredContent
	Summary    any  `json:"summary"`    // structuredContent.summary: set when summarized
}

// sdkReport is what client.mjs prints.
type sdkReport struct {
	Server          *struct{ Name string } `json:"server"`
	Tools           []string               `json:"tools"`
	Calls           map[string]jsCall      `json:"calls"`
	TransportErrors []string               `json:"transportErrors"`
}

// pageResult is what page.js writes into #result.
type pageResult struct {
	Origin   string   `json:"origin"`
	Protocol string   `json:"protocol"` // the subprotocol the server chose
	Tools    []string `json:"tools"`
	Animal   *jsCall  `json:"animal"`
	Error    string   `json:"error"`
}

// browserReport is what browser.mjs prints.
type browserReport struct {
	Title      string          `json:"title"`
	Result     json.RawMessage `json:"result"`
	Browser    string          `json:"browser"`
	WebSockets []struct {
		URL        string   `json:"url"`
		FramesSent int      `json:"framesSent"`
		Errors     []string `json:"errors"`
	} `json:"websockets"`
	Console    []string `json:"console"`
	PageErrors []string `json:"pageErrors"`
}

// needNode returns the node binary, or fails saying what to install.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found on PATH: install Node.js 20 or newer, then run " +
			"`cd transport/testdata/jsclient && npm ci` (or run go test without -tags e2e)")
	}
	checkJSDeps(t)
	return node
}

// checkJSDeps fails unless node_modules holds exactly the pinned versions,
// so a stale install is reported instead of tested.
func checkJSDeps(t *testing.T) {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join(jsClientDir, "package.json"), &pkg)
	for name, want := range pkg.Dependencies {
		var got struct {
			Version string `json:"version"`
		}
		b, err := os.ReadFile(filepath.Join(jsClientDir, "node_modules", name, "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		if err != nil || got.Version != want {
			t.Fatalf("%s %s is not installed (found %q): run `cd transport/testdata/jsclient && npm ci`",
				name, want, got.Version)
		}
	}
}

// needBrowser returns node and the Chromium binary, or fails saying what
// to install.
func needBrowser(t *testing.T) (node, chromium string) {
	t.Helper()
	node = needNode(t)
	chromium = os.Getenv("CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium not found at %s: install it with `apt-get install -y chromium` "+
			"(or point CHROMIUM_PATH at a Chromium binary)", chromium)
	}
	return node, chromium
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
}

// runNode runs a script from jsClientDir and decodes the one JSON object it
// prints into report. A failed run or an undecodable report fails the test
// with everything the script and the server (serverLog) said.
func runNode(t *testing.T, node string, env []string, report any, serverLog func() string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), nodeRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = jsClientDir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if derr := json.Unmarshal(stdout.Bytes(), report); err != nil || derr != nil {
		t.Fatalf("node %s: %v (report: %v)\nstdout:\n%s\nstderr:\n%s\nserver log:\n%s",
			strings.Join(args, " "), err, derr, stdout.String(), stderr.String(), serverLog())
	}
}

// jsSubject picks an animal whose every tool answer has something to check:
// both parents, a few offspring and a breeder contact, preferably one whose
// farm name has accents or punctuation that must survive every hop.
func jsSubject(t *testing.T, d *nsiptest.Dataset) nsiptest.Animal {
	t.Helper()
	var plain *nsiptest.Animal
	for _, id := range d.AnimalIDs() {
		a, _ := d.Animal(id)
		if n := len(d.Progeny(id)); a.Sire == "" || a.Dam == "" || a.Contact.FarmName == "" || n < 1 || n > 10 {
			continue
		}
		if strings.ContainsFunc(a.Contact.FarmName, func(r rune) bool { return r > 127 || r == '&' || r == '\'' }) {
			t.Logf("subject %s of %q", a.LPNID, a.Contact.FarmName)
			return a
		}
		if plain == nil {
			plain = &a
		}
	}
	if plain == nil {
		t.Fatal("the stand-in dataset has no animal with parents, 1..10 offspring and a contact")
	}
	t.Logf("subject %s of %q", plain.LPNID, plain.Contact.FarmName)
	return *plain
}

// hasText reports whether a tool's text carries want, literally or as a JSON
// string escape would write it ("&" as \u0026).
func hasText(text, want string) bool {
	b, _ := json.Marshal(want)
	return strings.Contains(text, want) || strings.Contains(text, strings.Trim(string(b), `"`))
}

// contactFields are the breeder's details a user must see with an animal.
func contactFields(c nsiptest.Contact) []string {
	var out []string
	for _, v := range []string{c.FarmName, c.ContactName, c.Phone, c.Email} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// jsExpectation is one tool call the SDK client makes and what its text
// must contain. A lookup is labelled by its tool and its arguments come
// from client.mjs; any other call is passed to it with --calls.
type jsExpectation struct {
	tool string
	want []string

	label      string         // the report's key; "" for a lookup (its tool)
	args       map[string]any // nil for a lookup
	summarized bool           // the answer must come back summarized
	links      bool           // resource_link blocks may follow the text
}

func (w jsExpectation) key() string { return cmp.Or(w.label, w.tool) }

// jsExpectations derives every call's expected content from the stand-in:
// its dataset, and for the search page the stand-in's own answer.
func jsExpectations(t *testing.T, stub *nsiptest.Server, a nsiptest.Animal) []jsExpectation {
	t.Helper()
	d := stub.Data()
	var breeds []string
	for _, g := range d.BreedGroups() {
		breeds = append(breeds, g.Name)
		for _, b := range g.Breeds {
			breeds = append(breeds, b.Name)
		}
	}
	ranges, ok := d.TraitRanges(a.BreedID)
	if !ok || len(ranges) == 0 {
		t.Fatalf("the stand-in has no trait ranges for breed %d", a.BreedID)
	}
	var codes []string
	for code := range ranges {
		codes = append(codes, code)
	}
	c, err := nsip.NewClient(nsip.WithBaseURL(stub.URL()))
	if err != nil {
		t.Fatalf("nsip client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	page, err := c.SearchAnimals(ctx, nsip.SearchParams{PageSize: 5})
	if err != nil {
		t.Fatalf("searching the stand-in directly: %v", err)
	}
	searched := []string{strconv.Itoa(page.TotalCount)}
	for _, r := range page.Results {
		searched = append(searched, r.LPNID)
	}
	if len(page.Results) != 5 {
		t.Fatalf("the stand-in's first search page has %d rows, want 5", len(page.Results))
	}
	firstChild := d.Progeny(a.LPNID)[0]
	return []jsExpectation{
		{tool: "nsip_get_last_update", want: []string{d.LastUpdated()}},
		{tool: "nsip_list_breeds", want: breeds},
		{tool: "nsip_get_statuses", want: d.Statuses()},
		{tool: "nsip_get_trait_ranges", want: append([]string{"BWT"}, codes...)},
		{tool: "nsip_search_animals", want: searched},
		{tool: "nsip_get_animal", want: append([]string{a.LPNID, a.BreedName}, contactFields(a.Contact)...)},
		{tool: "nsip_get_lineage", want: []string{a.LPNID, a.Sire, a.Dam}},
		{tool: "nsip_get_progeny", want: []string{firstChild}},
		{tool: "nsip_search_by_lpn", want: []string{a.LPNID, a.Sire, a.Dam, a.Contact.FarmName}},
	}
}

// jsRankWeights is the breeding objective the SDK client ranks and plans
// with, so that no form is needed.
var jsRankWeights = map[string]float64{"WWT": 1, "BWT": -0.5}

// jsAnalysisCalls are the calls beyond the nine lookups: each analysis with
// arguments the stand-in answers in full, nsip_get_animal with percentiles,
// and two calls over their budget (a summarized page and a ranking cut
// short), so that the SDK checks each analysis's answer and a summary
// against the tools' output schemas. The
// expected values come from the stand-in's dataset: the brute-force leaders
// of both rankings, and the animals each call names.
func jsAnalysisCalls(t *testing.T, d *nsiptest.Dataset, a nsiptest.Animal) []jsExpectation {
	t.Helper()
	ids, err := d.Search(a.BreedID, nsiptest.Criteria{}, "", false)
	if err != nil || len(ids) == 0 {
		t.Fatalf("the stand-in's breed %d: %d animals, %v", a.BreedID, len(ids), err)
	}
	if len(a.Indexes) == 0 {
		t.Fatalf("subject %s carries no index to rank by", a.LPNID)
	}
	index := a.Indexes[0].Name
	// leader is the breed's animal with the highest score, among those
	// that have one and a ranking shows by default (CURRENT ones); a
	// tie would make the expected leader ambiguous.
	leader := func(what string, score func(nsiptest.Animal) (float64, bool)) string {
		best, second, id := math.Inf(-1), math.Inf(-1), ""
		for _, x := range ids {
			an, _ := d.Animal(x)
			v, ok := score(an)
			switch {
			case !ok || an.Status != "CURRENT":
			case v > best:
				best, second, id = v, best, x
			case v > second:
				second = v
			}
		}
		if id == "" || best-second < 1e-3 {
			t.Fatalf("breed %d has no clear leader by %s (%v, then %v)", a.BreedID, what, best, second)
		}
		return id
	}
	byWeights := leader("weights", func(an nsiptest.Animal) (float64, bool) {
		v := 0.0
		for code, w := range jsRankWeights {
			tr, ok := an.Trait(code)
			if !ok {
				return 0, false
			}
			v += w * tr.Value
		}
		return v, true
	})
	byIndex := leader(index, func(an nsiptest.Animal) (float64, bool) {
		for _, ix := range an.Indexes {
			if ix.Name == index {
				return ix.Value, true
			}
		}
		return 0, false
	})
	// A ram and a ewe that are half sibs, so the mating has a common
	// ancestor (their sire) and a COI to compute rather than an unknown.
	var sibRam, sibEwe nsiptest.Animal
	for _, x := range ids {
		r, _ := d.Animal(x)
		if r.Gender != "Male" || r.Sire == "" || r.Dam == "" || sibRam.LPNID != "" {
			continue
		}
		for _, y := range ids {
			if e, _ := d.Animal(y); e.Gender == "Female" && e.Sire == r.Sire && e.Dam != "" && e.Dam != r.Dam {
				sibRam, sibEwe = r, e
				break
			}
		}
	}
	if sibRam.LPNID == "" {
		t.Fatalf("breed %d has no ram and ewe that are half sibs", a.BreedID)
	}
	// A second ram and ewe of the breed, founders without a recorded
	// pedigree, so the plan has a choice to make and a COI it cannot know;
	// neither an ancestor of the half sib it could be mated with, whose
	// lamb would be inbred past the cap.
	ancestors := func(id string) map[string]bool {
		out := map[string]bool{}
		for level := []string{id}; len(level) > 0; {
			var next []string
			for _, x := range level {
				an, _ := d.Animal(x)
				for _, p := range []string{an.Sire, an.Dam} {
					if p != "" && !out[p] {
						out[p] = true
						next = append(next, p)
					}
				}
			}
			level = next
		}
		return out
	}
	ofEwe, ofRam := ancestors(sibEwe.LPNID), ancestors(sibRam.LPNID)
	var ram, ewe string
	for _, x := range ids {
		an, _ := d.Animal(x)
		if an.Sire != "" || an.Dam != "" {
			continue
		}
		if an.Gender == "Male" && ram == "" && !ofEwe[x] {
			ram = x
		}
		if an.Gender == "Female" && ewe == "" && !ofRam[x] {
			ewe = x
		}
	}
	if ram == "" || ewe == "" {
		t.Fatalf("breed %d lacks a second ram (%q) or ewe (%q)", a.BreedID, ram, ewe)
	}
	flock, err := d.Search(0, nsiptest.Criteria{FlockID: a.FlockCode}, "", false)
	if err != nil || len(flock) == 0 {
		t.Fatalf("the stand-in's flock %s: %d animals, %v", a.FlockCode, len(flock), err)
	}
	weights := map[string]any{}
	for code, w := range jsRankWeights {
		weights[code] = w
	}
	return []jsExpectation{
		{label: "rank by weights", tool: "nsip_rank_animals",
			args: map[string]any{"breed_id": a.BreedID, "top_n": 3, "weights": weights},
			want: []string{byWeights, "WWT", "BWT"}},
		{label: "rank by index", tool: "nsip_rank_animals",
			args: map[string]any{"breed_id": a.BreedID, "top_n": 3, "index": index},
			want: []string{byIndex, index}},
		{label: "compare", tool: "nsip_compare_animals",
			args: map[string]any{"lpn_ids": []string{a.LPNID, a.Sire, a.Dam}},
			want: []string{a.LPNID, a.Sire, a.Dam}},
		{label: "check mating", tool: "nsip_check_mating",
			args: map[string]any{"sire_lpn_id": sibRam.LPNID, "dam_lpn_id": sibEwe.LPNID},
			want: []string{sibRam.LPNID, sibEwe.LPNID, sibRam.Sire}},
		{label: "flock summary", tool: "nsip_flock_summary",
			args:  map[string]any{"flock_id": a.FlockCode},
			want:  []string{a.FlockCode, fmt.Sprintf(`"animals":%d`, len(flock))},
			links: true},
		{label: "plan matings", tool: "nsip_plan_matings",
			args: map[string]any{"ram_lpn_ids": []string{sibRam.LPNID, ram}, "ewe_lpn_ids": []string{sibEwe.LPNID, ewe}, "weights": weights},
			want: []string{sibEwe.LPNID, ewe, `"mated":2`}},
		// The ranking by index before it read the breed's every page and
		// kept them as its pass: the diversity is answered from it, every
		// animal's COI linked.
		{label: "breed diversity", tool: "nsip_breed_diversity",
			args:  map[string]any{"breed_id": a.BreedID},
			want:  []string{`"coi_by_birth_year"`, `"breed_pass":"kept`},
			links: true},
		{label: "COI matrix", tool: "nsip_plan_matings",
			args: map[string]any{"ram_lpn_ids": []string{sibRam.LPNID, ram}, "ewe_lpn_ids": []string{sibEwe.LPNID, ewe}, "coi_only": true},
			// Half sibs: 1/8, the first of the ram's row.
			want: []string{`"` + sibRam.LPNID + `":[0.125,`, `"ewes":["` + sibEwe.LPNID + `","` + ewe + `"]`}},
		{label: "animal with percentiles", tool: "nsip_get_animal",
			args: map[string]any{"search_string": a.LPNID, "percentiles": true},
			want: []string{a.LPNID, "top_percent", d.LastUpdated()}},
		// Over the budget: a full search page is summarized; a long
		// ranking keeps its shape and says which rows it left out.
		{label: "search summarized", tool: "nsip_search_animals",
			args:       map[string]any{"page_size": 100, "max_tokens": 256},
			want:       []string{strconv.Itoa(d.Len())},
			summarized: true, links: true},
		{label: "rank over budget", tool: "nsip_rank_animals",
			// 500 tokens: a ranking's fixed part (method, proof, upstream
			// block, the statuses left out, and where its rows' sexes
			// came from) takes about 400, and below that the generic
			// summary serves, as for any answer whose skeleton does not
			// fit. Living animals, so that the breed has 50 to rank.
			args: map[string]any{"breed_id": a.BreedID, "top_n": 50, "weights": weights, "max_tokens": 500,
				"search_criteria": map[string]any{"status": "living"}},
			want:  []string{`"not_shown"`, `"which":"ranks `, ` to 50"`},
			links: true},
	}
}

// jsCallsFlag is the --calls argument of client.mjs for the calls that are
// not lookups.
func jsCallsFlag(t *testing.T, want []jsExpectation) string {
	t.Helper()
	type call struct {
		Label     string         `json:"label"`
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	var calls []call
	for _, w := range want {
		if w.args != nil {
			calls = append(calls, call{w.label, w.tool, w.args})
		}
	}
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatalf("encoding --calls: %v", err)
	}
	return string(b)
}

// checkSDKReport asserts the fifteen tools were listed, and every call was
// checked by the SDK against its tool's output schema (Ajv) and returned the
// values the stand-in holds.
func checkSDKReport(t *testing.T, rep sdkReport, want []jsExpectation) {
	t.Helper()
	got := slices.Sorted(slices.Values(rep.Tools))
	if !slices.Equal(got, nineTools) {
		t.Errorf("tools/list named %q, want %q", got, nineTools)
	}
	if len(rep.TransportErrors) > 0 {
		t.Errorf("the SDK reported transport errors: %q", rep.TransportErrors)
	}
	if len(rep.Calls) != len(want) {
		t.Errorf("%d results reported, want %d", len(rep.Calls), len(want))
	}
	for _, w := range want {
		name := w.key()
		call, ok := rep.Calls[name]
		switch {
		case !ok:
			t.Errorf("%s: no result reported", name)
			continue
		case call.Exception != "":
			t.Errorf("%s: the SDK threw %q", name, call.Exception)
			continue
		case call.IsError:
			t.Errorf("%s: isError true: %s", name, call.Text)
			continue
		}
		if call.Tool != w.tool {
			t.Errorf("%s: the client called %q, want %q", name, call.Tool, w.tool)
		}
		// Without a cached validator the SDK returns structuredContent
		// unchecked; without structuredContent there was nothing to check.
		if !call.Validated || !call.Structured {
			t.Errorf("%s: validator armed %v, structuredContent present %v; want both, so the SDK checked the answer",
				name, call.Validated, call.Structured)
		}
		if summarized := call.Summary != nil; summarized != w.summarized {
			t.Errorf("%s: structuredContent.summary %v, want summarized %v", name, call.Summary, w.summarized)
		}
		if i := slices.IndexFunc(call.Blocks, func(b string) bool { return b != "text" && (b != "resource_link" || !w.links) }); i >= 0 {
			t.Errorf("%s: content block %d is %q; the checks below only see text", name, i, call.Blocks[i])
		}
		for _, s := range w.want {
			if !hasText(call.Text, s) {
				t.Errorf("%s: text lacks %q; got:\n%.1500s", name, s, call.Text)
			}
		}
	}
}

// sdkTransports are the SDK transports client.mjs and features.mjs speak,
// each with the server's MCP_TRANSPORT and the endpoint it serves.
var sdkTransports = []struct{ name, transport, path string }{
	{"stdio", "stdio", ""},
	{"sse", "http-sse", "/sse"},
	{"streamable", "http-sse", "/mcp"},
	{"websocket", "websocket", "/ws"},
}

// sdkServer is a server for a node client to reach over one SDK transport.
type sdkServer struct {
	stub      *nsiptest.Server
	target    []string      // the client's last arguments: a command or a URL
	env       []string      // node's environment
	serverLog func() string // the server's stderr, for failure messages
}

// startSDKServer starts what a node client needs to reach the server over
// transport at path. For stdio the SDK spawns the server itself and hands
// it node's environment; otherwise the server runs here.
func startSDKServer(t *testing.T, transport, path string) sdkServer {
	t.Helper()
	if transport == "stdio" {
		stub := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
		return sdkServer{
			stub:      stub,
			target:    []string{buildBinary()},
			env:       serverEnv("stdio", stub.URL(), 0),
			serverLog: func() string { return "(in the node client's stderr above)" },
		}
	}
	srv := startServer(t, transport)
	base := srv.BaseURL
	if transport == "websocket" {
		base = "ws" + strings.TrimPrefix(base, "http")
	}
	return sdkServer{stub: srv.Stub, target: []string{base + path}, env: os.Environ(), serverLog: srv.Stderr}
}

// TestTypeScriptSDK drives the binary with the official TypeScript SDK over
// each transport it serves, listing the fourteen tools and calling each of
// them, so that the SDK checks every kind of answer, and a summary, against
// the tool's output schema.
func TestTypeScriptSDK(t *testing.T) {
	watchdog(t, testLimit)
	node := needNode(t)
	for _, tc := range sdkTransports {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startSDKServer(t, tc.transport, tc.path)
			stub, target, env, serverLog := srv.stub, srv.target, srv.env, srv.serverLog
			a := jsSubject(t, stub.Data())
			want := append(jsExpectations(t, stub, a), jsAnalysisCalls(t, stub.Data(), a)...)

			args := append([]string{"client.mjs", "--breed-id", strconv.Itoa(a.BreedID), "--calls", jsCallsFlag(t, want), tc.name}, target...)
			var rep sdkReport
			runNode(t, node, env, &rep, serverLog, append(args, a.LPNID)...)
			if rep.Server == nil || rep.Server.Name == "" {
				t.Errorf("initialize returned no server name")
			}
			checkSDKReport(t, rep, want)
		})
	}
}

// pageHost is the made-up name Chromium resolves to 127.0.0.1 for the test
// page, so the page's origin is neither a loopback name nor the server's.
const pageHost = "flocks.example"

// servePage serves the test page from its own loopback listener and returns
// the page's origin, http://flocks.example:PORT.
func servePage(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	for _, name := range []string{"page.html", "page.js"} {
		path := filepath.Join(jsClientDir, name)
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, path) })
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return "http://" + pageHost + ":" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
}

// TestBrowserWebSocket opens the test page in headless Chromium: from an
// origin in MCP_ALLOWED_ORIGINS it lists the tools and gets an animal over
// /ws; from an unlisted origin the handshake is refused with 403, even when
// the list names the same host without its port or with another scheme.
func TestBrowserWebSocket(t *testing.T) {
	watchdog(t, testLimit)
	node, chromium := needBrowser(t)
	origin := servePage(t)
	cases := []struct {
		name    string
		allowed string // MCP_ALLOWED_ORIGINS
		refused bool
	}{
		{"allowed origin", "https://breeders.example," + origin, false},
		{"unlisted origin", "http://" + pageHost + ",https" + strings.TrimPrefix(origin, "http"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, "websocket", "MCP_ALLOWED_ORIGINS="+tc.allowed)
			a := jsSubject(t, srv.Stub.Data())
			wsURL := "ws" + strings.TrimPrefix(srv.BaseURL, "http") + "/ws"
			page := origin + "/page.html?" + url.Values{"ws": {wsURL}, "lpn": {a.LPNID}}.Encode()

			var rep browserReport
			runNode(t, node, append(os.Environ(), "CHROMIUM_PATH="+chromium), &rep, srv.Stderr, "browser.mjs", "--loopback-host", pageHost, page)
			t.Logf("Chromium %s", rep.Browser)
			var res pageResult
			if err := json.Unmarshal(rep.Result, &res); err != nil {
				t.Fatalf("#result is not the page's JSON report: %s (title %q)", rep.Result, rep.Title)
			}
			if len(rep.PageErrors) > 0 {
				t.Errorf("uncaught errors in the page: %q", rep.PageErrors)
			}
			if res.Origin != origin {
				t.Errorf("page origin %q, want %q", res.Origin, origin)
			}
			if len(rep.WebSockets) != 1 {
				t.Fatalf("the page opened %d WebSockets, want 1: %+v", len(rep.WebSockets), rep.WebSockets)
			}
			ws := rep.WebSockets[0]
			if ws.URL != wsURL {
				t.Errorf("WebSocket URL %q, want %q", ws.URL, wsURL)
			}

			if tc.refused {
				if !strings.HasPrefix(rep.Title, "error: ") || res.Error == "" {
					t.Errorf("title %q, page error %q; want the page to report a refused connection", rep.Title, res.Error)
				}
				if !slices.ContainsFunc(ws.Errors, func(e string) bool { return strings.Contains(e, "403") }) {
					t.Errorf("handshake errors %q, want a 403", ws.Errors)
				}
				if ws.FramesSent != 0 || len(res.Tools) != 0 {
					t.Errorf("refused socket still carried %d frames and listed %d tools", ws.FramesSent, len(res.Tools))
				}
				return
			}

			if rep.Title != "done" {
				t.Fatalf("title %q, want done; page error %q; socket errors %q; console %q\nserver log:\n%s",
					rep.Title, res.Error, ws.Errors, rep.Console, srv.Stderr())
			}
			if res.Protocol != "mcp" {
				t.Errorf("negotiated subprotocol %q, want mcp", res.Protocol)
			}
			if got := slices.Sorted(slices.Values(res.Tools)); !slices.Equal(got, nineTools) {
				t.Errorf("tools/list named %q, want %q", got, nineTools)
			}
			if res.Animal == nil || res.Animal.IsError {
				t.Fatalf("nsip_get_animal: %+v, want a result", res.Animal)
			}
			for _, s := range append([]string{a.LPNID}, contactFields(a.Contact)...) {
				if !hasText(res.Animal.Text, s) {
					t.Errorf("nsip_get_animal text lacks %q; got:\n%.1500s", s, res.Animal.Text)
				}
			}
		})
	}
}
