package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	clienttransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// stdioRun is ServeStdio running on pipes. Tests in this file run one at a
// time: mcp-go has a single stdio session per process.
type stdioRun struct {
	in     *io.PipeWriter // the client's side of stdin
	out    *io.PipeReader // the client's side of stdout
	cancel context.CancelFunc
	done   chan struct{} // closed when ServeStdio has returned
	err    error         // what it returned
	mu     sync.Mutex
	raw    []string // every line the server wrote, in order
}

func startStdio(t *testing.T, s *server.MCPServer, opts Options) *stdioRun {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &stdioRun{in: inW, cancel: cancel, done: make(chan struct{})}
	// Record every line on its way to the reader so tests can check that
	// stdout carried JSON-RPC only.
	tapR, tapW := io.Pipe()
	r.out = tapR
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			r.mu.Lock()
			r.raw = append(r.raw, sc.Text())
			r.mu.Unlock()
			if _, err := fmt.Fprintln(tapW, sc.Text()); err != nil {
				break
			}
		}
		tapW.Close()
	}()
	go func() {
		r.err = ServeStdio(ctx, s, inR, outW, opts)
		outW.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		tapR.Close()
		select {
		case <-r.done:
		case <-time.After(testTimeout):
			t.Error("ServeStdio did not return")
		}
	})
	return r
}

func (r *stdioRun) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.raw...)
}

// stdioClient attaches mcp-go's client to the pipes and initializes it.
func stdioClient(t *testing.T, r *stdioRun) *client.Client {
	t.Helper()
	c := client.NewClient(clienttransport.NewIO(r.out, r.in, nil))
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "stdio-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestStdioServesToolsAndWritesOnlyJSONRPC(t *testing.T) {
	r := startStdio(t, newTestServer(newGate()), Options{})
	c := stdioClient(t, r)
	names := toolNames(t, c)
	if len(names) != 4 {
		t.Fatalf("tools/list returned %v, want the 4 test tools", names)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	got, err := callText(ctx, c, "echo", map[string]any{"text": "over stdio"})
	if err != nil || got != "echo: over stdio" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	lines := r.lines()
	if len(lines) < 3 {
		t.Fatalf("stdout had %d lines, want at least the 3 answers", len(lines))
	}
	for i, line := range lines {
		var m struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not JSON-RPC: %q", i+1, line)
		}
	}
}

func TestStdioProgressReachesClient(t *testing.T) {
	r := startStdio(t, newTestServer(newGate()), Options{})
	c := stdioClient(t, r)
	notes := make(chan mcp.JSONRPCNotification, 10)
	c.OnNotification(func(n mcp.JSONRPCNotification) { notes <- n })
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "progress"
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-stdio"}
	if _, err := c.CallTool(ctx, req); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notes:
		if n.Method != "notifications/progress" || n.Params.AdditionalFields["progressToken"] != "tok-stdio" {
			t.Fatalf("notification %s %v, want progress for tok-stdio", n.Method, n.Params.AdditionalFields)
		}
	case <-time.After(testTimeout):
		t.Fatal("no progress notification arrived")
	}
}

// rawStdio drives the pipes line by line.
type rawStdio struct {
	t  *testing.T
	r  *stdioRun
	sc *bufio.Scanner
}

// initialize performs the MCP handshake and checks its answer.
func (s *rawStdio) initialize() {
	s.t.Helper()
	s.write(stdioInit)
	if m := s.read(); string(m.ID) != `"init"` || m.Error != nil {
		s.t.Fatalf("initialize answer: %+v", m)
	}
	s.write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func newRawStdio(t *testing.T, r *stdioRun) *rawStdio {
	sc := bufio.NewScanner(r.out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &rawStdio{t: t, r: r, sc: sc}
}

func (s *rawStdio) write(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.r.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *rawStdio) read() rpcMessage {
	s.t.Helper()
	lines := make(chan string, 1)
	go func() {
		if s.sc.Scan() {
			lines <- s.sc.Text()
		}
		close(lines)
	}()
	select {
	case line, ok := <-lines:
		if !ok {
			s.t.Fatal("stdout closed")
		}
		var m rpcMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("stdout line %q: %v", line, err)
		}
		return m
	case <-time.After(testTimeout):
		s.t.Fatal("no line on stdout")
		return rpcMessage{}
	}
}

const stdioInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestStdioShutdownLetsCallsInFlightFinish(t *testing.T) {
	g := newGate()
	healthAddr := freeAddr(t)
	r := startStdio(t, newTestServer(g), Options{HealthAddr: healthAddr})
	s := newRawStdio(t, r)
	s.initialize()
	s.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{"label":"in flight"}}}`)
	g.waitEntered(t)

	r.cancel()
	waitHealthStatus(t, "http://"+healthAddr, "draining")
	// A request read after shutdown began is refused with its own id.
	s.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"late"}}}`)
	m := s.read()
	if string(m.ID) != "2" || m.Error == nil || m.Error.Code != -32000 || !strings.Contains(m.Error.Message, "shutting down") {
		t.Fatalf("late request: id %s error %+v, want id 2 refused with -32000", m.ID, m.Error)
	}
	select {
	case <-r.done:
		t.Fatalf("ServeStdio returned (%v) while a call was running", r.err)
	default:
	}
	g.open()
	m = s.read()
	if string(m.ID) != "1" || toolText(m) != "released: in flight" {
		t.Fatalf("call in flight: id %s text %q, want id 1 released", m.ID, toolText(m))
	}
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("ServeStdio returned %v, want nil", r.err)
		}
	case <-time.After(testTimeout):
		t.Fatal("ServeStdio did not return after the last call finished")
	}
}

