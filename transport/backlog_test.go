package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway/full"
)

// The attack these tests stand for: a client asks for a 1.2 MB full-answer
// link again and again and reads none of the responses, so that each one
// holds the server's memory, and the time it took to make, until it is
// written out. The server must hold a client's unread answers only up to a
// bound, refusing its further reads meanwhile, and go on serving others.

// attackerIP is a second loopback address, so that the attacker is another
// client than the honest one on 127.0.0.1.
const attackerIP = "127.0.0.2"

// linkTable is about 1.2 MB as JSON.
func linkTable() *full.Table {
	t := &full.Table{Columns: []string{"lpn_id", "notes"}}
	pad := strings.Repeat("n", 190)
	for i := range 6000 {
		t.Rows = append(t.Rows, []any{fmt.Sprintf("6400%012d", i), pad})
	}
	return t
}

// newLinkServer serves the "link" tool, which gives its caller a link to
// linkTable, and the full-answer resources; each read, served or refused,
// is counted on reads once it is decided.
func newLinkServer(store *full.Store, reads chan<- error) *server.MCPServer {
	s := server.NewMCPServer("transport-test", "1.0.0", server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false))
	tab := linkTable()
	s.AddTool(mcp.NewTool("link", mcp.WithDescription("Link a large table")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			l := store.Offer(ctx, full.Data{Size: tab.Size(), Build: func() (*full.Table, error) { return tab, nil }})
			return mcp.NewToolResultText(l.JSON), nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo text back"), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	tmpl := store.ResourceTemplate()
	s.AddResourceTemplate(tmpl.Template, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		out, err := tmpl.Handler(ctx, req)
		reads <- err
		return out, err
	})
	return s
}

// smallBuffers is a listener whose connections buffer little of what the
// server writes, so that an answer the client does not read stays with the
// server, as it does on a real network once the buffers fill.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

func smallListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return smallBuffers{ln}
}

// dialSmall opens a connection from ip that buffers little of what it is
// sent.
func dialSmall(t *testing.T, ip, addr string, small bool) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: testTimeout}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from %s (loopback beyond 127.0.0.1 unavailable): %v", ip, err)
	}
	if small {
		_ = c.(*net.TCPConn).SetReadBuffer(4 << 10)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var linkURI = regexp.MustCompile(`nsip://full/[0-9a-f]+\.json`)

// rawPost sends one streamable HTTP request on c and returns the start of
// the answer: enough to tell a result from an error, the rest left unread.
func rawPost(t *testing.T, c net.Conn, session, body string) string {
	t.Helper()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", session, len(body), body)
	_ = c.SetReadDeadline(time.Now().Add(testTimeout))
	var got []byte
	buf := make([]byte, 2048)
	for !bytes.Contains(got, []byte(`"result"`)) && !bytes.Contains(got, []byte(`"error"`)) {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("reading the start of an answer: %v (read %q)", err, got)
		}
	}
	// An error is small: read it whole, for its message.
	if bytes.Contains(got, []byte(`"error"`)) {
		r := bufio.NewReader(io.MultiReader(bytes.NewReader(got), c))
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	return string(got)
}

// unreadBytes reads the figure of unread bytes a refusal names.
var unreadBytes = regexp.MustCompile(`earlier answers \((\d+) bytes\) are still unread`)

func readFrame(id int, uri string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, id, uri)
}

// Over HTTP the answers go unread two ways: with small socket buffers a
// handler blocks writing; with the kernel's own, the handler writes its
// answer whole into the connection's buffer and returns, and the answer
// lies there unacknowledged (Linux tells how much; elsewhere the account
// ends with the handler).
func TestHTTPClientThatNeverReadsItsLinksIsBounded(t *testing.T) {
	t.Run("blocked handlers", func(t *testing.T) { testUnreadHTTP(t, smallListener(t), true) })
	t.Run("kernel buffers", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("how much of a response the client has not acknowledged is read on Linux only")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		testUnreadHTTP(t, ln, false)
	})
}

