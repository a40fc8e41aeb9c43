package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nsip-tools/nsip-mcp/cmd/internal/bare"
	"github.com/nsip-tools/nsip-mcp/gateway"
	"github.com/nsip-tools/nsip-mcp/gateway/metrics"
	"github.com/nsip-tools/nsip-mcp/nsip"
	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
	"github.com/nsip-tools/nsip-mcp/summarize"
	"github.com/nsip-tools/nsip-mcp/transport"
)

// BenchmarkCachedCallOverTransport is one cached nsip_get_animal call per
// iteration through the server as serve wires it (client, gateway,
// summarizer, metrics) and a network transport, client and server in this
// process. It is the call path to profile:
//
//	go test ./cmd/nsip-mcp -run '^$' -bench CachedCallOverTransport -cpuprofile cpu.out
//
// The -bare cases serve the same call from cmd/internal/bare, an mcp-go
// server that answers with nsip-mcp's result byte for byte and does
// nothing else, as nsip-load --versus-bare does: the difference in
// allocations per call between a case and its -bare twin is what nsip-mcp
// adds to a cached call (client side included in both, equally).
func BenchmarkCachedCallOverTransport(b *testing.B) {
	up := nsiptest.Start(nsiptest.Options{Seed: 11, Animals: 600})
	defer up.Close()
	lpn := up.Data().MostProgeny()
	msg := func(id int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"nsip_get_animal","arguments":{"search_string":"` + lpn + `"}}}`)
	}
	answer := cachedResult(b, up.URL(), msg)
	type transportCase struct {
		name  string
		serve func(context.Context, *server.MCPServer, transport.Options) error
		dial  func(b *testing.B, base string) func(id int, msg []byte) []byte
	}
	run := func(b *testing.B, tr transportCase, s *server.MCPServer, opts transport.Options) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		opts.Listener, opts.Logger, opts.ShutdownTimeout = ln, slog.New(slog.DiscardHandler), time.Second
		go func() { done <- tr.serve(ctx, s, opts) }()
		defer func() { cancel(); <-done }()
		call := tr.dial(b, "http://"+ln.Addr().String())
		for id := 1; id <= 2; id++ { // the first call fills the cache
			if got := call(id, msg(id)); !bytes.Contains(got, []byte(`"cache":"`)) {
				b.Fatalf("warm-up: %.300s", got)
			}
		}
		if got := call(3, msg(3)); !bytes.Contains(got, answer) {
			b.Fatalf("the answer is not nsip-mcp's cached one:\n%.400s\nwant\n%.400s", got, answer)
		}
		b.ReportAllocs()
		id := 4
		for b.Loop() {
			if got := call(id, msg(id)); !bytes.Contains(got, []byte(`"cache":"hit"`)) {
				b.Fatalf("not a hit: %.300s", got)
			}
			id++
		}
	}
	cases := []transportCase{
		{"websocket", serveWS, dialBenchWS},
		{"streamable", serveHTTP, dialBenchStreamable},
	}
	for _, tr := range cases {
		b.Run(tr.name, func(b *testing.B) {
			s, m := newBenchGateway(b, up.URL())
			run(b, tr, s, transport.Options{Metrics: m})
		})
	}
	// The -mcpgo case serves the bare server with mcp-go's own streamable
	// HTTP server, as nsip-load --versus-bare --bare-server mcp-go does:
	// against it, what this project's transport adds counts too.
	for _, tr := range append(cases, transportCase{"streamable-mcpgo", serveMCPGo, dialBenchStreamable}) {
		b.Run(tr.name+"-bare", func(b *testing.B) {
			s, err := bare.New(answer, []string{"nsip_get_animal"})
			if err != nil {
				b.Fatal(err)
			}
			run(b, tr, s, transport.Options{})
		})
	}
}

// serveMCPGo serves s on o.Listener with mcp-go's streamable HTTP server
// and its defaults, no transport code of this project, until ctx ends.
func serveMCPGo(ctx context.Context, s *server.MCPServer, o transport.Options) error {
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s)}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(o.Listener); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// cachedResult is the JSON of nsip-mcp's result for a cached call of msg,
// as mcp-go writes it.
func cachedResult(b *testing.B, upstream string, msg func(int) []byte) json.RawMessage {
	s, _ := newBenchGateway(b, upstream)
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	for id := 1; id <= 2; id++ {
		out, err := json.Marshal(s.HandleMessage(context.Background(), msg(id)))
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(out, &env); err != nil || !bytes.Contains(env.Result, []byte(`"cache":"`)) {
			b.Fatalf("call %d: %v: %.300s", id, err, out)
		}
	}
	if !bytes.Contains(env.Result, []byte(`"cache":"hit"`)) || !bytes.Contains(env.Result, []byte(`"structuredContent":`)) {
		b.Fatalf("not a hit with structuredContent: %.300s", env.Result)
	}
	return env.Result
}

func serveWS(ctx context.Context, s *server.MCPServer, o transport.Options) error {
	return transport.ServeWebSocket(ctx, s, o)
}

func serveHTTP(ctx context.Context, s *server.MCPServer, o transport.Options) error {
	return transport.ServeHTTPSSE(ctx, s, o)
}

// newBenchGateway is serve's wiring with the rate limit lifted, and its
// metrics for the transport to serve.
func newBenchGateway(b *testing.B, upstream string) (*server.MCPServer, *metrics.Metrics) {
	client, err := nsip.NewClient(nsip.WithBaseURL(upstream))
	if err != nil {
		b.Fatal(err)
	}
	counter := summarize.StartCounter()
	if err := counter.Err(); err != nil {
		b.Fatal(err)
	}
	m := metrics.New(prometheus.NewRegistry())
	cfg := gateway.DefaultConfig()
	cfg.RateLimit, cfg.RateBurst = 1e6, 1e6
	cfg.Metrics = m
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.New(client, summarize.New(counter), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return g.NewMCPServer("nsip-mcp", "bench"), m
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
