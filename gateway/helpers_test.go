package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/cache/cachetest"
	"github.com/nsip-tools/nsip-mcp/gateway/calllog"
	"github.com/nsip-tools/nsip-mcp/gateway/lookup"
	"github.com/nsip-tools/nsip-mcp/gateway/param"
	"github.com/nsip-tools/nsip-mcp/gateway/toolerr"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport/rpctest"
)

var (
	sharedSumOnce sync.Once
	sharedSum     *summarize.Summarizer
	sharedCounter *summarize.Counter
	sharedSumErr  error
)

// summarizer loads cl100k_base once for the whole package's tests.
func summarizer(t testing.TB) (*summarize.Summarizer, *summarize.Counter) {
	t.Helper()
	sharedSumOnce.Do(func() {
		sharedCounter, sharedSumErr = summarize.NewCounter()
		if sharedSumErr == nil {
			sharedSum = summarize.New(sharedCounter)
		}
	})
	if sharedSumErr != nil {
		t.Fatalf("summarize.NewCounter: %v", sharedSumErr)
	}
	return sharedSum, sharedCounter
}

// animalMemo keeps each data set's animals as Dataset.Animal returns them.
// It renders an animal's lineage fragment afresh at every call, and the
// tests' brute force (pedigree walks, percentiles counted over a breed)
// asks for the same animals thousands of times: under -race that
// rendering, not the gateway, was most of those tests' time. A data set
// never changes (the texts a test has the stand-in send instead are its
// server's, not the data set's), so each animal is rendered once per data
// set and shared, read-only, by every test.
var animalMemo sync.Map // animalKey -> nsiptest.Animal

type animalKey struct {
	d  *nsiptest.Dataset
	id string
}

// standIn is d.Animal(id), the zero Animal for an unknown ID.
func standIn(d *nsiptest.Dataset, id string) nsiptest.Animal {
	k := animalKey{d, id}
	if a, ok := animalMemo.Load(k); ok {
		return a.(nsiptest.Animal)
	}
	a, _ := d.Animal(id)
	animalMemo.Store(k, a)
	return a
}

// env is a gateway wired to the stand-in upstream through the real client,
// served by an MCP server and driven by mcp-go's in-process client.
type env struct {
	t      testing.TB
	up     *nsiptest.Server
	gw     *Gateway
	srv    *server.MCPServer
	client *client.Client
	clock  *cachetest.Clock
	logs   *logbuf.Buffer
}

type envOption func(*Config, *[]nsip.Option)

func withConfig(f func(*Config)) envOption {
	return func(c *Config, _ *[]nsip.Option) { f(c) }
}

// smallBudget is the budget of tests that need a profile or a lineage
// summarized: NSIP's live answers are lean (progeny rows of three
// members, four generations of lineage), so a profile of the stand-in's
// most prolific ram is about 1,400 tokens, under the default 2,000, and
// its summary needs about 1,200.
const smallBudget = 1300

// withSmallBudget gives the server smallBudget as its default budget.
func withSmallBudget() envOption {
	return withConfig(func(c *Config) { c.Budget = smallBudget })
}

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	up := nsiptest.NewServer(t, nsiptest.Options{Seed: 7, Animals: 1500})
	clientOpts := []nsip.Option{
		nsip.WithBaseURL(up.URL()),
		// One attempt per call, so request counts are exact; retries are the
		// client's business and tested there.
		nsip.WithRetryPolicy(nsip.RetryPolicy{MaxAttempts: 1, MaxRetryAfter: time.Second}),
	}
	clk := cachetest.NewClock()
	logs := &logbuf.Buffer{}
	cfg := DefaultConfig()
	cfg.Now = clk.Now
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.RateLimit, cfg.RateBurst = 1000, 1000 // tests that need the limiter set their own
	// The tests count events; on a loaded machine under -race a large
	// summary can take longer than the default limit, which must not turn
	// into a timeout there. Tests of deadlines set their own.
	cfg.CallTimeout = 10 * time.Minute
	for _, o := range opts {
		o(&cfg, &clientOpts)
	}
	clientOpts = append(clientOpts, nsip.WithRequestHook(calllog.UpstreamHook(cfg.Logger)))
	nc, err := nsip.NewClient(clientOpts...)
	if err != nil {
		t.Fatalf("nsip.NewClient: %v", err)
	}
	sum, _ := summarizer(t)
	gw, err := New(nc, sum, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e := &env{t: t, up: up, gw: gw, clock: clk, logs: logs}
	e.srv = gw.NewMCPServer("nsip-mcp-test", "0.0.0")
	e.client = connect(t, e.srv)
	return e
}

