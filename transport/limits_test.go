package transport

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestTricklingBodyIsCutOff(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{ReadHeaderTimeout: 200 * time.Millisecond})
	for _, path := range []string{"/mcp", "/message?sessionId=none"} {
		t.Run(path, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", path, len(initFrame))
			answer := make(chan string, 1)
			go func() { b, _ := io.ReadAll(conn); answer <- string(b) }()
			// Send nothing more: the server must give up on the body by itself.
			select {
			case got := <-answer:
				if !strings.HasPrefix(got, "HTTP/1.1 400") || !strings.Contains(got, "could not read the request body") {
					t.Fatalf("answer to a body that never arrives: %.300q, want 400 saying the body could not be read", got)
				}
			case <-time.After(testTimeout):
				t.Fatal("the server still waits for the body")
			}
		})
	}
}

// streamableInit opens a streamable HTTP session and returns its status and ID.
func streamableInit(t *testing.T, base string) (int, string) {
	t.Helper()
	status, header, _ := doRequestHeader(t, http.MethodPost, base+"/mcp", nil, []byte(initFrame))
	return status, header.Get("Mcp-Session-Id")
}

// streamablePost sends body on a session and returns status and body text.
func streamablePost(t *testing.T, base, method, session, body string) (int, string) {
	t.Helper()
	h := http.Header{"Mcp-Session-Id": {session}, "Mcp-Protocol-Version": {"2025-06-18"}}
	return doRequest(t, method, base+"/mcp", h, []byte(body))
}

func TestStreamableSessionsAreCountedCappedAndFreed(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxSessions: 2})
	s1, id1 := streamableInit(t, srv.base)
	s2, id2 := streamableInit(t, srv.base)
	if s1 != 200 || s2 != 200 || id1 == "" || id2 == "" || id1 == id2 {
		t.Fatalf("two initializes: %d %q, %d %q; want 200 with distinct session IDs", s1, id1, s2, id2)
	}
	waitSessions(t, srv.base, 2)
	status, body := postRaw(t, srv.base+"/mcp", nil, []byte(initFrame))
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "2 sessions are open") {
		t.Fatalf("third initialize: %d %s, want 503 naming the cap of 2", status, body)
	}
	if status, body := streamablePost(t, srv.base, http.MethodPost, "mcp-made-up", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusNotFound {
		t.Fatalf("a session ID the server never issued: %d %s, want 404 so the client initializes again", status, body)
	}
	if status, _ := streamablePost(t, srv.base, http.MethodDelete, id1, ""); status != http.StatusOK {
		t.Fatalf("DELETE of a session: status %d, want 200", status)
	}
	waitSessions(t, srv.base, 1)
	if status, _ := streamablePost(t, srv.base, http.MethodPost, id1, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); status != http.StatusNotFound {
		t.Fatalf("a deleted session: status %d, want 404", status)
	}
	if status, id := streamableInit(t, srv.base); status != 200 || id == "" {
		t.Fatalf("initialize after a session ended: %d %q, want a new session", status, id)
	}
}

func TestIdleStreamableSessionsExpire(t *testing.T) {
	srv := serveNetwork(t, KindHTTPSSE, newTestServer(newGate()), Options{MaxSessions: 1, SessionIdleTimeout: 50 * time.Millisecond})
	_, idle := streamableInit(t, srv.base)
	time.Sleep(100 * time.Millisecond)
	if status, id := streamableInit(t, srv.base); status != 200 || id == "" {
		t.Fatalf("initialize once the only session idled out: %d %q, want a new session", status, id)
	}
	if status, _ := streamablePost(t, srv.base, http.MethodPost, idle, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusNotFound {
		t.Fatalf("the expired session: status %d, want 404", status)
	}
}

func TestHTTPCallsPerSessionAreBounded(t *testing.T) {
	blockCall := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{"label":"%d"}}}`, id, id)
	}
	t.Run("sse", func(t *testing.T) {
		g := newGate()
		defer g.open()
		srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{MaxInFlightPerSession: 2})
		w := newSSEWire(t, srv.base).(*sseWire)
		for i := 1; i <= 2; i++ {
			if status, body := w.post(t, []byte(blockCall(i))); status != http.StatusAccepted {
				t.Fatalf("call %d within the bound: %d %s", i, status, body)
			}
			g.waitEntered(t)
		}
		status, body := w.post(t, []byte(blockCall(3)))
		if status != http.StatusTooManyRequests || !strings.Contains(string(body), "2 calls are already running on this session") {
			t.Fatalf("third call: %d %s, want 429 naming the bound", status, body)
		}
		g.open()
		for range 2 {
			if m, err := w.read(); err != nil || !strings.HasPrefix(toolText(m), "released: ") {
				t.Fatalf("answer of a bounded call: %q %v", toolText(m), err)
			}
		}
		if got := w.exchange(t, []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`), 1); len(got) != 1 || got[0].Error != nil {
			t.Fatalf("a call once the others finished: %s", describeAnswers(got))
		}
	})
	t.Run("streamable", func(t *testing.T) {
		g := newGate()
		defer g.open()
		srv := serveNetwork(t, KindHTTPSSE, newTestServer(g), Options{MaxInFlightPerSession: 2})
		_, session := streamableInit(t, srv.base)
		answers := make(chan string, 2)
		for i := 1; i <= 2; i++ {
			go func() {
				_, body := streamablePost(t, srv.base, http.MethodPost, session, blockCall(i))
				answers <- body
			}()
			g.waitEntered(t)
		}
		status, body := streamablePost(t, srv.base, http.MethodPost, session, blockCall(3))
		if status != http.StatusTooManyRequests || !strings.Contains(body, "2 calls are already running on this session") {
			t.Fatalf("third concurrent POST: %d %s, want 429 naming the bound", status, body)
		}
		g.open()
		for range 2 {
			if body := <-answers; !strings.Contains(body, "released: ") {
				t.Fatalf("answer of a bounded call: %s", body)
			}
		}
	})
}

// A client that sends calls and never reads the answers must not make the
// server hold more than a handful of goroutines for it.
func TestWebSocketClientThatNeverReadsIsBounded(t *testing.T) {
	srv := serveNetwork(t, KindWebSocket, newTestServer(newGate()), Options{MaxInFlightPerSession: 4, WriteTimeout: time.Minute})
	c := mustDialWS(t, srv.base)
	before := steadyGoroutines()
	text := strings.Repeat("r", 64<<10)
	sent := 0
	for i := range 400 {
		_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
		if c.writeJSON(map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": callParams("echo", map[string]any{"text": text})}) != nil {
			break // the server stopped reading: backpressure reached the client
		}
		sent++
	}
	if grew := steadyGoroutines() - before; grew > 4+8 {
		t.Fatalf("after %d unread calls the server holds %d more goroutines, want at most the 4 call slots and a few", sent, grew)
	}
}

// steadyGoroutines waits for the goroutine count to stop changing.
func steadyGoroutines() int {
	last := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(40 * time.Millisecond)
		if n := runtime.NumGoroutine(); n != last {
			last = n
			continue
		}
		break
	}
	return last
}
