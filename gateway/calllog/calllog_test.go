package calllog

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest/logbuf"
	"github.com/nsip-tools/nsip-mcp/transport/caller"
)

func jsonLogger(level slog.Level) (*slog.Logger, *logbuf.Buffer) {
	b := &logbuf.Buffer{}
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: level})), b
}

// attrs is a log line's attributes by key.
func attrs(as []slog.Attr) map[string]any {
	m := map[string]any{}
	for _, a := range as {
		m[a.Key] = a.Value.Any()
	}
	return m
}

// fakeSession is an MCP session with an ID and nothing else.
type fakeSession struct{ id string }

func (fakeSession) Initialize()                                         {}
func (fakeSession) Initialized() bool                                   { return true }
func (fakeSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s fakeSession) SessionID() string                                 { return s.id }

func inSession(ctx context.Context, id string) context.Context {
	return server.NewMCPServer("t", "0").WithContext(ctx, fakeSession{id})
}

var idShape = regexp.MustCompile(`^[0-9a-f]{16}$`)

// A call gets a 16-hex-digit ID once: work it starts keeps that ID, and
// outside a call there is none.
func TestCallIDIsGivenOnce(t *testing.T) {
	if id := ID(context.Background()); id != "" {
		t.Errorf("ID outside a call = %q", id)
	}
	ctx := With(context.Background())
	id := ID(ctx)
	if !idShape.MatchString(id) {
		t.Fatalf("call ID %q; want 16 hex digits", id)
	}
	if inner := With(ctx); inner != ctx || ID(inner) != id {
		t.Errorf("a call inside a call got ID %q, want the outer %q", ID(inner), id)
	}
	if other := ID(With(context.Background())); other == id {
		t.Errorf("two calls share ID %s", id)
	}
}

type valueKey struct{}

// A detached context keeps the call's record but not its deadline,
// cancellation or other values; outside a call it is the background.
func TestDetachKeepsOnlyTheCall(t *testing.T) {
	if ctx := Detach(context.Background()); ctx != context.Background() {
		t.Error("detaching outside a call is not the background context")
	}
	ctx, cancel := context.WithTimeout(context.WithValue(With(context.Background()), valueKey{}, 1), time.Hour)
	cancel()
	d := Detach(ctx)
	if d.Err() != nil || d.Value(valueKey{}) != nil {
		t.Errorf("detached context: err %v, value %v; want neither", d.Err(), d.Value(valueKey{}))
	}
	if _, ok := d.Deadline(); ok {
		t.Error("detached context kept the deadline")
	}
	if ID(d) != ID(ctx) {
		t.Errorf("detached ID %q, want the call's %q", ID(d), ID(ctx))
	}
}

// Each request to NSIP is logged at debug under its call's ID and counted
// in the call's line: attempts and the last status leave out probes of the
// base URL, whose time counts all the same.
func TestUpstreamRequestsAreLoggedAndCounted(t *testing.T) {
	log, logs := jsonLogger(slog.LevelDebug)
	hook := UpstreamHook(log)
	ctx := With(context.Background())
	hook(ctx, nsip.RequestInfo{Method: "GET", Endpoint: "details/getAnimalDetails", Attempt: 1, Status: 503,
		Latency: 1500 * time.Microsecond, Err: errors.New("NSIP answered 503")})
	hook(ctx, nsip.RequestInfo{Method: "GET", Endpoint: "search/getDateLastUpdated", Status: 200, Latency: time.Millisecond, Probe: true})
	hook(ctx, nsip.RequestInfo{Method: "GET", Endpoint: "details/getAnimalDetails", Attempt: 2, Status: 200, Latency: 2 * time.Millisecond})
	hook(context.Background(), nsip.RequestInfo{Method: "POST", Endpoint: "search/getPageOfSearchResults", Attempt: 1, Status: 200})

	lines := logs.Records(t)
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4: %v", len(lines), lines)
	}
	first := lines[0]
	if first["msg"] != "nsip request" || first["level"] != "DEBUG" || first["call_id"] != ID(ctx) || first["method"] != "GET" ||
		first["endpoint"] != "get_animal_details" || first["status"] != 503.0 || first["attempt"] != 1.0 ||
		first["latency_ms"] != 1.5 || first["error"] != "NSIP answered 503" || first["probe"] != nil {
		t.Errorf("first request line = %v", first)
	}
	if lines[1]["probe"] != true || lines[1]["error"] != nil {
		t.Errorf("probe line = %v; want probe true and no error", lines[1])
	}
	if lines[3]["call_id"] != "" {
		t.Errorf("a request outside any call logged call_id %v", lines[3]["call_id"])
	}

	got := attrs(Attrs(ctx, nil))
	if got["call_id"] != ID(ctx) || got["upstream_attempts"] != int64(2) || got["upstream_status"] != int64(200) || got["upstream_ms"] != 4.5 {
		t.Errorf("call line attributes = %v; want 2 attempts, status 200, 4.5 ms", got)
	}
}

