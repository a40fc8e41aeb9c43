package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsip-tools/nsip-mcp/nsip/nsiptest"
)

// benchStdioProc is the built binary serving stdio, as a desktop assistant
// runs it, driven over its pipes with pre-encoded JSON-RPC lines.
type benchStdioProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Reader
	id    int
}

func startBenchStdio(b *testing.B, stubURL string) *benchStdioProc {
	b.Helper()
	cmd := exec.Command(buildBinary())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "MCP_TRANSPORT=stdio", "NSIP_BASE_URL=" + stubURL, "LOG_LEVEL=warn"}
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &benchStdioProc{cmd: cmd, in: in, lines: bufio.NewReaderSize(out, 256<<10)}
	b.Cleanup(p.stop)
	p.request(b, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return p
}

// request sends one request and returns its answer line.
func (p *benchStdioProc) request(b *testing.B, method, params string) []byte {
	p.id++
	id := strconv.Itoa(p.id)
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + "}\n"
	if _, err := io.WriteString(p.in, msg); err != nil {
		b.Fatal(err)
	}
	for {
		line, err := p.lines.ReadBytes('\n')
		if err != nil {
			b.Fatalf("%s: reading the answer: %v", method, err)
		}
		if bytes.Contains(line, []byte(`"id":`+id+`,`)) || bytes.Contains(line, []byte(`"id":`+id+`}`)) {
			if !bytes.Contains(line, []byte(`"result":`)) {
				b.Fatalf("%s: %.300s", method, line)
			}
			return line
		}
	}
}

func (p *benchStdioProc) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// rssMiB reads the process's resident set from /proc.
func (p *benchStdioProc) rssMiB(b *testing.B) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc status")
	return 0
}

// BenchmarkBinaryStdioCachedCall times cached tool calls end to end through
// the deployed binary over stdio: pipes, the JSON-RPC layer, the gateway and
// the token budget. The pass-through answer is nsip_get_animal; the
// summarized one is nsip_search_animals with its default page of 15 rows,
// which is over the budget and so is summarized again on every hit. The
// process's RSS after the calls is reported too.
func BenchmarkBinaryStdioCachedCall(b *testing.B) {
	stub := nsiptest.NewServer(b, nsiptest.Options{Seed: 1})
	id := stub.Data().MostProgeny()
	cases := []struct{ name, tool, args, want string }{
		{"pass-through", "nsip_get_animal", `{"search_string":"` + id + `"}`, `"summarized":false`},
		{"summarized", "nsip_search_animals", `{"breed_id":640}`, `"summarized":true`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := startBenchStdio(b, stub.URL())
			params := `{"name":"` + c.tool + `","arguments":` + c.args + `}`
			first := p.request(b, "tools/call", params)
			if !bytes.Contains(first, []byte(c.want)) {
				b.Fatalf("%s: not the expected answer: %.300s", c.tool, first)
			}
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				line := p.request(b, "tools/call", params)
				lat = append(lat, time.Since(t0))
				if !bytes.Contains(line, []byte(`"cache":"hit"`)) {
					b.Fatalf("%s: not a cache hit: %.300s", c.tool, line)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e3, "p99-µs")
			b.ReportMetric(p.rssMiB(b), "rss-MiB")
		})
	}
}
