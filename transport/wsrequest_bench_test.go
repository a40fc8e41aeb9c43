package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// BenchmarkWebSocketElicitationRoundTrip times a tool call that asks the
// client one question over /ws (call, elicitation/create, the client's
// answer, the result) against a call on the same connection that asks
// nothing, alternating the two so both see the same machine load.
func BenchmarkWebSocketElicitationRoundTrip(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeWebSocket(ctx, newAskingServer(nil), Options{Listener: ln, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	defer func() { cancel(); <-done }()
	conn, _, err := websocket.DefaultDialer.Dial("ws://"+ln.Addr().String()+"/ws", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	send := func(v string) {
		if err := conn.WriteMessage(websocket.TextMessage, []byte(v)); err != nil {
			b.Fatal(err)
		}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	next := func() {
		m.ID, m.Method, m.Result = nil, "", nil
		if err := conn.ReadJSON(&m); err != nil {
			b.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"bench","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	var asking, plain time.Duration
	id := 0
	for b.Loop() {
		id++
		t0 := time.Now()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{"what":"elicit"}}}`, id))
		for next(); m.Method != "elicitation/create"; next() {
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"breed":"Katahdin"}}}`, m.ID))
		for next(); string(m.ID) != fmt.Sprint(id); next() {
		}
		t1 := time.Now()
		id++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{"what":"none"}}}`, id))
		for next(); string(m.ID) != fmt.Sprint(id); next() {
		}
		asking += t1.Sub(t0)
		plain += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(asking.Microseconds())/n, "µs-asking/op")
	b.ReportMetric(float64(plain.Microseconds())/n, "µs-plain/op")
	b.ReportMetric(float64(asking)/float64(plain), "asking/plain")
}
