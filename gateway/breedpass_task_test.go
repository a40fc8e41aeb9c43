package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/gateway/analysis/breedpass"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
)

// bigBreedSize is the stand-in's big breed: 150 pages, more than the
// percentiles' lookups of one call (pctLookups) hold, so a question about
// it is answered by the binary search while its pass is read in the
// background.
const bigBreedSize = 15000

// pageGate holds the requests of the big breed's pass after its first
// page, counting them as they come, until the test lets them go: one at a
// time (step), or all from then on (open).
type pageGate struct {
	mu      sync.Mutex
	arrived int
	wake    chan struct{} // closed and replaced at every arrival
	step    chan struct{}
	opened  chan struct{}
	once    sync.Once
}

func newPageGate() *pageGate {
	return &pageGate{wake: make(chan struct{}), step: make(chan struct{}), opened: make(chan struct{})}
}

// holds reports whether r is a page of the big breed's pass after its
// first: unsorted, page 1 or later.
func (g *pageGate) holds(r *http.Request) bool {
	q := r.URL.Query()
	return strings.HasSuffix(r.URL.Path, nsiptest.EndpointSearch) && q.Get("breedId") == fmt.Sprint(nsiptest.BigBreedID) &&
		q.Get("sortedBreedTrait") == "" && q.Get("page") != "0"
}

func (g *pageGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.holds(r) {
			g.mu.Lock()
			g.arrived++
			close(g.wake)
			g.wake = make(chan struct{})
			g.mu.Unlock()
			select {
			case <-g.step:
			case <-g.opened:
			}
		}
		next.ServeHTTP(w, r)
	})
}

// await returns once n pages have arrived at the gate.
func (g *pageGate) await(n int) {
	for {
		g.mu.Lock()
		got, wake := g.arrived, g.wake
		g.mu.Unlock()
		if got >= n {
			return
		}
		<-wake
	}
}

func (g *pageGate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.arrived
}

func (g *pageGate) open() { g.once.Do(func() { close(g.opened) }) }

// bigDataset is the stand-in's data (NewHandler's, built once for the
// seed and size).
func bigDataset() *nsiptest.Dataset { return nsiptest.NewDatasetWithBigBreed(7, 600, bigBreedSize) }