func testUnreadHTTP(t *testing.T, ln net.Listener, small bool) {
	store := full.New(full.Config{})
	reads := make(chan error, 64)
	srv := serveNetwork(t, KindHTTPSSE, newLinkServer(store, reads), Options{Listener: ln})

	// The attacker's session and link, from its own address.
	hc := dialFrom(t, attackerIP)
	session := httpInitFrom(t, hc, srv.base)
	uri := linkURI.FindString(httpPostFrom(t, hc, srv.base, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"link","arguments":{}}}`))
	if uri == "" {
		t.Fatal("the link tool gave no link")
	}

	// Twelve reads, each on its own connection, none read beyond its
	// first bytes: each served one stays held by its handler.
	const attempts = 12
	served, refused := 0, 0
	for i := range attempts {
		c := dialSmall(t, attackerIP, srv.addr, small)
		got := rawPost(t, c, session, readFrame(10+i, uri))
		<-reads
		switch {
		case strings.Contains(got, `"result"`):
			served++
		case strings.Contains(got, "still unread") && strings.Contains(got, uri) && strings.Contains(got, "NSIP_FULL_UNREAD_MAX_BYTES") && strings.Contains(got, "retry"):
			refused++
			m := unreadBytes.FindStringSubmatch(got)
			var n int64
			if m != nil {
				_, _ = fmt.Sscan(m[1], &n)
			}
			if n <= 0 || n > unreadBound {
				t.Errorf("refusal %d names %d unread bytes, want some, within the bound of %d: %s", i, n, unreadBound, got)
			}
		default:
			t.Fatalf("read %d answered %.300s", i, got)
		}
	}
	// About 1.2 MB each, within the default 4 MiB: three, or, with
	// what the client's own buffer took counted as read, four.
	if served < 1 || served > 4 || refused != attempts-served {
		t.Fatalf("of %d unread reads of a 1.2 MB link, %d served and %d refused; want at most 4 served (4 MiB) and the rest refused", attempts, served, refused)
	}

	// Meanwhile another client is served, its own link read included.
	honest := newHTTPClient(t)
	hs := httpInitFrom(t, honest, srv.base)
	if got := httpPostFrom(t, honest, srv.base, hs, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ewe"}}}`); !strings.Contains(got, "echo: ewe") {
		t.Fatalf("honest call: %.300s", got)
	}
	own := linkURI.FindString(httpPostFrom(t, honest, srv.base, hs, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"link","arguments":{}}}`))
	// A client that reads what it asks for is never refused: its answers
	// leave its account as it takes them.
	for i := range 5 {
		if got := httpPostFrom(t, honest, srv.base, hs, readFrame(4+i, own)); !strings.Contains(got, `"result"`) || len(got) < 1<<20 {
			t.Fatalf("the honest client's read %d of its own link: %.300s", i, got)
		}
		<-reads
	}
}

// httpInitFrom opens a streamable HTTP session with hc.
func httpInitFrom(t *testing.T, hc *http.Client, base string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(initFrame))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	return id
}

// httpPostFrom sends body on session with hc and returns the whole answer.
func httpPostFrom(t *testing.T, hc *http.Client, base, session, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestWebSocketClientThatNeverReadsItsLinksIsBounded(t *testing.T) {
	store := full.New(full.Config{})
	reads := make(chan error, 64)
	srv := serveNetwork(t, KindWebSocket, newLinkServer(store, reads), Options{Listener: smallListener(t), WriteTimeout: time.Minute})

	d := websocket.Dialer{HandshakeTimeout: testTimeout, Subprotocols: []string{"mcp"}, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		// The client's own buffer is left to the kernel: it grows only
		// as the client reads, and this one reads nothing until the end.
		nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(attackerIP)}}
		return nd.DialContext(ctx, network, addr)
	}}
	conn, resp, err := d.Dial(wsURL(srv.base), nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	attacker := &wsClient{t: t, conn: conn}
	if err := attacker.handshake(); err != nil {
		t.Fatal(err)
	}
	link, err := attacker.call("tools/call", callParams("link", map[string]any{}))
	uri := linkURI.FindString(toolText(link))
	if err != nil || uri == "" {
		t.Fatalf("the link tool: %q %v", toolText(link), err)
	}

	// Twelve reads sent at once; the answers are read only once every
	// read has been decided.
	const attempts = 12
	for range attempts {
		if _, err := attacker.send("resources/read", map[string]any{"uri": uri}); err != nil {
			t.Fatal(err)
		}
	}
	for range attempts {
		<-reads
	}

	// Meanwhile another client is served, its own link read included.
	honest := mustDialWS(t, srv.base)
	if m, err := honest.call("tools/call", callParams("echo", map[string]any{"text": "ewe"})); err != nil || toolText(m) != "echo: ewe" {
		t.Fatalf("honest call: %q %v", toolText(m), err)
	}
	own, err := honest.call("tools/call", callParams("link", map[string]any{}))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := honest.call("resources/read", map[string]any{"uri": linkURI.FindString(toolText(own))}); err != nil || m.Error != nil || len(m.Result) < 1<<20 {
		t.Fatalf("the honest client's own read: %d bytes, %v %v", len(m.Result), m.Error, err)
	}
	<-reads

	served, refused := 0, 0
	for range attempts {
		m, err := attacker.read()
		if err != nil {
			t.Fatalf("after %d served and %d refused: %v", served, refused, err)
		}
		switch {
		case m.Error == nil:
			served++
		case strings.Contains(m.Error.Message, "still unread") && strings.Contains(m.Error.Message, uri):
			refused++
			var n int64
			if s := unreadBytes.FindStringSubmatch(m.Error.Message); s != nil {
				_, _ = fmt.Sscan(s[1], &n)
			}
			if n <= 0 || n > unreadBound {
				t.Errorf("a refusal names %d unread bytes, want some, within the bound of %d: %s", n, unreadBound, m.Error.Message)
			}
		default:
			b, _ := json.Marshal(m)
			t.Fatalf("a read answered %.300s", b)
		}
	}
	if served < 1 || served > 3 || refused != attempts-served {
		t.Fatalf("of %d unread reads of a 1.2 MB link, %d served and %d refused; want at most 3 served (4 MiB) and the rest refused", attempts, served, refused)
	}
}

// unreadBound is gateway/full's default bound on a client's unread
// answers.
const unreadBound = 4 << 20

// A client's account counts each open call's larger of its hold and its
// written bytes, refuses a hold past the limit only when something else is
// unread, and is gone once every call has ended.
func TestBacklogAccount(t *testing.T) {
	var b backlogs
	const limit = 1000
	first, second := b.open("addr:a"), b.open("addr:a")
	other := b.open("addr:b")
	if unread, ok := first.Hold(1500, limit); !ok || unread != 0 {
		t.Fatalf("a hold over the limit with nothing unread: %d %v, want served", unread, ok)
	}
	first.wrote(1600) // more than held: the written bytes count
	if got := b.unread("addr:a"); got != 1600 {
		t.Fatalf("unread %d after a 1,500-byte hold and 1,600 bytes written, want 1600", got)
	}
	if unread, ok := second.Hold(10, limit); ok || unread != 1600 {
		t.Fatalf("a hold while 1,600 bytes lie unread: %d %v, want refused naming 1600", unread, ok)
	}
	if _, ok := other.Hold(900, limit); !ok {
		t.Fatal("another client's hold was refused")
	}
	first.release()
	first.release() // twice does nothing
	if unread, ok := second.Hold(400, limit); !ok || unread != 0 || b.unread("addr:a") != 400 {
		t.Fatalf("a hold once the first answer was taken: %d %v, account %d", unread, ok, b.unread("addr:a"))
	}
	second.release()
	other.release()
	if len(b.clients) != 0 {
		t.Fatalf("%d accounts left after every call ended", len(b.clients))
	}
}

func TestSSEClientThatNeverReadsItsLinksIsBounded(t *testing.T) {
	store := full.New(full.Config{})
	reads := make(chan error, 64)
	srv := serveNetwork(t, KindHTTPSSE, newLinkServer(store, reads), Options{Listener: smallListener(t)})

	// The attacker's stream, from its own address, read only as far as
	// the link.
	conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(attackerIP)}, Timeout: testTimeout}).Dial("tcp", srv.addr)
	if err != nil {
		t.Skipf("cannot dial from %s: %v", attackerIP, err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
	_ = conn.SetReadDeadline(time.Now().Add(testTimeout))
	stream := bufio.NewReader(conn)
	next := func() string { // the next data line
		t.Helper()
		for {
			line, err := stream.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				return strings.TrimSpace(d)
			}
		}
	}
	endpoint := srv.base + next()
	hc := dialFrom(t, attackerIP)
	post := func(body string) {
		t.Helper()
		resp, err := hc.Post(endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %.100s: status %d", body, resp.StatusCode)
		}
	}
	post(initFrame)
	next()
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"link","arguments":{}}}`)
	uri := linkURI.FindString(next())
	if uri == "" {
		t.Fatal("the link tool gave no link")
	}

	// Twelve reads; the stream is read again only once every read has
	// been decided.
	const attempts = 12
	for i := range attempts {
		post(readFrame(10+i, uri))
	}
	for range attempts {
		<-reads
	}

	// Meanwhile another client is served.
	honest := newSSEWire(t, srv.base).(*sseWire)
	if got := honest.exchangeOne(t, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ewe"}}}`)); len(got) != 1 || toolText(got[0]) != "echo: ewe" {
		t.Fatalf("honest call: %s", describeAnswers(got))
	}

	served, refused := 0, 0
	for range attempts {
		var m rpcMessage
		if err := json.Unmarshal([]byte(next()), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Error == nil:
			served++
		case strings.Contains(m.Error.Message, "still unread") && strings.Contains(m.Error.Message, uri):
			refused++
			var n int64
			if s := unreadBytes.FindStringSubmatch(m.Error.Message); s != nil {
				_, _ = fmt.Sscan(s[1], &n)
			}
			if n <= 0 || n > unreadBound {
				t.Errorf("a refusal names %d unread bytes, want some, within the bound of %d: %s", n, unreadBound, m.Error.Message)
			}
		default:
			t.Fatalf("a read answered %s", m.Error.Message)
		}
	}
	if served < 1 || served > 3 || refused != attempts-served {
		t.Fatalf("of %d unread reads of a 1.2 MB link, %d served and %d refused; want at most 3 served (4 MiB) and the rest refused", attempts, served, refused)
	}
}
