package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nsip-tools/nsip-mcp/transport"
)

// These benchmarks time one tool call's round trip over each transport,
// client and server in this process, on loopback. The tool answers at once
// with what a cached nsip_get_animal returns (about 1.8 KB of text and the
// gateway's _meta), so the time is the transport's and mcp-go's, not the
// gateway's. Every client is a few lines over the wire format, sending
// pre-encoded requests and checking the answer's id, so that client cost is
// alike on all four.

// cachedAnimal is a detail record shaped like the stand-in's: envelope,
// thirteen trait pairs, indexes and a contact block.
func cachedAnimal() string {
	var b strings.Builder
	b.WriteString(`{"success":true,"data":{"progenyCount":25,"dateOfBirth":"2/13/2024","gender":"Male","genotyped":"50K Genotyped","flockCount":"1",`)
	b.WriteString(`"breed":{"breedName":"Katahdin","breedDisplayString":"640 - Katahdin","breedId":640},"searchResultViewModel":{"lpnId":"6402382024NCS310",`)
	b.WriteString(`"lpnSre":"6400462020VPI007","lpnDam":"6402382022NCS087","status":"CURRENT","regNumber":"","dateOfBirth":"2/13/2024","gender":"Male","breedId":640,"flockCode":"640238"`)
	for i, t := range []string{"bwt", "wwt", "pwwt", "ywt", "fat", "emd", "nlb", "nwt", "pwt", "dag", "wgr", "wec", "fec"} {
		fmt.Fprintf(&b, `,"%s":%.3f,"acc%s":%.2f`, t, float64(i)*0.317-1.9, t, 0.41+float64(i%6)*0.09)
	}
	b.WriteString(`,"usHairIndex":102.03,"srcIndex":116.56},"contactInfo":{"flockCode":"640238","farmName":"Shady Acres Katahdins & Dorpers","customerName":"Pat Example",`)
	b.WriteString(`"phone":"919-555-0143","email":"pat@example.org","address":"1200 Farm Lane","city":"Raleigh","state":"NC","zipCode":"27601"}}}`)
	return b.String()
}

// newBenchServer is an MCP server with the one fixed-answer tool.
func newBenchServer() *server.MCPServer {
	text := cachedAnimal()
	s := server.NewMCPServer("transport-bench", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("cached_animal", mcp.WithDescription("Answer like a cached nsip_get_animal"), mcp.WithString("search_string")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{
					"tokens": 456, "original_tokens": 456, "summarized": false, "cache": "hit", "budget": 2000,
				}}},
				Content: []mcp.Content{mcp.NewTextContent(text)},
			}, nil
		})
	return s
}

const benchProtocol = "2025-11-25"

var (
	benchInit  = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + benchProtocol + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	benchReady = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
)