func TestStdioReturnsWhenInputEnds(t *testing.T) {
	r := startStdio(t, newTestServer(newGate()), Options{})
	r.in.Close()
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("ServeStdio returned %v at end of input, want nil", r.err)
		}
	case <-time.After(testTimeout):
		t.Fatal("ServeStdio kept running after its input closed")
	}
}

func TestStdioRefusesOverlongLinesAndCarriesOn(t *testing.T) {
	r := startStdio(t, newTestServer(newGate()), Options{MaxBodyBytes: 256})
	s := newRawStdio(t, r)
	s.write(stdioInit)
	s.read()
	s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, strings.Repeat("y", 100_000)))
	m := s.read()
	if m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "longer than 256 bytes") {
		t.Fatalf("overlong line: error %+v, want -32600 naming the limit", m.Error)
	}
	s.write(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"short"}}}`)
	if m := s.read(); string(m.ID) != "4" || toolText(m) != "echo: short" {
		t.Fatalf("after an overlong line: id %s text %q", m.ID, toolText(m))
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitHealthStatus polls /healthz until its status is want.
func waitHealthStatus(t *testing.T, base, want string) (int, map[string]any) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	var body map[string]any
	for time.Now().Before(deadline) {
		if conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")); err == nil {
			conn.Close()
			var status int
			if status, body = getJSON(t, base+"/healthz", nil); body["status"] == want {
				return status, body
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("healthz status stayed %v, want %q", body["status"], want)
	return 0, nil
}

func TestStdioHealthListener(t *testing.T) {
	addr := freeAddr(t)
	startStdio(t, newTestServer(newGate()), Options{HealthAddr: addr, Version: "3.1.4"})
	status, body := waitHealthStatus(t, "http://"+addr, "ok")
	if status != 200 || body["transport"] != "stdio" || body["version"] != "3.1.4" || body["open_sessions"] != 1.0 {
		t.Fatalf("stdio healthz: %d %v, want 200 with transport stdio, version 3.1.4, one session", status, body)
	}
	if status, body := getJSON(t, "http://"+addr+"/readyz", nil); status != 200 || body["status"] != "ready" {
		t.Fatalf("stdio readyz: %d %v, want 200 ready", status, body)
	}
}

// A client that writes its requests and then closes stdin, as a shell pipe
// does, still gets every answer before the server returns.
func TestStdioAnswersCallsInFlightWhenInputEnds(t *testing.T) {
	g := newGate()
	r := startStdio(t, newTestServer(g), Options{})
	s := newRawStdio(t, r)
	s.initialize()
	s.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{"label":"piped"}}}`)
	g.waitEntered(t)
	r.in.Close()
	select {
	case <-r.done:
		t.Fatalf("ServeStdio returned (%v) while a call was running", r.err)
	case <-time.After(50 * time.Millisecond):
	}
	g.open()
	if m := s.read(); string(m.ID) != "1" || toolText(m) != "released: piped" {
		t.Fatalf("call in flight at end of input: id %s text %q error %+v, want id 1 released", m.ID, toolText(m), m.Error)
	}
	select {
	case <-r.done:
		if r.err != nil {
			t.Fatalf("ServeStdio returned %v, want nil", r.err)
		}
	case <-time.After(testTimeout):
		t.Fatal("ServeStdio did not return after the last call finished")
	}
}

// A notification mcp-go cannot decode (here a number past float64's
// range) is dropped unanswered on stdio as on the network transports
// (their fuzz corpora hold the same message): mcp-go would answer it with
// a parse error, which JSON-RPC forbids for a notification. The next call
// is the next line written.
func TestStdioNotificationMcpGoCannotDecodeIsNotAnswered(t *testing.T) {
	huge := strings.Repeat("9", 400)
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":` + huge + `}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":` + huge + `}}}`,
	} {
		if m := classify([]byte(line)); m.kind != msgIgnored {
			t.Errorf("%.80s: kind %d, want it dropped unanswered", line, m.kind)
		}
	}
	if m := classify([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":` + huge + `}}}`)); m.kind != msgRequest {
		t.Errorf("a call with the same number: kind %d, want it passed on to be answered", m.kind)
	}
	r := startStdio(t, newTestServer(newGate()), Options{})
	s := newRawStdio(t, r)
	s.initialize()
	s.write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":` + huge + `}}`)
	s.write(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`)
	if m := s.read(); string(m.ID) != "5" || toolText(m) != "echo: after" {
		t.Fatalf("the line after the notification: id %s error %+v text %q; want the call's answer", m.ID, m.Error, toolText(m))
	}
}