// connect starts an initialized in-process client session.
func connect(t testing.TB, srv *server.MCPServer) *client.Client {
	t.Helper()
	c, _ := rpctest.Connect(t, srv, "")
	return c
}

// reply is a tool result as a user sees it.
type reply struct {
	text    string
	isError bool
	meta    map[string]any
	links   []mcp.ResourceLink
	// structured is the result's structuredContent as sent, which
	// callTool has checked against the tool's outputSchema.
	structured json.RawMessage
}

// errorBody decodes the {"error":{...}} body of an IsError result, refusing
// fields the contract does not have.
func (r reply) errorBody(t *testing.T) toolerr.Error {
	t.Helper()
	if !r.isError {
		t.Fatalf("expected an error result, got %.300s", r.text)
	}
	var body struct {
		Error *toolerr.Error `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(r.text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error == nil {
		t.Fatalf("error result is not {\"error\":{...}}: %v: %s", err, r.text)
	}
	return *body.Error
}

// exampleOf is an error's example call as the object a client reads:
// numbers as float64, nil for none.
func exampleOf(c *param.Call) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(c.String()), &m); err != nil {
		panic(err)
	}
	return m
}

func (e *env) call(name string, args any) reply {
	e.t.Helper()
	return callTool(e.t, e.client, name, args)
}

func callTool(t testing.TB, c *client.Client, name string, args any) reply {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("CallTool(%s, %v): protocol error %v", name, args, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("CallTool(%s): no content", name)
	}
	// One text block, then perhaps resource links beside a summary's next call.
	var links []mcp.ResourceLink
	for _, c := range res.Content[1:] {
		l, ok := c.(mcp.ResourceLink)
		if !ok {
			t.Fatalf("CallTool(%s): content after the text is %T, want resource links only", name, c)
		}
		links = append(links, l)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("CallTool(%s): content is %T, want text", name, res.Content[0])
	}
	checkStructured(t, name, res, tc.Text)
	r := reply{text: tc.Text, isError: res.IsError, links: links, structured: res.RawStructuredContent}
	if res.Meta != nil {
		r.meta = res.Meta.AdditionalFields
	}
	return r
}

// mustOK fails unless r is a successful result.
func (r reply) mustOK(t testing.TB) reply {
	t.Helper()
	if r.isError {
		t.Fatalf("unexpected error result: %s", r.text)
	}
	return r
}

func (r reply) metaInt(t *testing.T, key string) int {
	t.Helper()
	f, ok := r.meta[key].(float64)
	if !ok {
		t.Fatalf("_meta.%s = %#v, want a number (meta %v)", key, r.meta[key], r.meta)
	}
	return int(f)
}

// upstreamBody fetches an endpoint directly from the stand-in and compacts
// it: what a pass-through answer must equal. It resets the counters after.
func (e *env) upstreamBody(method, path, body string) string {
	e.t.Helper()
	req, err := http.NewRequest(method, e.up.URL()+"/"+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		e.t.Fatalf("upstream body is not JSON: %v", err)
	}
	e.up.ResetCounts()
	return out.String()
}

// analysisNamed is the served analysis called name.
func analysisNamed(t testing.TB, name string) *analysisEntry {
	t.Helper()
	for _, a := range analyses {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no analysis %s", name)
	return nil
}

// toolOf is the lookup tool d as the call path serves it.
func toolOf(d *lookup.Def) *toolDef { return toolNamed(d.Name) }

// validLookup is sent validated as a user's call of lookup d is, failing
// the test on any problem.
func validLookup(t testing.TB, d *lookup.Def, sent map[string]any) param.Valid {
	t.Helper()
	args, errs := d.Args.Validate(param.SentOf(sent))
	if len(errs) > 0 {
		t.Fatalf("%s %v: %v", d.Name, sent, errs)
	}
	return args
}