// benchCall is tools/call number id.
func benchCall(id int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"cached_animal","arguments":{"search_string":"6402382024NCS310"}}}`)
}

// answers reports whether msg is the successful answer to request id.
func answers(msg []byte, id int) bool {
	key := `"id":` + strconv.Itoa(id)
	return bytes.Contains(msg, []byte(`"result":{`)) &&
		(bytes.Contains(msg, []byte(key+`,`)) || bytes.Contains(msg, []byte(key+`}`)))
}

// rig is one transport serving newBenchServer, with a connected client.
type rig struct {
	name  string
	call  func(id int) error // one round trip
	close func()             // client first, then the server, waiting for it
}

var quiet = slog.New(slog.DiscardHandler)

// serveNet starts a network transport on a loopback listener and returns
// its base URL and a stop function that waits for it to return.
func serveNet(b *testing.B, serve func(context.Context, *server.MCPServer, transport.Options) error) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, newBenchServer(), transport.Options{Listener: ln, Logger: quiet, ShutdownTimeout: time.Second})
	}()
	return "http://" + ln.Addr().String(), func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("server: %v", err)
		}
	}
}

func wsRig(b *testing.B) *rig {
	base, stop := serveNet(b, transport.ServeWebSocket)
	d := websocket.Dialer{Subprotocols: []string{"mcp"}}
	conn, resp, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
	if resp != nil {
		resp.Body.Close()
	}
	if err != nil {
		stop()
		b.Fatal(err)
	}
	send := func(msg []byte) error { return conn.WriteMessage(websocket.TextMessage, msg) }
	recv := func() ([]byte, error) { _, m, err := conn.ReadMessage(); return m, err }
	return messageRig(b, "websocket", send, recv, func() {
		_ = conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
		conn.Close()
		stop()
	})
}

func streamableRig(b *testing.B) *rig {
	base, stop := serveNet(b, transport.ServeHTTPSSE)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	hc := &http.Client{Transport: tr}
	session := ""
	post := func(msg []byte) ([]byte, error) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(msg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", benchProtocol)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			return nil, fmt.Errorf("POST /mcp: %s: %s", resp.Status, body)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		return body, err
	}
	if _, err := post(benchInit); err != nil {
		b.Fatal(err)
	}
	if _, err := post(benchReady); err != nil {
		b.Fatal(err)
	}
	return &rig{
		name: "streamable",
		call: func(id int) error {
			body, err := post(benchCall(id))
			if err == nil && !answers(body, id) {
				err = fmt.Errorf("no answer to %d in %.200s", id, body)
			}
			return err
		},
		close: func() { tr.CloseIdleConnections(); stop() },
	}
}

func sseRig(b *testing.B) *rig {
	base, stop := serveNet(b, transport.ServeHTTPSSE)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	hc := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		stop()
		b.Fatal(err)
	}
	events := bufio.NewReader(resp.Body)
	// next returns the data of the next event.
	next := func() ([]byte, error) {
		for {
			line, err := events.ReadSlice('\n')
			if err != nil {
				return nil, err
			}
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				return bytes.TrimSpace(data), nil
			}
		}
	}
	endpoint, err := next()
	if err != nil {
		b.Fatal(err)
	}
	postURL := base + string(endpoint)
	if bytes.HasPrefix(endpoint, []byte("http")) {
		postURL = string(endpoint)
	}
	send := func(msg []byte) error {
		r, err := hc.Post(postURL, "application/json", bytes.NewReader(msg))
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if r.StatusCode >= 300 {
			return fmt.Errorf("POST %s: %s", postURL, r.Status)
		}
		return nil
	}
	return messageRig(b, "sse", send, next, func() {
		cancel()
		resp.Body.Close()
		tr.CloseIdleConnections()
		stop()
	})
}

func stdioRig(b *testing.B) *rig {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- transport.ServeStdio(context.Background(), newBenchServer(), inR, outW, transport.Options{Logger: quiet})
		outW.Close()
	}()
	lines := bufio.NewReaderSize(outR, 64<<10)
	send := func(msg []byte) error { _, err := inW.Write(append(msg, '\n')); return err }
	recv := func() ([]byte, error) { return lines.ReadSlice('\n') }
	return messageRig(b, "stdio", send, recv, func() {
		inW.Close()
		if err := <-done; err != nil {
			b.Errorf("stdio server: %v", err)
		}
		_, _ = io.Copy(io.Discard, outR)
	})
}

// messageRig completes the handshake over a transport where answers come
// back as separate messages (recv), then makes calls the same way.
func messageRig(b *testing.B, name string, send func([]byte) error, recv func() ([]byte, error), stop func()) *rig {
	rt := func(msg []byte, id int) error {
		if err := send(msg); err != nil {
			return err
		}
		for id >= 0 { // a notification (id -1) has no answer
			got, err := recv()
			if err != nil {
				return err
			}
			if answers(got, id) {
				return nil
			}
		}
		return nil
	}
	if err := rt(benchInit, 0); err != nil {
		stop()
		b.Fatal(err)
	}
	if err := rt(benchReady, -1); err != nil {
		stop()
		b.Fatal(err)
	}
	return &rig{name: name, call: func(id int) error { return rt(benchCall(id), id) }, close: stop}
}

var rigs = []func(*testing.B) *rig{wsRig, streamableRig, sseRig, stdioRig}

// BenchmarkRoundTrip is one cached-size tool call per iteration over each
// transport in turn.
func BenchmarkRoundTrip(b *testing.B) {
	for _, mk := range rigs {
		r := mk(b)
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			id := 1
			for b.Loop() {
				if err := r.call(id); err != nil {
					b.Fatal(err)
				}
				id++
			}
		})
		r.close()
	}
}

// BenchmarkRoundTripSideBySide makes one call over every transport in each
// iteration, rotating the order, so that all see the same machine load; it
// reports each transport's median and its ratio to streamable HTTP's.
func BenchmarkRoundTripSideBySide(b *testing.B) {
	var rs []*rig
	for _, mk := range rigs {
		rs = append(rs, mk(b))
	}
	defer func() {
		for _, r := range rs {
			r.close()
		}
	}()
	lat := make([][]time.Duration, len(rs))
	id := 1
	for b.Loop() {
		for k := range rs {
			j := (k + id) % len(rs)
			t0 := time.Now()
			if err := rs[j].call(id); err != nil {
				b.Fatal(err)
			}
			lat[j] = append(lat[j], time.Since(t0))
		}
		id++
	}
	med := make(map[string]float64, len(rs))
	for j, r := range rs {
		slices.Sort(lat[j])
		med[r.name] = float64(lat[j][len(lat[j])/2]) / 1e3
		b.ReportMetric(med[r.name], r.name+"-p50-µs")
	}
	for _, r := range rs {
		if r.name != "streamable" {
			b.ReportMetric(med[r.name]/med["streamable"], r.name+"/streamable")
		}
	}
}