// Above debug the requests are counted but not logged.
func TestUpstreamRequestsCountedWhenNotLogged(t *testing.T) {
	log, logs := jsonLogger(slog.LevelInfo)
	ctx := With(context.Background())
	UpstreamHook(log)(ctx, nsip.RequestInfo{Method: "GET", Endpoint: "x", Attempt: 1, Status: 404})
	if lines := logs.Records(t); len(lines) != 0 {
		t.Errorf("logged at info: %v", lines)
	}
	if got := attrs(Attrs(ctx, nil)); got["upstream_attempts"] != int64(1) || got["upstream_status"] != int64(404) {
		t.Errorf("call line attributes = %v; want the one attempt and its 404", got)
	}
}

// A call's line names who called and, for an analysis, the lookups its
// _meta.upstream counts; a call that asked NSIP nothing has no status or
// time, and a context outside any call carries no call ID.
func TestCallLineAttributes(t *testing.T) {
	ctx := With(inSession(context.Background(), "s1"))
	got := attrs(Attrs(ctx, &Reads{Lookups: 3, Fetched: 1, Cached: 2}))
	want := map[string]any{"lookups": int64(3), "fetched": int64(1), "cached": int64(2), "client": "session:s1", "session": "s1",
		"call_id": ID(ctx), "upstream_attempts": int64(0)}
	if len(got) != len(want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	out := attrs(Attrs(caller.WithRequest(context.Background(), caller.Address("192.0.2.7")), nil))
	if len(out) != 1 || out["client"] != "addr:192.0.2.7" {
		t.Errorf("outside a call and a session: %v; want only the client", out)
	}
	if local := attrs(Attrs(inSession(context.Background(), ""), nil)); local["client"] != "local" || local["session"] != nil {
		t.Errorf("a session without an ID: %v; want the local client and no session", local)
	}
}

// Sessions opening and closing are logged, naming the client a transport
// recorded when it did.
func TestSessionsOpeningAndClosingAreLogged(t *testing.T) {
	log, logs := jsonLogger(slog.LevelInfo)
	h := &server.Hooks{}
	SessionHooks(h, log)
	ctx := caller.WithRequest(context.Background(), caller.TokenAt("ab12", "192.0.2.7"))
	for _, f := range h.OnRegisterSession {
		f(ctx, fakeSession{"s1"})
		f(context.Background(), fakeSession{"s2"})
	}
	for _, f := range h.OnUnregisterSession {
		f(context.Background(), fakeSession{"s1"})
	}
	lines := logs.Records(t)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3: %v", len(lines), lines)
	}
	if l := lines[0]; l["msg"] != "session opened" || l["session"] != "s1" || l["client"] != "token:ab12@192.0.2.7" {
		t.Errorf("first line = %v", l)
	}
	if l := lines[1]; l["msg"] != "session opened" || l["session"] != "s2" || l["client"] != nil {
		t.Errorf("second line = %v; want no client", l)
	}
	if l := lines[2]; l["msg"] != "session closed" || l["session"] != "s1" {
		t.Errorf("third line = %v", l)
	}
}