// bigPassEnv is newEnv over a stand-in with the big breed, whose pass's
// pages wait at the returned gate; filled receives the key of each pass
// read in the background as its read ends.
func bigPassEnv(t *testing.T, opts ...func(*Config)) (e *env, gate *pageGate, filled chan string) {
	t.Helper()
	h := nsiptest.NewHandler(nsiptest.Options{Seed: 7, Animals: 600, BigBreed: bigBreedSize})
	gate = newPageGate()
	ts := httptest.NewUnstartedServer(gate.wrap(h))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.Start()
	t.Cleanup(func() { gate.open(); h.Close(); ts.Close() })
	// The pages wait at the gate as long as the test holds them: no
	// request's own time limit ends them meanwhile.
	nc, err := nsip.NewClient(nsip.WithBaseURL(ts.URL+"/api"), nsip.WithTimeout(10*time.Minute),
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1, MaxRetryAfter: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	cfg := DefaultConfig()
	clk := cachetest.NewClock()
	cfg.Now, cfg.CallTimeout = clk.Now, 10*time.Minute
	cfg.RateLimit, cfg.RateBurst = 1000, 1000
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	for _, o := range opts {
		o(&cfg)
	}
	sum, _ := summarizer(t)
	gw, err := New(nc, sum, cfg)
	if err != nil {
		t.Fatal(err)
	}
	filled = make(chan string, 4)
	gw.passFilled = func(key string) { filled <- key }
	t.Cleanup(gw.Close)
	e = &env{t: t, gw: gw, clock: clk, logs: logs, srv: gw.NewMCPServer("nsip-mcp-test", "0.0.0")}
	return e, gate, filled
}

// passSession opens an initialized session whose client declared tasks
// support, or did not.
func passSession(t *testing.T, e *env, tasks bool) context.Context {
	t.Helper()
	s := server.NewInProcessSession(fmt.Sprintf("pass-task-%d", taskSessions.Add(1)), nil)
	if tasks {
		s.SetClientCapabilities(mcp.ClientCapabilities{Tasks: &mcp.TasksCapability{}})
	}
	if err := e.srv.RegisterSession(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Initialize()
	return e.srv.WithContext(context.Background(), s)
}

type passTaskAnswer struct {
	Percentiles struct {
		Via       string            `json:"via"`
		BreedPass map[string]string `json:"breed_pass"`
		TaskID    string            `json:"task_id"`
	} `json:"percentiles"`
}

// bigFive is the first five of the big breed's animals, found once: the
// search renders every animal of the data set, which under -race took
// about half a second, at every question these tests ask.
var bigFive = sync.OnceValue(func() []string {
	var ids []string
	d := bigDataset()
	for _, id := range d.AnimalIDs() {
		if a, _ := d.Animal(id); a.BreedID == nsiptest.BigBreedID && len(ids) < 5 {
			ids = append(ids, id)
		}
	}
	return ids
})

// askBig compares five of the big breed's animals by four traits with
// percentiles, in ctx's session.
func askBig(t *testing.T, e *env, ctx context.Context) passTaskAnswer {
	t.Helper()
	res := rpc(t, e, ctx, "tools/call", map[string]any{"name": "nsip_compare_animals", "arguments": map[string]any{
		"lpn_ids": bigFive(), "traits": []string{"BWT", "WWT", "PWWT", "YWT"}, "percentiles": true}})
	b, _ := json.Marshal(res["structuredContent"])
	var a passTaskAnswer
	if err := json.Unmarshal(b, &a); err != nil || res["isError"] == true {
		t.Fatalf("%v: %.600v", err, res)
	}
	return a
}

// rpcError sends one request and returns its JSON-RPC error's message, or
// fails if it succeeded.
func rpcError(t *testing.T, e *env, ctx context.Context, method string, params any) string {
	t.Helper()
	p, _ := json.Marshal(params)
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, time.Now().UnixNano(), method, p)
	r, ok := e.srv.HandleMessage(ctx, json.RawMessage(msg)).(mcp.JSONRPCError)
	if !ok {
		t.Fatalf("%s succeeded, want it refused", method)
	}
	return r.Error.Message
}

// A question about a breed too large for one call is answered by the
// binary search and names the task reading the breed's pass; tasks/get
// counts its pages, then shows it completed with the pass's summary, and
// the question asked again is answered from the pass.
func TestBreedPassReadAsATask(t *testing.T) {
	e, gate, filled := bigPassEnv(t)
	ctx := passSession(t, e, true)
	a := askBig(t, e, ctx)
	note := a.Percentiles.BreedPass[fmt.Sprint(nsiptest.BigBreedID)]
	if a.Percentiles.Via != "binary search" || a.Percentiles.TaskID == "" || !strings.Contains(note, a.Percentiles.TaskID) || !strings.Contains(note, "tasks/get") {
		t.Fatalf("via %q, task_id %q, breed_pass %q; want the binary search and a task to follow", a.Percentiles.Via, a.Percentiles.TaskID, note)
	}
	id := a.Percentiles.TaskID
	// NSIP's rows record no sex, so the pass reads the breed as its rams
	// and its ewes: its first page, then each half's pages. Until the
	// halves' sizes are known, the count allows for both last pages.
	males, _ := bigDataset().Search(nsiptest.BigBreedID, nsiptest.Criteria{Gender: "Male"}, "", false)
	pages := 1 + (len(males)+99)/100 + (bigBreedSize-len(males)+99)/100
	upTo := bigBreedSize/100 + 2
	// The read leaves one connection to the calls; every page it has
	// under way waits, so only the breed's first page and its rams' first
	// have been read.
	width := DefaultConfig().MaxConcurrentUpstream - 1
	gate.await(width)
	got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id})
	if got["status"] != "working" || got["statusMessage"] != fmt.Sprintf("read 2 of %d pages of breed 649", upTo) {
		t.Errorf("tasks/get while the pages wait: %v", got)
	}
	gate.step <- struct{}{}
	gate.await(width + 1) // the page let go was counted before the next was asked for
	if got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id}); got["statusMessage"] != fmt.Sprintf("read 3 of %d pages of breed 649", upTo) {
		t.Errorf("tasks/get after one more page: %v", got)
	}
	gate.open()
	if key := <-filled; key != breedpass.PassKey(nsiptest.BigBreedID, bigDataset().LastUpdated()) {
		t.Errorf("filled %q", key)
	}
	res := rpc(t, e, ctx, "tasks/result", map[string]any{"taskId": id})
	b, _ := json.Marshal(res["structuredContent"])
	var sum struct {
		Breed      int    `json:"breed"`
		Evaluation string `json:"evaluation"`
		Animals    int    `json:"animals"`
		Pages      int    `json:"pages"`
		Bytes      int64  `json:"bytes"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.Breed != nsiptest.BigBreedID || sum.Animals != bigBreedSize || sum.Pages != pages ||
		sum.Evaluation != bigDataset().LastUpdated() || sum.Bytes <= 0 {
		t.Errorf("tasks/result: %s (%v)", b, err)
	}
	if got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id}); got["status"] != "completed" {
		t.Errorf("tasks/get once read: %v", got)
	}
	again := askBig(t, e, ctx)
	if again.Percentiles.Via != "breed pass" || again.Percentiles.TaskID != "" || !strings.HasPrefix(again.Percentiles.BreedPass["649"], "kept") {
		t.Errorf("asked again: via %q, task_id %q, breed_pass %v; want the kept pass", again.Percentiles.Via, again.Percentiles.TaskID, again.Percentiles.BreedPass)
	}
}

// tasks/cancel stops the read: once it has answered, no page of the pass
// is asked of NSIP but those already waiting, and the task is cancelled.
func TestBreedPassTaskCancelStopsTheRead(t *testing.T) {
	e, gate, filled := bigPassEnv(t)
	ctx := passSession(t, e, true)
	id := askBig(t, e, ctx).Percentiles.TaskID
	if id == "" {
		t.Fatal("no task follows the read")
	}
	width := DefaultConfig().MaxConcurrentUpstream - 1 // the read leaves one connection to the calls
	gate.await(width)
	if got := rpc(t, e, ctx, "tasks/cancel", map[string]any{"taskId": id}); got["status"] != "cancelled" {
		t.Errorf("tasks/cancel: %v", got)
	}
	gate.open()
	<-filled
	if n := gate.count(); n != width {
		t.Errorf("%d pages asked for after the first, want the %d waiting when the task was cancelled", n, width)
	}
	if got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id}); got["status"] != "cancelled" {
		t.Errorf("tasks/get after cancel: %v", got)
	}
	if _, n := e.gw.passes.Size(); n != 0 {
		t.Errorf("%d passes kept from a cancelled read", n)
	}
}

// The read is its starter's task: asked again by the same caller, the
// question names the same task and starts no second read; another caller
// is told a read is under way, is not told the task, and cannot read it.
func TestBreedPassTaskIsTheStartersOwn(t *testing.T) {
	e, gate, filled := bigPassEnv(t)
	mine, theirs := passSession(t, e, true), passSession(t, e, true)
	id := askBig(t, e, mine).Percentiles.TaskID
	if id == "" {
		t.Fatal("no task follows the read")
	}
	if again := askBig(t, e, mine).Percentiles.TaskID; again != id {
		t.Errorf("asked again by its starter: task %q, want %q", again, id)
	}
	other := askBig(t, e, theirs)
	note := other.Percentiles.BreedPass["649"]
	if other.Percentiles.TaskID != "" || strings.Contains(note, id) || !strings.Contains(note, "being read in the background") {
		t.Errorf("another caller: task_id %q, breed_pass %q; want told of the read and not of the task", other.Percentiles.TaskID, note)
	}
	if msg := rpcError(t, e, theirs, "tasks/get", map[string]any{"taskId": id}); !strings.Contains(msg, "not found") {
		t.Errorf("another caller's tasks/get: %q", msg)
	}
	if got := rpc(t, e, theirs, "tasks/list", map[string]any{}); fmt.Sprint(got["tasks"]) != "[]" {
		t.Errorf("another caller's tasks/list: %v", got)
	}
	gate.open()
	<-filled
	if n := len(filled); n != 0 {
		t.Errorf("%d more reads of the pass, want one in all", n)
	}
}

// A client that did not declare tasks support still has the pass read,
// and is told it cannot follow the read, and why.
func TestBreedPassReadUnfollowed(t *testing.T) {
	e, gate, filled := bigPassEnv(t)
	a := askBig(t, e, passSession(t, e, false))
	note := a.Percentiles.BreedPass["649"]
	if a.Percentiles.TaskID != "" || !strings.Contains(note, "cannot be followed as a task: the client did not declare tasks support") {
		t.Errorf("task_id %q, breed_pass %q", a.Percentiles.TaskID, note)
	}
	gate.open()
	<-filled
	if _, n := e.gw.passes.Size(); n != 1 {
		t.Errorf("%d passes kept, want the one read: %s", n, e.logs.String())
	}
}

// A pass larger than the passes may hold fails its task with why, once
// its first page shows it; the question asked again says it is not read
// again.
func TestBreedPassTaskFailsWithWhy(t *testing.T) {
	e, _, filled := bigPassEnv(t, func(c *Config) { c.CacheMaxBytes = 400 << 10 }) // passes may hold 100 KiB
	ctx := passSession(t, e, true)
	id := askBig(t, e, ctx).Percentiles.TaskID
	if id == "" {
		t.Fatal("no task follows the read")
	}
	<-filled
	got := rpc(t, e, ctx, "tasks/get", map[string]any{"taskId": id})
	if msg, _ := got["statusMessage"].(string); got["status"] != "failed" || !strings.Contains(msg, "was read and not kept: its 15000 animals would take about") ||
		!strings.Contains(msg, "NSIP_CACHE_MAX_BYTES: raise it") {
		t.Errorf("tasks/get: %v", got)
	}
	again := askBig(t, e, ctx).Percentiles
	if note := again.BreedPass["649"]; again.TaskID != "" || !strings.Contains(note, "nor in the background: its last read was not kept") {
		t.Errorf("asked again: task_id %q, breed_pass %q", again.TaskID, note)
	}
}
