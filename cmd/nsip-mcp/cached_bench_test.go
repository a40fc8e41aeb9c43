package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport"
)

// BenchmarkCachedCallOverTransport is one cached nsip_get_animal call per
// iteration through the server as serve wires it (client, gateway,
// summarizer) and a network transport, client and server in this process.
// It is the call path to profile:
//
//	go test ./cmd/nsip-mcp -run '^$' -bench CachedCallOverTransport -cpuprofile cpu.out
func BenchmarkCachedCallOverTransport(b *testing.B) {
	up := nsiptest.Start(nsiptest.Options{Seed: 11, Animals: 600})
	defer up.Close()
	lpn := up.Data().MostProgeny()
	for _, tr := range []struct {
		name  string
		serve func(context.Context, *server.MCPServer, transport.Options) error
		dial  func(b *testing.B, base string) func(id int, msg []byte) []byte
	}{
		{"websocket", serveWS, dialBenchWS},
		{"streamable", serveHTTP, dialBenchStreamable},
	} {
		b.Run(tr.name, func(b *testing.B) {
			s := newBenchGateway(b, up.URL())
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- tr.serve(ctx, s, transport.Options{Listener: ln, Logger: slog.New(slog.DiscardHandler), ShutdownTimeout: time.Second})
			}()
			defer func() { cancel(); <-done }()
			call := tr.dial(b, "http://"+ln.Addr().String())
			msg := func(id int) []byte {
				return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"nsip_get_animal","arguments":{"search_string":"` + lpn + `"}}}`)
			}
			for id := 1; id <= 2; id++ { // the first call fills the cache
				if got := call(id, msg(id)); !bytes.Contains(got, []byte(`"cache":"`)) {
					b.Fatalf("warm-up: %.300s", got)
				}
			}
			b.ReportAllocs()
			id := 3
			for b.Loop() {
				if got := call(id, msg(id)); !bytes.Contains(got, []byte(`"cache":"hit"`)) {
					b.Fatalf("not a hit: %.300s", got)
				}
				id++
			}
		})
	}
}

func serveWS(ctx context.Context, s *server.MCPServer, o transport.Options) error {
	return transport.ServeWebSocket(ctx, s, o)
}

func serveHTTP(ctx context.Context, s *server.MCPServer, o transport.Options) error {
	return transport.ServeHTTPSSE(ctx, s, o)
}

// newBenchGateway is serve's wiring with the rate limit lifted.
func newBenchGateway(b *testing.B, upstream string) *server.MCPServer {
	client, err := nsip.NewClient(nsip.WithBaseURL(upstream))
	if err != nil {
		b.Fatal(err)
	}
	counter := summarize.StartCounter()
	if err := counter.Err(); err != nil {
		b.Fatal(err)
	}
	cfg := gateway.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e6, 1e6
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.New(client, summarize.New(counter), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return g.NewMCPServer("nsip-mcp", "bench")
}

const benchInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

func dialBenchWS(b *testing.B, base string) func(int, []byte) []byte {
	d := websocket.Dialer{Subprotocols: []string{"mcp"}}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
	if resp != nil {
		resp.Body.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	rt := func(id int, msg []byte) []byte {
		if err := conn.WriteMessage(websocket.TextMessage, msg); err != nil {
			b.Fatal(err)
		}
		want := []byte(`"id":` + strconv.Itoa(id) + `,`)
		for {
			_, got, err := conn.ReadMessage()
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(got, want) {
				return got
			}
		}
	}
	rt(0, []byte(benchInit))
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		b.Fatal(err)
	}
	return rt
}

func dialBenchStreamable(b *testing.B, base string) func(int, []byte) []byte {
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	session := ""
	post := func(_ int, msg []byte) []byte {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode >= 300 {
			b.Fatal(fmt.Errorf("POST /mcp: %s %v: %.300s", resp.Status, err, body))
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		return body
	}
	post(0, []byte(benchInit))
	post(-1, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return post
}
